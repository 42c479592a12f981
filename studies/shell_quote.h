#pragma once

#include <string>

namespace sapcontact {

/// `text` quoted for bash (single quotes; ' as '\''): Slurm scripts and the
/// gnuplot command line.
std::string ShellQuote(const std::string& text);

}  // namespace sapcontact
