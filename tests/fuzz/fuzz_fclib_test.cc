// Fuzz class 5 (tests/fuzz/fuzz_rules.h): damaged FCLib files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/studies/sweep_table.h"
#include "tests/fclib/fclib_test_util.h"
#include "tests/fuzz/fuzz_rules.h"

namespace sapcontact {
namespace {

using namespace fuzz;  // NOLINT: the suite's rules

// --- Class 5: FCLib files ---------------------------------------------------

TEST(Fuzz, FclibFiles) {
  TempDir dir("fuzz_fclib");
  Random r(Seed() * 1000 + 5);
  Tally tally;
  // The FCLib set's Rover1039.hdf5 when the shared set is there, else a
  // problem written here.
  std::string original;
  const std::string shared = fclib_test::SharedFclibDir();
  if (!shared.empty()) {
    original = ReadFile(shared + "/problems/Rover1039.hdf5");
  }
  if (original.empty()) {
    FclibLocalProblem p = fclib_test::RandomLocalProblem(4, 12, 7);
    WriteFclibLocal(dir.File("written.hdf5"), p);
    original = ReadFile(dir.File("written.hdf5"));
  }
  ASSERT_GT(original.size(), 1000u);
  const double extremes[] = {4.55e306, -1e300, 1e-310, std::nan(""),
                             HUGE_VAL, 0.0,    1e151};
  const int n = Cases(250);
  for (int i = 0; i < n; ++i) {
    std::string bytes = original;
    std::string what;
    const int edits = 1 + static_cast<int>(r.Below(3));
    for (int e = 0; e < edits; ++e) {
      const size_t at = r.Below(bytes.size());
      switch (r.Below(6)) {
        case 0:
        case 1: {  // flip bits of one byte
          const int mask = 1 + static_cast<int>(r.Below(255));
          bytes[at] = static_cast<char>(bytes[at] ^ mask);
          what += " xor@" + std::to_string(at);
          break;
        }
        case 2: {  // zero a range
          const size_t len = std::min(bytes.size() - at, 1 + r.Below(64));
          std::fill(bytes.begin() + at, bytes.begin() + at + len, '\0');
          what += " zero@" + std::to_string(at);
          break;
        }
        case 3:  // truncate
          bytes.resize(std::max<size_t>(at, 8));
          what += " cut@" + std::to_string(at);
          break;
        case 4: {  // an extreme double at an 8-byte boundary
          const double v = extremes[r.Below(std::size(extremes))];
          const size_t p = (at / 8) * 8;
          if (p + 8 <= bytes.size()) {
            std::memcpy(&bytes[p], &v, 8);
            what += " double@" + std::to_string(p);
          }
          break;
        }
        default: {  // copy a block elsewhere
          const size_t from = r.Below(bytes.size());
          const size_t len = std::min(
              {bytes.size() - at, bytes.size() - from, 1 + r.Below(256)});
          std::memmove(&bytes[at], &bytes[from], len);
          what += " copy@" + std::to_string(at);
          break;
        }
      }
    }
    const std::string path = dir.Write("damaged.hdf5", bytes);
    const std::string csv = dir.File("table.csv");
    fs::remove(csv);
    const char* solver = r.Chance(50) ? "sap" : "rigid";
    const CliResult res =
        RunSapsim({"fclib", path, "--solver", solver, "--csv", csv, "-q"});
    const std::string where =
        "fclib case " + std::to_string(i) + " (" + solver + what + "; status " +
        std::to_string(res.status) + ", stderr '" + Show(res.err) + "')";
    tally.Count("exit " + std::to_string(res.status));
    if (res.status < 0 || res.status > 2) {
      tally.Fail(where + ": status not 0, 1, 2");
    }
    SweepTable table;
    try {
      table = ReadSweepCsv(csv);  // RFC 4180, field counts checked
    } catch (const std::exception& e) {
      tally.Fail(where + ": the CSV: " + e.what());
      continue;
    }
    if (table.rows.size() != 1 || table.columns.size() != 10) {
      tally.Fail(where + ": expected one row of 10 cells");
      continue;
    }
    const std::string status = table.rows[0][table.Column("status")];
    if (res.status == 2) {
      if (status != "bad_file") tally.Fail(where + ": exit 2 but " + status);
      if (!StartsWith(res.err, "sapsim fclib: error: " + path + ": ")) {
        tally.Fail(where + ": message does not start with the file");
      }
    } else if (status == "bad_file") {
      tally.Fail(where + ": bad_file row without exit 2");
    }
    if (res.status == 0 &&
        !(StartsWith(status, "solved") || status == "converged")) {
      tally.Fail(where + ": exit 0 with status " + status);
    }
    const std::string problem = OutputProblems(dir.path());
    if (!problem.empty()) tally.Fail(where + ": " + problem);
  }
  Report("fclib_files", n, tally);
}

}  // namespace
}  // namespace sapcontact
