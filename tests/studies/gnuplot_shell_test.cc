// The text studies/ hands to gnuplot and to bash: numbers of a gnuplot data
// file and shell quoting (read back by a real bash).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "sapcontact/studies/gnuplot.h"
#include "sapcontact/studies/shell_quote.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

TEST(GnuplotNumber, TenSignificantDigitsAndNaNWhenNotFinite) {
  EXPECT_EQ(GnuplotNumber(1.5), "1.5");
  EXPECT_EQ(GnuplotNumber(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(GnuplotNumber(0.1 + 0.2), "0.3");
  EXPECT_EQ(GnuplotNumber(test_constants::kPi), "3.141592654");
  EXPECT_EQ(GnuplotNumber(std::numeric_limits<double>::infinity()), "NaN");
  EXPECT_EQ(GnuplotNumber(-std::numeric_limits<double>::infinity()), "NaN");
  EXPECT_EQ(GnuplotNumber(std::nan("")), "NaN");
}

// What bash prints for `printf %s <quoted>`.
std::string BashEcho(const std::string& quoted) {
  const std::string command = "bash -c " + ShellQuote("printf %s " + quoted);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "<popen failed>";
  std::string out;
  std::array<char, 256> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    out.append(buffer.data(), n);
  }
  pclose(pipe);
  return out;
}

TEST(ShellQuote, BashReadsBackTheSameText) {
  for (const std::string text :
       {"plain", "two words", "it's", "'", "''", "$HOME `id` $(id) \\ \"x\"",
        "a;b|c&d>e<f*?[]{}~#!", "tab\there", "new\nline", ""}) {
    EXPECT_EQ(BashEcho(ShellQuote(text)), text) << ShellQuote(text);
  }
}

}  // namespace
}  // namespace sapcontact
