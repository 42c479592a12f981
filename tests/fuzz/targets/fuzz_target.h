// Shared parts of the libFuzzer targets (tests/fuzz/targets/*_fuzzer.cc,
// docs/testing.md "Fuzzing"). Each target defines LLVMFuzzerTestOneInput and
// states its rules; a broken rule prints what broke and aborts, which
// libFuzzer (and the regression runner, fuzz_replay_main.cc) reports as a
// crash with the input that caused it. Scene stepping: fuzz_steps.h.
#pragma once

#include <unistd.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

namespace sapcontact {
namespace fuzz {

/// The source tree (scenes resolve their URDF files against config/scenes).
inline std::string SourceDir() { return SAPCONTACT_SOURCE_DIR; }

[[noreturn]] inline void Broken(const char* rule, const std::string& detail) {
  std::fprintf(stderr, "fuzz rule broken: %s: %s\n", rule, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define SAPCONTACT_FUZZ_CHECK(condition, detail)                      \
  do {                                                                \
    if (!(condition)) ::sapcontact::fuzz::Broken(#condition, detail); \
  } while (0)

/// A folder of this process's own for the files a target writes
/// (temp_directory_path()/sapcontact_<tag>_<pid>), created on first use.
inline std::string ProcessTempDir(const std::string& tag) {
  const std::string d = std::filesystem::temp_directory_path().string() +
                        "/sapcontact_" + tag + "_" + std::to_string(::getpid());
  std::filesystem::create_directories(d);
  return d;
}

template <class Derived>
bool AllFinite(const Eigen::DenseBase<Derived>& x) {
  return x.derived().array().isFinite().all();
}

/// Reads typed values from the fuzzer's bytes; past the end every value is
/// zero, so every input decodes to something.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, std::size_t size)
      : data_(data), size_(size) {}

  std::size_t remaining() const { return size_ - pos_; }

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  /// An integer in [lo, hi] (hi - lo < 2^16).
  int Int(int lo, int hi) {
    const unsigned span = static_cast<unsigned>(hi - lo) + 1u;
    const unsigned raw = Byte() | (static_cast<unsigned>(Byte()) << 8);
    return lo + static_cast<int>(raw % span);
  }

  bool Bool() { return Byte() & 1u; }

  /// A double in [lo, hi] most of the time; one byte in 16 picks an edge
  /// value instead (0, ±inf, NaN, huge, tiny, negative) to exercise the
  /// checks of the code under test.
  double Real(double lo, double hi) {
    const uint8_t mode = Byte();
    if ((mode & 0x0f) == 0x0f) {
      static constexpr double kEdges[] = {
          0.0,
          -1.0,
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::quiet_NaN(),
          1e300,
          -1e300,
          1e-300,
          std::numeric_limits<double>::denorm_min(),
          1e12,
          -1e-12,
          std::numeric_limits<double>::max(),
      };
      return kEdges[(mode >> 4) % (sizeof(kEdges) / sizeof(kEdges[0]))];
    }
    const unsigned raw = Byte() | (static_cast<unsigned>(Byte()) << 8) |
                         (static_cast<unsigned>(Byte()) << 16);
    return lo + (hi - lo) * (raw / 16777215.0);
  }

  /// The rest of the input as text.
  std::string Rest() {
    std::string s(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
    pos_ = size_;
    return s;
  }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_{0};
};

}  // namespace fuzz
}  // namespace sapcontact
