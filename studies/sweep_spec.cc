#include "sapcontact/studies/sweep_spec.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>

namespace sapcontact {
namespace {

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

[[noreturn]] void Fail(const std::string& spec, const std::string& problem) {
  throw std::invalid_argument("--vary '" + spec + "': " + problem);
}

// Splits at `sep` outside [] and {}; unbalanced brackets are an error.
std::vector<std::string> SplitTopLevel(const std::string& text, char sep,
                                       const std::string& spec) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') {
      if (--depth < 0) Fail(spec, "unbalanced brackets in '" + text + "'");
    }
    if (c == sep && depth == 0) {
      parts.push_back(Trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (depth != 0) Fail(spec, "unbalanced brackets in '" + text + "'");
  parts.push_back(Trim(current));
  return parts;
}

double ParseNumber(const std::string& text, const char* field,
                   const std::string& spec) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end != begin + text.size() || errno == ERANGE ||
      !std::isfinite(v)) {
    Fail(spec, std::string(field) + " '" + text + "' is not a finite number");
  }
  return v;
}

std::string Format(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.10g", v);
  return buffer;
}

// START:STOP:COUNT[:log].
void ParseRange(const std::vector<std::string>& fields, const std::string& spec,
                SweepAxis* axis) {
  if (fields.size() != 3 && fields.size() != 4) {
    Fail(spec, "a range is START:STOP:COUNT or START:STOP:COUNT:log, got " +
                   std::to_string(fields.size()) + " fields");
  }
  if (fields.size() == 4) {
    if (fields[3] != "log") {
      Fail(spec,
           "the 4th field of a range must be 'log', got '" + fields[3] + "'");
    }
    axis->log_spacing = true;
  }
  const double start = ParseNumber(fields[0], "START", spec);
  const double stop = ParseNumber(fields[1], "STOP", spec);
  const std::string& c = fields[2];
  char* end = nullptr;
  errno = 0;
  const long count = std::strtol(c.c_str(), &end, 10);
  if (c.empty() || end != c.c_str() + c.size() || count < 1) {
    Fail(spec, "COUNT '" + c + "' is not an integer >= 1");
  }
  if (errno == ERANGE || count > kMaxSweepPoints) {
    Fail(spec, "COUNT '" + c + "' is more than the limit of " +
                   std::to_string(kMaxSweepPoints) + " points of a sweep");
  }
  if (count == 1 && start != stop) {
    Fail(spec, "COUNT 1 needs START == STOP");
  }
  if (axis->log_spacing && !(start > 0 && stop > 0)) {
    Fail(spec, "a log range needs START > 0 and STOP > 0");
  }
  for (long i = 0; i < count; ++i) {
    double v;
    if (i == 0) {
      v = start;
    } else if (i == count - 1) {
      v = stop;
    } else {
      const double f = static_cast<double>(i) / (count - 1);
      v = axis->log_spacing ? std::exp(std::log(start) +
                                       f * (std::log(stop) - std::log(start)))
                            : start + f * (stop - start);
    }
    axis->values.push_back(Format(v));
  }
}

}  // namespace

SweepAxis ParseSweepAxis(const std::string& spec) {
  SweepAxis axis;
  axis.spec = spec;
  const size_t eq = spec.find('=');
  if (eq == std::string::npos) Fail(spec, "expected KEY=VALUES");
  const std::string keys = Trim(spec.substr(0, eq));
  const std::string values = Trim(spec.substr(eq + 1));
  std::set<std::string> seen;
  for (const std::string& key : SplitTopLevel(keys, ',', spec)) {
    if (key.empty()) Fail(spec, "empty key");
    if (key.find_first_of(" \t[]{}:") != std::string::npos) {
      Fail(spec, "key '" + key + "' contains a space, bracket or ':'");
    }
    if (!seen.insert(key).second) Fail(spec, "key '" + key + "' repeated");
    axis.keys.push_back(key);
  }
  if (values.empty()) Fail(spec, "no values");
  // A range has ':' outside brackets and no top-level ','.
  const std::vector<std::string> items = SplitTopLevel(values, ',', spec);
  const std::vector<std::string> fields = SplitTopLevel(values, ':', spec);
  if (items.size() == 1 && fields.size() > 1) {
    ParseRange(fields, spec, &axis);
    return axis;
  }
  for (const std::string& item : items) {
    if (item.empty()) Fail(spec, "empty value in the list '" + values + "'");
    axis.values.push_back(item);
  }
  return axis;
}

std::vector<SweepPoint> ExpandSweep(const std::vector<SweepAxis>& axes) {
  std::set<std::string> keys;
  double total = 1;
  for (const SweepAxis& axis : axes) {
    if (axis.values.empty()) {
      throw std::invalid_argument("--vary '" + axis.spec + "': no values");
    }
    for (const std::string& key : axis.keys) {
      if (!keys.insert(key).second) {
        throw std::invalid_argument("--vary '" + axis.spec + "': key '" + key +
                                    "' is also varied by another --vary");
      }
    }
    total *= static_cast<double>(axis.values.size());
  }
  if (total > kMaxSweepPoints) {
    throw std::invalid_argument(
        "sweep: " + Format(total) + " combinations, more than the limit of " +
        std::to_string(kMaxSweepPoints) + " (docs/studies.md)");
  }
  const int n = static_cast<int>(total);
  std::vector<SweepPoint> points(n);
  for (int i = 0; i < n; ++i) {
    SweepPoint& p = points[i];
    p.index = i;
    p.values.resize(axes.size());
    int rest = i;
    for (int a = static_cast<int>(axes.size()) - 1; a >= 0; --a) {
      const int size = static_cast<int>(axes[a].values.size());
      p.values[a] = axes[a].values[rest % size];
      rest /= size;
    }
    for (size_t a = 0; a < axes.size(); ++a) {
      for (const std::string& key : axes[a].keys) {
        p.overrides.push_back(key + "=" + p.values[a]);
      }
    }
  }
  return points;
}

SweepShard ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  auto parse = [&](const std::string& s, int* out) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || v < 0 ||
        v > 1000000000) {
      return false;
    }
    *out = static_cast<int>(v);
    return true;
  };
  SweepShard shard;
  if (slash == std::string::npos ||
      !parse(Trim(text.substr(0, slash)), &shard.index) ||
      !parse(Trim(text.substr(slash + 1)), &shard.count)) {
    throw std::invalid_argument("--shard '" + text +
                                "': expected I/N with integers 0 <= I < N");
  }
  if (shard.count < 1 || shard.index >= shard.count) {
    throw std::invalid_argument("--shard '" + text +
                                "': needs N >= 1 and 0 <= I < N");
  }
  return shard;
}

bool InShard(int index, const SweepShard& shard) {
  return index % shard.count == shard.index;
}

std::string ToString(const SweepShard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

}  // namespace sapcontact
