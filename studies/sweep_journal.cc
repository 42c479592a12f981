#include "sapcontact/studies/sweep_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace {

constexpr char kFormatKey[] = "sapcontact_sweep_journal";
constexpr int kFormatVersion = 1;
// Scene files larger than this are not sweeps' scenes (the scene loader
// refuses them too).
constexpr std::uintmax_t kMaxSceneBytes = 1u << 30;

std::string SystemError(const std::string& what, const std::string& path) {
  return "sweep journal " + path + ": " + what + ": " + std::strerror(errno);
}

std::string ReadWhole(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + std::string(what) + " " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().size() > kMaxSceneBytes) {
    throw std::runtime_error(std::string(what) + " " + path + " is over 1 GiB");
  }
  return s.str();
}

nlohmann::ordered_json IdentityJson(const SweepIdentity& id) {
  nlohmann::ordered_json j;
  j[kFormatKey] = kFormatVersion;
  j["scene"] = id.scene_path;
  j["scene_fnv1a64"] = id.scene_hash;
  j["set"] = id.fixed;
  j["vary"] = id.vary;
  j["metrics"] = id.metrics;
  j["metric_options"] = id.metric_options;
  j["shard"] = id.shard;
  j["points"] = id.points;
  return j;
}

std::string Quoted(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// What differs between the journal's identity `j` and this sweep's `id`
// (empty: nothing).
std::string Difference(const nlohmann::ordered_json& j,
                       const SweepIdentity& id) {
  const nlohmann::ordered_json mine = IdentityJson(id);
  std::string diff;
  auto add = [&](const std::string& what) {
    diff += (diff.empty() ? "" : "; ") + what;
  };
  if (j.value("scene_fnv1a64", std::string()) != id.scene_hash) {
    add("the scene's content differs (" + id.scene_path +
        " changed since the journal was written for " +
        j.value("scene", std::string("?")) + ")");
  }
  const std::pair<const char*, const char*> fields[] = {
      {"set", "the fixed overrides (--set)"},
      {"vary", "the varied values (--vary)"},
      {"metrics", "the metrics (--metric)"},
      {"metric_options", "the metric options (window, sliding speed)"},
      {"shard", "the shard (--shard)"},
      {"points", "the number of points"}};
  for (const auto& [key, what] : fields) {
    if (!j.contains(key) || j.at(key) != mine.at(key)) {
      add(std::string(what) + ": journal " +
          (j.contains(key) ? Quoted(j.at(key)) : "(missing)") +
          ", this sweep " + Quoted(mine.at(key)));
    }
  }
  return diff;
}

}  // namespace

std::string Fnv1a64Hex(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016" PRIx64, h);
  return buffer;
}

SweepIdentity MakeSweepIdentity(const std::string& scene_path,
                                const std::vector<SweepAxis>& axes,
                                const SweepOptions& options) {
  SweepIdentity id;
  id.scene_path = scene_path;
  id.scene_hash = Fnv1a64Hex(ReadWhole(scene_path, "scene"));
  id.fixed = options.fixed_overrides;
  for (const SweepAxis& a : axes) {
    std::string text;
    for (size_t k = 0; k < a.keys.size(); ++k) {
      text += (k ? "," : "") + a.keys[k];
    }
    text += "=";
    for (size_t v = 0; v < a.values.size(); ++v) {
      text += (v ? "|" : "") + a.values[v];
    }
    id.vary.push_back(text);
  }
  id.metrics = options.metrics.metrics;
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), "window %.17g sliding %.17g",
                options.metrics.window_fraction,
                options.metrics.sliding_speed_mps);
  id.metric_options = buffer;
  id.shard = ToString(options.shard);
  id.points = static_cast<int>(ExpandSweep(axes).size());
  return id;
}

SweepJournal::SweepJournal(const std::string& path,
                           const SweepIdentity& identity, bool resume)
    : path_(path) {
  if (resume && ::access(path.c_str(), F_OK) == 0) {
    Recover(identity);
  } else {
    Create(identity);
  }
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepJournal::Create(const SweepIdentity& identity) {
  fd_ = ::open(path_.c_str(),
               O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(SystemError("cannot create", path_));
  WriteDurably(Quoted(IdentityJson(identity)) + "\n");
}

void SweepJournal::Recover(const SweepIdentity& identity) {
  const std::string text = ReadWhole(path_, "sweep journal");
  const size_t first_end = text.find('\n');
  nlohmann::ordered_json header;
  try {
    header = nlohmann::ordered_json::parse(text.substr(0, first_end));
  } catch (const std::exception&) {
  }
  if (first_end == std::string::npos || !header.is_object() ||
      header.value(kFormatKey, 0) != kFormatVersion) {
    throw std::invalid_argument(path_ +
                                ": not a sweep journal (line 1 is not its "
                                "header); remove it or run without --resume");
  }
  const std::string diff = Difference(header, identity);
  if (!diff.empty()) {
    throw std::invalid_argument(
        path_ + ": the journal is of another sweep: " + diff +
        "; run without --resume to start over, or use another --out");
  }
  std::set<int> seen;
  size_t good_end = first_end + 1;  // bytes of intact records
  int line = 1;
  for (size_t start = first_end + 1; start < text.size();) {
    ++line;
    const size_t end = text.find('\n', start);
    const bool last = end == std::string::npos ||
                      text.find('\n', end + 1) == std::string::npos;
    const std::string record = text.substr(
        start, end == std::string::npos ? std::string::npos : end - start);
    bool intact = end != std::string::npos && record.size() > 17 &&
                  record[16] == ' ' &&
                  Fnv1a64Hex(record.substr(17)) == record.substr(0, 16);
    SweepRow row;
    if (intact) {
      try {
        row = DeserializeSweepRow(record.substr(17));
      } catch (const std::exception&) {
        intact = false;
      }
    }
    if (!intact) {
      // A kill during the last write: dropped. Anything else is damage.
      if (last) break;
      throw std::runtime_error(path_ + ":" + std::to_string(line) +
                               ": damaged record (checksum or format); the "
                               "journal cannot be resumed");
    }
    int shard_index = 0, shard_count = 1;
    std::sscanf(identity.shard.c_str(), "%d/%d", &shard_index, &shard_count);
    if (row.index < 0 || row.index >= identity.points ||
        !InShard(row.index, SweepShard{shard_index, shard_count})) {
      throw std::runtime_error(path_ + ":" + std::to_string(line) + ": run " +
                               std::to_string(row.index) +
                               " is not a point of shard " + identity.shard);
    }
    if (seen.insert(row.index).second) recovered_.push_back(std::move(row));
    good_end = end + 1;
    start = end + 1;
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error(SystemError("cannot open", path_));
  if (good_end < text.size() &&
      (::ftruncate(fd_, static_cast<off_t>(good_end)) != 0 ||
       ::fdatasync(fd_) != 0)) {
    throw std::runtime_error(SystemError("cannot cut the torn record", path_));
  }
}

void SweepJournal::Append(const SweepRow& row) {
  const std::string json = SerializeSweepRow(row);
  WriteDurably(Fnv1a64Hex(json) + " " + json + "\n");
}

void SweepJournal::WriteDurably(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(SystemError("cannot write", path_));
    done += static_cast<size_t>(n);
  }
  if (::fdatasync(fd_) != 0) {
    throw std::runtime_error(SystemError("cannot sync", path_));
  }
}

}  // namespace sapcontact
