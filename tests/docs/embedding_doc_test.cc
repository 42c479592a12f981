// docs/embedding.md quotes its code from docs/snippets/*.cc: each
// "<!-- snippet: docs/snippets/NAME.cc -->" line is followed by a ```cpp
// block whose text must equal the file, and every snippet file must be
// quoted, so that the manual's code is the code tests/docs/CMakeLists.txt
// builds and runs (docs.snippet.NAME). The repository root is found from
// SAPCONTACT_SOURCE_DIR, the working directory and its parents, or this
// file's path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path RepositoryRoot() {
  const fs::path doc = fs::path("docs") / "embedding.md";
  std::error_code ec;
  if (const char* root = std::getenv("SAPCONTACT_SOURCE_DIR")) {
    if (fs::exists(fs::path(root) / doc, ec)) return root;
  }
  for (fs::path dir = fs::current_path(ec); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::exists(dir / doc, ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  const fs::path here = fs::path(__FILE__).parent_path().parent_path();
  return here.parent_path();
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Quote {
  std::string file;  // as written after "snippet:"
  std::string text;  // the fenced block's content
  int line{0};
};

// The snippet quotes of a Markdown text; a marker without a following
// ```cpp block gives a quote with text "<missing block>".
std::vector<Quote> Quotes(const std::string& markdown) {
  std::vector<Quote> quotes;
  std::istringstream in(markdown);
  std::string line;
  int number = 0;
  const std::string marker = "<!-- snippet: ";
  while (std::getline(in, line)) {
    ++number;
    if (line.compare(0, marker.size(), marker) != 0) continue;
    Quote q;
    q.line = number;
    q.file = line.substr(marker.size(), line.find(" -->") - marker.size());
    std::string fence;
    if (!std::getline(in, fence) || fence != "```cpp") {
      q.text = "<missing block>";
      quotes.push_back(q);
      continue;
    }
    ++number;
    bool closed = false;
    while (std::getline(in, line)) {
      ++number;
      if (line == "```") {
        closed = true;
        break;
      }
      q.text += line + "\n";
    }
    if (!closed) q.text = "<missing block>";
    quotes.push_back(q);
  }
  return quotes;
}

TEST(EmbeddingDoc, QuotesParseMarkersAndBlocks) {
  const std::vector<Quote> q = Quotes(
      "x\n<!-- snippet: a.cc -->\n```cpp\nint a;\n\nint b;\n```\n"
      "<!-- snippet: b.cc -->\nno block\n");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].file, "a.cc");
  EXPECT_EQ(q[0].text, "int a;\n\nint b;\n");
  EXPECT_EQ(q[1].text, "<missing block>");
}

TEST(EmbeddingDoc, EverySnippetIsQuotedVerbatim) {
  const fs::path root = RepositoryRoot();
  const fs::path doc = root / "docs" / "embedding.md";
  ASSERT_TRUE(fs::exists(doc)) << doc;
  const std::vector<Quote> quotes = Quotes(Read(doc));
  std::set<std::string> quoted;
  for (const Quote& q : quotes) {
    const fs::path file = root / q.file;
    ASSERT_TRUE(fs::exists(file))
        << "embedding.md:" << q.line << ": no file " << q.file;
    EXPECT_EQ(q.text, Read(file))
        << "embedding.md:" << q.line << " differs from " << q.file
        << " (copy the file into the block)";
    quoted.insert(fs::path(q.file).filename().string());
  }
  int snippets = 0;
  for (const fs::directory_entry& e :
       fs::directory_iterator(root / "docs" / "snippets")) {
    if (e.path().extension() != ".cc") continue;
    ++snippets;
    EXPECT_EQ(quoted.count(e.path().filename().string()), 1u)
        << e.path() << " is not quoted in docs/embedding.md";
  }
  EXPECT_GE(snippets, 8);
  EXPECT_EQ(static_cast<int>(quotes.size()), snippets);
}

}  // namespace
