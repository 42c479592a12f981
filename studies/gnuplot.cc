#include "sapcontact/studies/gnuplot.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "sapcontact/studies/shell_quote.h"

namespace sapcontact {

std::string GnuplotNumber(double v) {
  if (!std::isfinite(v)) return "NaN";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.10g", v);
  return buffer;
}

std::string GnuplotString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void RunGnuplot(const std::string& dir, const std::string& script,
                const std::string& log) {
  const std::filesystem::path d(dir);
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    throw std::runtime_error(
        "gnuplot not found (Debian package gnuplot-nox, installed by "
        "scripts/setup): wrote " +
        (d / script).string() + ", no PNG");
  }
  const std::string command = "cd " + ShellQuote(dir) + " && gnuplot " +
                              ShellQuote(script) + " > " + ShellQuote(log) +
                              " 2>&1";
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("gnuplot failed on " + (d / script).string() +
                             "; see " + (d / log).string());
  }
}

}  // namespace sapcontact
