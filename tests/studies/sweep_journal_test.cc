// The journal of a sweep (studies/sweep_journal.h) and resumed sweeps
// (SweepOptions::journal, resume): a resumed sweep runs only the points
// the journal lacks and gives the rows of an uninterrupted run exactly
// (timings aside); torn last records are dropped, damaged ones and
// journals of other sweeps refused with what differs.
#include "sapcontact/studies/sweep_journal.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sapcontact/studies/sweep_table.h"
#include "tests/studies/sweep_test_util.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using sweep_testing::IsTiming;
using sweep_testing::ScenePath;
using sweep_testing::SmallAxes;
using sweep_testing::SmallOptions;
using sweep_testing::TempDir;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The first `records` records of a journal (its header line included).
std::string FirstRecords(const std::string& text, int records) {
  size_t end = 0;
  for (int k = 0; k <= records; ++k) end = text.find('\n', end) + 1;
  return text.substr(0, end);
}

// The table without its timing columns.
std::vector<std::vector<std::string>> Untimed(const SweepTable& t) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : t.rows) {
    rows.emplace_back();
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (!IsTiming(t.columns[c])) rows.back().push_back(row[c]);
    }
  }
  return rows;
}

SweepTable Table(const std::vector<SweepRow>& rows) {
  return MakeSweepTable(SmallAxes(), SmallOptions().metrics.metrics, rows);
}

TEST(SweepJournalTest, ResumingRunsOnlyTheMissingPointsAndGivesTheSameTable) {
  const std::string dir = TempDir("journal_resume");
  SweepOptions options = SmallOptions();
  options.journal = dir + "/sweep.journal";
  const std::vector<SweepRow> full =
      RunSweep(ScenePath("box_rest"), SmallAxes(), options);
  ASSERT_EQ(full.size(), 8u);
  const std::string journal = Read(options.journal);
  // A sweep killed after 3 runs, in the middle of writing the 4th record.
  const std::string killed = FirstRecords(journal, 3);
  const std::string torn =
      FirstRecords(journal, 4).substr(killed.size()).substr(0, 40);
  for (SweepWorkers workers :
       {SweepWorkers::kProcesses, SweepWorkers::kThreads}) {
    Write(options.journal, killed + torn);
    SweepOptions resumed = options;
    resumed.resume = true;
    resumed.workers = workers;
    std::vector<int> progress;
    resumed.progress = [&](int done, int total) {
      EXPECT_EQ(total, 8);
      progress.push_back(done);
    };
    std::set<int> seen;
    int recovered = 0;
    resumed.on_row = [&](const SweepRow& r, bool from_journal) {
      EXPECT_TRUE(seen.insert(r.index).second) << "row " << r.index << " twice";
      if (from_journal) {
        EXPECT_EQ(seen.size(), static_cast<size_t>(++recovered));
      }
    };
    const std::vector<SweepRow> rows =
        RunSweep(ScenePath("box_rest"), SmallAxes(), resumed);
    // Progress starts at the 3 recovered runs; 5 more ran.
    ASSERT_EQ(progress.size(), 6u);
    EXPECT_EQ(progress.front(), 3);
    EXPECT_EQ(progress.back(), 8);
    EXPECT_EQ(seen.size(), 8u);
    EXPECT_EQ(recovered, 3);
    ASSERT_EQ(rows.size(), 8u);
    EXPECT_EQ(Untimed(Table(rows)), Untimed(Table(full)));
    // The recovered rows are the journaled ones, timings included.
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(rows[i].index, i);
    }
    const std::string after = Read(options.journal);
    EXPECT_EQ(after.substr(0, killed.size()), killed) << "torn record kept";
    EXPECT_EQ(std::count(after.begin(), after.end(), '\n'), 9);
    // Resuming the finished sweep runs nothing.
    int runs = 0;
    resumed.progress = [&](int, int) { ++runs; };
    resumed.on_row = nullptr;
    EXPECT_EQ(
        Untimed(Table(RunSweep(ScenePath("box_rest"), SmallAxes(), resumed))),
        Untimed(Table(full)));
    EXPECT_EQ(runs, 1);  // the one report of the recovered runs
  }
}

TEST(SweepJournalTest, RecordsSurviveAsWrittenAndATornTailIsCut) {
  const std::string dir = TempDir("journal_records");
  const std::string path = dir + "/j";
  const SweepIdentity id =
      MakeSweepIdentity(ScenePath("box_rest"), SmallAxes(), SmallOptions());
  SweepRow a;
  a.index = 2;
  a.values = {"2e-3", "1", "1e5"};
  a.status = SweepRunStatus::kOk;
  a.summary = {{"steps", "30"}, {"name", "with, \"quotes\"\nand a line"}};
  a.metrics = {{"max_penetration_m", 1.0 / 3.0}};
  SweepRow b = a;
  b.index = 5;
  b.status = SweepRunStatus::kError;
  b.error = "worker process killed by signal 9 (Killed)";
  {
    SweepJournal j(path, id, /*resume=*/false);
    EXPECT_TRUE(j.recovered().empty());
    j.Append(a);
    j.Append(b);
  }
  Write(path, Read(path) + "0123456789abcdef {\"index\": 6, \"val");
  SweepJournal j(path, id, /*resume=*/true);
  ASSERT_EQ(j.recovered().size(), 2u);
  EXPECT_EQ(SerializeSweepRow(j.recovered()[0]), SerializeSweepRow(a));
  EXPECT_EQ(SerializeSweepRow(j.recovered()[1]), SerializeSweepRow(b));
  const std::string text = Read(path);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  // Without resume the journal starts over.
  SweepJournal fresh(path, id, /*resume=*/false);
  EXPECT_TRUE(fresh.recovered().empty());
  const std::string header = Read(path);
  EXPECT_EQ(std::count(header.begin(), header.end(), '\n'), 1);
}

TEST(SweepJournalTest, DamageBeforeTheLastRecordIsAnErrorWithTheLine) {
  const std::string dir = TempDir("journal_damage");
  const std::string path = dir + "/j";
  const SweepIdentity id =
      MakeSweepIdentity(ScenePath("box_rest"), SmallAxes(), SmallOptions());
  {
    SweepJournal j(path, id, false);
    SweepRow r;
    r.values = {"2e-3", "0.3", "1e5"};
    for (int i : {0, 1, 2}) {
      r.index = i;
      j.Append(r);
    }
  }
  std::string text = Read(path);
  const size_t second = text.find('\n', text.find('\n') + 1) + 1;
  text[second + 30] ^= 1;  // one bit of record 2 (line 3)
  Write(path, text);
  try {
    SweepJournal j(path, id, true);
    FAIL() << "damage accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3: damaged record"),
              std::string::npos)
        << e.what();
  }
  Write(path, "index,status\n");
  try {
    SweepJournal j(path, id, true);
    FAIL() << "a CSV accepted as a journal";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a sweep journal"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepJournalTest, AnotherSweepsJournalIsRefusedNamingWhatDiffers) {
  const std::string dir = TempDir("journal_other");
  const std::string path = dir + "/j";
  const std::string scene = dir + "/scene.yaml";
  fs::copy_file(ScenePath("box_rest"), scene);
  const SweepOptions options = SmallOptions();
  {
    SweepJournal j(path, MakeSweepIdentity(scene, SmallAxes(), options), false);
  }
  auto refused = [&](const std::vector<SweepAxis>& axes,
                     const SweepOptions& o) -> std::string {
    try {
      SweepJournal j(path, MakeSweepIdentity(scene, axes, o), true);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refused(SmallAxes(), options), "");
  SweepOptions other_shard = options;
  other_shard.shard = {1, 2};
  EXPECT_NE(refused(SmallAxes(), other_shard).find("the shard (--shard)"),
            std::string::npos);
  std::vector<SweepAxis> other_axes = SmallAxes();
  other_axes[0] = ParseSweepAxis("time_step=2e-3,4e-3");
  EXPECT_NE(refused(other_axes, options).find("the varied values (--vary)"),
            std::string::npos);
  SweepOptions other_set = options;
  other_set.fixed_overrides = {"duration=0.07"};
  EXPECT_NE(refused(SmallAxes(), other_set).find("--set"), std::string::npos);
  std::ofstream(scene, std::ios::app) << "# an edit\n";
  const std::string message = refused(SmallAxes(), options);
  EXPECT_NE(message.find("the scene's content differs"), std::string::npos)
      << message;
  EXPECT_NE(message.find("another sweep"), std::string::npos) << message;
}

TEST(SweepJournalTest, AJournalThatCannotBeWrittenStopsTheSweep) {
  SweepOptions options = SmallOptions();
  options.journal = "/nonexistent-directory/sweep.journal";
  EXPECT_THROW(RunSweep(ScenePath("box_rest"), SmallAxes(), options),
               std::runtime_error);
}

TEST(SweepJournalTest, Fnv1a64MatchesPublishedVectors) {
  // Test vectors of the FNV-1a 64-bit hash (Fowler, Noll, Vo).
  EXPECT_EQ(Fnv1a64Hex(""), "cbf29ce484222325");
  EXPECT_EQ(Fnv1a64Hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(Fnv1a64Hex("foobar"), "85944171f73967e8");
}

}  // namespace
}  // namespace sapcontact
