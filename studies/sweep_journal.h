// The journal of a sweep (DIR/sweep.journal of `sapsim sweep`): every
// finished run appended durably as it completes, so that a sweep that is
// killed (a pre-empted node, a wall-time limit, SIGKILL) can be resumed
// with only its missing points run (`sapsim sweep --resume`,
// sapcontact.sweep(..., resume=True); docs/studies.md, "Resuming").
//
// Format (text, one record per line):
//   line 1    {"sapcontact_sweep_journal": 1, ...identity...}  (JSON)
//   line k>1  <16 hex digits: FNV-1a 64 of the JSON> <SerializeSweepRow JSON>
// A record is one write(2) followed by fdatasync(2): once Append returns,
// the run survives a kill or a power loss. A kill during a write leaves a
// torn last line (no newline, or a checksum that does not match), which
// reopening drops and truncates.
#pragma once

#include <string>
#include <vector>

#include "sapcontact/studies/sweep_runner.h"

namespace sapcontact {

/// What makes two sweeps the same sweep: the scene file's content (its
/// bytes; files it refers to, such as URDFs and meshes, are not read),
/// the fixed overrides, the varied keys and values, the metrics and their
/// options, the shard and the number of points. The scene's path is
/// recorded but not compared (a moved directory still resumes).
struct SweepIdentity {
  std::string scene_path;
  std::string scene_hash;  ///< FNV-1a 64 of the scene file, 16 hex digits
  std::vector<std::string> fixed;
  std::vector<std::string> vary;  ///< "keys=values" per axis, exact values
  std::vector<std::string> metrics;
  std::string metric_options;  ///< window and sliding speed, "%.17g"
  std::string shard;           ///< "I/N"
  int points{0};               ///< in the whole sweep (all shards)
};

/// The identity of the sweep that RunSweep(scene_path, axes, options)
/// runs. @throws std::runtime_error when the scene file cannot be read.
SweepIdentity MakeSweepIdentity(const std::string& scene_path,
                                const std::vector<SweepAxis>& axes,
                                const SweepOptions& options);

/// FNV-1a 64-bit hash of `bytes` as 16 lower-case hex digits.
std::string Fnv1a64Hex(const std::string& bytes);

class SweepJournal {
 public:
  /// Opens the journal at `path` for `identity`. With `resume` and an
  /// existing file: checks that it is the journal of the same sweep and
  /// reads its runs (a torn last record is dropped and cut off the file);
  /// with `resume` and no file, or without `resume`: starts a new, empty
  /// journal (replacing any file at `path`).
  /// @throws std::invalid_argument "<path>: ... another sweep: <what
  ///         differs>" when resuming the journal of a different sweep (its
  ///         scene content, overrides, varied values, metrics, shard or
  ///         point count), or a file that is not a sweep journal;
  ///         std::runtime_error naming the file and line on a damaged
  ///         record before the last one, a run outside the sweep's shard,
  ///         or an I/O error.
  SweepJournal(const std::string& path, const SweepIdentity& identity,
               bool resume);
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  /// The runs read when the journal was opened (file order; one per
  /// point index: a repeated index keeps its first record).
  const std::vector<SweepRow>& recovered() const { return recovered_; }

  /// Appends `row` and waits until it is on disk (fdatasync).
  /// @throws std::runtime_error naming the file on a write error.
  void Append(const SweepRow& row);

  const std::string& path() const { return path_; }

 private:
  void Create(const SweepIdentity& identity);
  void Recover(const SweepIdentity& identity);
  void WriteDurably(const std::string& text);

  std::string path_;
  int fd_{-1};
  std::vector<SweepRow> recovered_;
};

}  // namespace sapcontact
