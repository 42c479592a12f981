// Sweep specifications for parameter-regime studies: the varied
// scene values (`--vary`), their Cartesian product, and sharding (`--shard`).
// Scene keys are the dotted override keys of sim/scene/scene_loader.h
// (docs/scenes.md); values are override values (YAML text).
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

/// At most this many points in a sweep (the Cartesian product, before
/// sharding; also the largest range COUNT): the points are expanded in
/// memory before any run starts.
constexpr long kMaxSweepPoints = 1000000;

/// One `--vary` axis: one or more linked keys that take the same values.
/// Syntax of the specification:
///   KEY=V1,V2,...              a list (values verbatim: numbers, .inf,
///                              words, flow lists "[0,0,-1.62]": commas
///                              inside brackets do not split)
///   KEY=START:STOP:COUNT       COUNT evenly spaced values, START and STOP
///                              included (COUNT = 1 needs START = STOP)
///   KEY=START:STOP:COUNT:log   COUNT log-spaced values (START, STOP > 0)
///   KEY1,KEY2=...              linked keys: every value is given to all of
///                              them (e.g. beta = sigma); keys cannot contain
///                              ',' (scene names never do).
/// Range values are written with 10 significant digits ("%.10g"); START and
/// STOP appear exactly as their numbers.
struct SweepAxis {
  std::vector<std::string> keys;
  std::vector<std::string> values;
  /// True for a ":log" range (plots then default to a log axis).
  bool log_spacing{false};
  /// The specification as given (for messages and the sweep's record).
  std::string spec;
};

/// Parses one axis specification.
/// @throws std::invalid_argument "--vary '<spec>': <problem>" on bad syntax:
///   no '=', an empty key or value, unbalanced brackets, a range with other
///   than 3 fields plus an optional "log", a non-numeric or non-finite
///   START/STOP, a COUNT that is not an integer >= 1 (or more than
///   kMaxSweepPoints), COUNT = 1 with
///   START != STOP, a log range with START or STOP <= 0, duplicate keys.
SweepAxis ParseSweepAxis(const std::string& spec);

/// One combination of the varied values.
struct SweepPoint {
  /// Position in the full Cartesian product (0-based; the row index).
  int index{0};
  /// One value per axis.
  std::vector<std::string> values;
  /// "key=value" for every key of every axis, axis order.
  std::vector<std::string> overrides;
};

/// The Cartesian product of the axes, the first axis varying slowest (the
/// last fastest). No axes: one point without overrides.
/// @throws std::invalid_argument when a key appears on two axes, or the
///         product exceeds kMaxSweepPoints.
std::vector<SweepPoint> ExpandSweep(const std::vector<SweepAxis>& axes);

/// `--shard I/N`: run only the points whose index i satisfies i % N == I
/// (0 <= I < N). The union of the N shards is the whole sweep, each point
/// in exactly one shard.
struct SweepShard {
  int index{0};
  int count{1};
};

/// Parses "I/N". @throws std::invalid_argument "--shard '<text>': ..." when
/// it is not two integers with N >= 1 and 0 <= I < N.
SweepShard ParseShard(const std::string& text);

/// Whether point `index` belongs to `shard`.
bool InShard(int index, const SweepShard& shard);

/// "I/N".
std::string ToString(const SweepShard& shard);

}  // namespace sapcontact
