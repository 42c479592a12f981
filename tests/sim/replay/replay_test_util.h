// Helpers the replay tests share: a file's text and a replay page's data.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace sapcontact {
namespace replay_test {

/// The whole text of a file ("" if it cannot be read).
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The JSON data block of a replay page.
inline nlohmann::json PageData(const std::filesystem::path& page) {
  const std::string html = ReadText(page);
  const std::string open =
      "<script type=\"application/json\" id=\"replay-data\">";
  const size_t begin = html.find(open);
  EXPECT_NE(begin, std::string::npos) << page;
  const size_t start = begin + open.size();
  const size_t end = html.find("</script>", start);
  return nlohmann::json::parse(html.substr(start, end - start));
}

}  // namespace replay_test
}  // namespace sapcontact
