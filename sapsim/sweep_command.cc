#include "sapsim/sweep_command.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/scene_collision.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/metrics.h"
#include "sapcontact/studies/slurm_script.h"
#include "sapcontact/studies/sweep_plot.h"
#include "sapcontact/studies/sweep_runner.h"
#include "sapcontact/studies/sweep_study.h"
#include "sapcontact/studies/sweep_table.h"
#include "sapsim/sweep_progress.h"

namespace sapcontact::cli {
namespace {

namespace fs = std::filesystem;

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string ReadText(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) > (1u << 30)) {
    throw std::runtime_error("cannot read " + path.string() +
                             " (missing, not a regular file, or over 1 GiB)");
  }
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// CPU time of this process and of its finished child processes (the
// sweep's workers) [s].
double CpuSeconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    total += u.ru_utime.tv_sec + u.ru_stime.tv_sec +
             1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  return total;
}

// Plots of a table; returns false (after printing why) on failure.
bool Plot(const SweepTable& table, const SweepStudy& study,
          const std::string& dir, bool quiet) {
  const std::vector<PlotSpec> plots =
      study.plots.empty() ? DefaultPlots(study.vary, study.metrics.empty()
                                                         ? DefaultMetricNames()
                                                         : study.metrics)
                          : study.plots;
  try {
    const std::vector<std::string> files = WritePlots(table, plots, dir);
    if (!quiet) {
      for (const PlotSpec& p : plots) {
        const std::string path = (fs::path(dir) / p.file).string();
        const bool drawn =
            std::find(files.begin(), files.end(), path) != files.end();
        std::printf("  plot: %s%s\n", path.c_str(),
                    drawn ? "" : " (nothing to draw: skipped)");
      }
    }
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sapsim: plots: %s\n", e.what());
    return false;
  }
}

}  // namespace

SweepCommands::SweepCommands(CLI::App& app) {
  sweep_ = app.add_subcommand(
      "sweep",
      "Run a scene over the Cartesian product of varied values (in "
      "parallel) and write DIR/sweep.csv (one row per run: varied values, "
      "status, summary.json fields, metrics, analytic estimates), "
      "DIR/sweep.json and DIR/*.png (gnuplot); while running, every "
      "finished run is in DIR/sweep.journal (what --resume continues) and "
      "DIR/sweep.partial.csv. See docs/studies.md. At "
      "most 1e6 points; non-finite values are empty cells. Exit status: 0 "
      "every run ok, 1 some run failed (a row with its error) or plotting "
      "failed, 2 bad input (command line, scene, --set, --vary, the limits "
      "of docs/scenes.md), reported before any run starts.");
  sweep_->add_option("scene", scene_, "scene file (YAML)")
      ->required()
      ->check(CLI::ExistingFile);
  sweep_->add_option(
      "--vary,-v", vary_,
      "KEY=V1,V2,...  or  KEY=START:STOP:COUNT[:log]; KEY1,KEY2=... varies "
      "linked keys together (repeatable; keys as for --set)");
  sweep_->add_option("--set,-s", set_,
                     "fixed override KEY=VALUE for every run (repeatable)");
  sweep_->add_option("--metric,-m", metrics_,
                     "metric to record (repeatable; default: all but the "
                     "rigid_qp_* ones): max_penetration_m, "
                     "resting_penetration_m, ..., or a body's final state "
                     "body.NAME.position / body.NAME.velocity [.x|.y|.z]. "
                     "Names: docs/studies.md");
  sweep_
      ->add_option("--window", window_fraction_,
                   "fraction of the run at its end over which resting "
                   "metrics are averaged")
      ->capture_default_str();

  study_ = app.add_subcommand(
      "study",
      "Run a study file (config/studies/*.yaml: scene, overrides, varied "
      "values, metrics, plots) like `sweep`.");
  study_->add_option("study", study_file_, "study file (YAML)")
      ->required()
      ->check(CLI::ExistingFile);

  for (CLI::App* c : {sweep_, study_}) {
    c->add_option("--out,-o", out_, "output directory")->required();
    c->add_option("--jobs,-j", jobs_,
                  "runs in parallel, each in a child process (default: "
                  "number of cores)")
        ->check(CLI::Range(0, 1024));
    c->add_option("--shard", shard_,
                  "run only the points i with i % N == I (I/N, 0 <= I < N); "
                  "join the shards' directories with `sapsim sweep-merge`")
        ->capture_default_str();
    c->add_flag("--resume", resume_,
                "continue the sweep in --out from its journal "
                "(DIR/sweep.journal): run only the points it does not hold "
                "(the same scene content, values and shard are required); "
                "without a journal, start");
    c->add_option("--slurm-script", slurm_script_,
                  "write a Slurm job-array script to this file instead of "
                  "running: one task per shard on one core, then the merge "
                  "into --out (bash FILE submits it; docs/studies.md, "
                  "\"Running on a cluster\")");
    c->add_option("--slurm-tasks", slurm_tasks_,
                  "array tasks (shards) of --slurm-script (default: the "
                  "number of points, at most 100)")
        ->check(CLI::Range(1, 100000));
    c->add_flag("--no-plots", no_plots_, "write no PNG");
    c->add_flag("--quiet,-q", quiet_,
                "print nothing but errors (no progress report)");
  }

  merge_ = app.add_subcommand(
      "sweep-merge",
      "Join the output directories of the shards of one sweep into --out "
      "(sweep.csv sorted by index, sweep.json, plots). Exit status 1 when "
      "points are missing.");
  merge_->add_option("dirs", merge_dirs_, "shard output directories")
      ->required()
      ->check(CLI::ExistingDirectory);
  merge_->add_option("--out,-o", out_, "output directory")->required();
  merge_->add_flag("--no-plots", no_plots_, "write no PNG");
  merge_->add_flag("--quiet,-q", quiet_, "print nothing but errors");
}

bool SweepCommands::selected() const {
  return sweep_->parsed() || study_->parsed() || merge_->parsed();
}

int SweepCommands::Run() const {
  if (merge_->parsed()) return RunMerge();
  return RunSweepOrStudy(study_->parsed());
}

int SweepCommands::RunSweepOrStudy(bool from_file) const {
  const char* cmd = from_file ? "sapsim study" : "sapsim sweep";
  SweepStudy study;
  SweepShard shard;
  std::vector<SweepPoint> points;
  if (out_.empty()) {
    std::fprintf(stderr,
                 "%s: error: --out: the output directory is an empty "
                 "path\n",
                 cmd);
    return 2;
  }
  if (!(window_fraction_ > 0.0 && window_fraction_ <= 1.0)) {
    std::fprintf(stderr, "%s: error: --window: must be in (0, 1]\n", cmd);
    return 2;
  }
  try {
    if (from_file) {
      study = LoadSweepStudy(study_file_);
    } else {
      study.name = fs::path(scene_).stem().string();
      study.scene = scene_;
      study.set = set_;
      for (const std::string& v : vary_)
        study.vary.push_back(ParseSweepAxis(v));
      study.metrics = metrics_;
      study.window_fraction = window_fraction_;
    }
    shard = ParseShard(shard_);
    points = ExpandSweep(study.vary);
    for (const std::string& m : study.metrics) {
      const std::string problem = MetricNameProblem(m);
      if (!problem.empty()) {
        throw std::invalid_argument("--metric '" + m + "': " + problem);
      }
    }
    // Bad keys or values common to every run: fail before starting.
    std::vector<std::string> overrides = study.set;
    overrides.insert(overrides.end(), points[0].overrides.begin(),
                     points[0].overrides.end());
    const Scene first = LoadScene(study.scene, overrides);
    StepCount(first);
    for (const std::string& w : first.warnings) {  // Scene::warnings
      std::fprintf(stderr, "sapsim: warning: %s: %s (run 0)\n",
                   study.scene.c_str(), w.c_str());
    }
    // Bodies piled at one place, or deeply overlapping at the start (in
    // the first point; later points may differ).
    try {
      const InitialOverlap overlap = FindInitialOverlap(first);
      if (!quiet_ && overlap.depth > scene_limits::kOverlapWarning) {
        std::fprintf(stderr,
                     "sapsim: warning: %s: bodies '%s' and '%s' overlap by "
                     "%.3g m at the start of run 0 (more than %g m; "
                     "docs/scenes.md, Limits)\n",
                     study.scene.c_str(), overlap.name_a.c_str(),
                     overlap.name_b.c_str(), overlap.depth,
                     scene_limits::kOverlapWarning);
      }
    } catch (const CollisionLimitError& e) {
      const std::vector<std::string> names = ColliderBodyNames(first);
      throw std::invalid_argument(
          study.scene + ": bodies: at the initial poses of run 0, " + e.what() +
          " ('" + names[e.body_a()] + "' and '" + names[e.body_b()] +
          "'): bodies piled at one place; limits: docs/scenes.md, Limits");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", cmd, e.what());
    return 2;
  }

  if (!slurm_script_.empty()) {
    return WriteSlurmScript(cmd, from_file, study,
                            static_cast<int>(points.size()));
  }
  if (slurm_tasks_ > 0) {
    std::fprintf(stderr, "%s: error: --slurm-tasks: needs --slurm-script\n",
                 cmd);
    return 2;
  }

  SweepOptions options;
  options.fixed_overrides = study.set;
  options.metrics.metrics = study.metrics;
  options.metrics.window_fraction = study.window_fraction;
  options.metrics.sliding_speed_mps = study.sliding_speed_mps;
  options.jobs = jobs_;
  options.shard = shard;
  options.journal = (fs::path(out_) / "sweep.journal").string();
  options.resume = resume_;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = CpuSeconds();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
        .count();
  };
  int recovered = 0;  // runs read from the journal (--resume)
  SweepProgress progress(isatty(STDERR_FILENO));
  if (!quiet_) {
    options.progress = [&](int done, int total) {
      progress.Update(done, total, recovered);
    };
  }
  // The partial table: every finished run as soon as it is journaled, in
  // the order the runs finish.
  const std::vector<std::string> metric_names =
      study.metrics.empty() ? DefaultMetricNames() : study.metrics;
  const fs::path partial = fs::path(out_) / "sweep.partial.csv";
  std::ofstream partial_out;
  options.on_row = [&](const SweepRow& row, bool from_journal) {
    recovered += from_journal;
    const SweepTable one = MakeSweepTable(study.vary, metric_names, {row});
    partial_out << CsvLine(one.rows[0]) << std::flush;
  };

  std::vector<SweepRow> rows;
  try {
    fs::create_directories(out_);
    WriteText(fs::path(out_) / "sweep.json",
              SweepStudyToJson(study, static_cast<int>(points.size()), shard));
    partial_out.open(partial, std::ios::trunc);
    partial_out << CsvLine(MakeSweepTable(study.vary, metric_names, {}).columns)
                << std::flush;
    if (!partial_out)
      throw std::runtime_error("cannot write " + partial.string());
    if (resume_ && !quiet_ && !fs::exists(options.journal)) {
      std::fprintf(stderr, "%s: no journal in %s: starting the sweep\n", cmd,
                   out_.c_str());
    }
    rows = RunSweep(study.scene, study.vary, options);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: error: %s\n", cmd, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", cmd, e.what());
    return 2;
  }
  progress.Finish();
  if (!partial_out) {
    std::fprintf(stderr,
                 "sapsim: warning: %s: writing the partial table failed (the "
                 "journal holds every run)\n",
                 partial.string().c_str());
  }
  const double wall = elapsed();
  const double cpu = CpuSeconds() - c0;

  const SweepTable table = MakeSweepTable(study.vary, metric_names, rows);
  const std::string csv = (fs::path(out_) / "sweep.csv").string();
  try {
    WriteSweepCsv(table, csv);
    partial_out.close();
    fs::remove(partial);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", cmd, e.what());
    return 2;
  }
  int ok = 0, failed_steps = 0, errors = 0;
  for (const SweepRow& r : rows) {
    if (r.status == SweepRunStatus::kOk) ++ok;
    if (r.status == SweepRunStatus::kFailedSteps) ++failed_steps;
    if (r.status == SweepRunStatus::kError) {
      ++errors;
      std::fprintf(stderr, "sapsim: run %d failed: %s\n", r.index,
                   r.error.c_str());
    }
  }
  if (!quiet_) {
    std::printf(
        "%s: %zu of %zu runs (shard %s): %d ok, %d with failed solver steps, "
        "%d errors; %d from the journal, %zu run in %.1f s wall, %.1f s "
        "CPU. Wrote %s\n",
        study.name.c_str(), rows.size(), points.size(), ToString(shard).c_str(),
        ok, failed_steps, errors, recovered, rows.size() - recovered, wall, cpu,
        csv.c_str());
  }
  bool plotted = true;
  if (!no_plots_) plotted = Plot(table, study, out_, quiet_);
  return (ok == static_cast<int>(rows.size()) && plotted) ? 0 : 1;
}

int SweepCommands::WriteSlurmScript(const char* cmd, bool from_file,
                                    const SweepStudy& study, int points) const {
  if (shard_ != "0/1") {
    std::fprintf(stderr,
                 "%s: error: --shard: not with --slurm-script (each array "
                 "task runs one shard)\n",
                 cmd);
    return 2;
  }
  SlurmArraySpec spec;
  spec.name = study.name;
  spec.points = points;
  spec.tasks = slurm_tasks_ > 0 ? slurm_tasks_ : std::min(points, 100);
  std::error_code ec;
  spec.sapsim = fs::read_symlink("/proc/self/exe", ec).string();
  spec.out = fs::absolute(out_).lexically_normal().string();
  if (from_file) {
    spec.sweep_args = {"study",
                       fs::absolute(study_file_).lexically_normal().string()};
  } else {
    spec.sweep_args = {"sweep",
                       fs::absolute(study.scene).lexically_normal().string()};
    for (const SweepAxis& a : study.vary) {
      spec.sweep_args.insert(spec.sweep_args.end(), {"--vary", a.spec});
    }
    for (const std::string& v : study.set) {
      spec.sweep_args.insert(spec.sweep_args.end(), {"--set", v});
    }
    for (const std::string& m : study.metrics) {
      spec.sweep_args.insert(spec.sweep_args.end(), {"--metric", m});
    }
    // The shortest text that reads back as the same number.
    char window[32];
    for (int digits = 6; digits <= 17; ++digits) {
      std::snprintf(window, sizeof(window), "%.*g", digits,
                    study.window_fraction);
      if (std::strtod(window, nullptr) == study.window_fraction) break;
    }
    spec.sweep_args.insert(spec.sweep_args.end(), {"--window", window});
  }
  try {
    if (ec || spec.sapsim.empty()) {
      throw std::runtime_error(
          "cannot find this program's path "
          "(/proc/self/exe)");
    }
    WriteText(slurm_script_, SlurmArrayScript(spec));
    fs::permissions(slurm_script_,
                    fs::perms::owner_exec | fs::perms::group_exec,
                    fs::perm_options::add);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: --slurm-script: %s\n", cmd, e.what());
    return 2;
  }
  if (!quiet_) {
    std::printf(
        "%s: wrote %s: a Slurm job array of %d tasks over %d points, then "
        "the merge into %s. Submit it with: bash %s [sbatch options]\n",
        study.name.c_str(), slurm_script_.c_str(), spec.tasks, points,
        spec.out.c_str(), slurm_script_.c_str());
  }
  return 0;
}

int SweepCommands::RunMerge() const {
  const char* cmd = "sapsim sweep-merge";
  if (out_.empty()) {
    std::fprintf(stderr,
                 "%s: error: --out: the output directory is an empty "
                 "path\n",
                 cmd);
    return 2;
  }
  std::vector<SweepTable> tables;
  std::vector<std::string> names;
  SweepStudy study;
  int total = -1;
  try {
    for (const std::string& dir : merge_dirs_) {
      const fs::path record = fs::path(dir) / "sweep.json";
      const std::string json = ReadText(record);
      int points = 0;
      SweepShard shard;
      ReadSweepRecordCounts(json, &points, &shard);
      if (total < 0) {
        total = points;
        study = LoadSweepStudy(record.string());
      } else if (points != total) {
        throw std::runtime_error(record.string() + ": " +
                                 std::to_string(points) + " points, not " +
                                 std::to_string(total) + " (another sweep?)");
      }
      names.push_back((fs::path(dir) / "sweep.csv").string());
      tables.push_back(ReadSweepCsv(names.back()));
    }
    const SweepTable merged = MergeSweepTables(tables, names);
    fs::create_directories(out_);
    WriteText(fs::path(out_) / "sweep.json",
              SweepStudyToJson(study, total, SweepShard{}));
    const std::string csv = (fs::path(out_) / "sweep.csv").string();
    WriteSweepCsv(merged, csv);
    const std::vector<int> missing = MissingIndices(merged, total);
    if (!quiet_) {
      std::printf("merged %zu directories: %zu of %d runs. Wrote %s\n",
                  merge_dirs_.size(), merged.rows.size(), total, csv.c_str());
    }
    if (!missing.empty()) {
      std::string list;
      for (size_t i = 0; i < missing.size() && i < 20; ++i) {
        list += (i ? " " : "") + std::to_string(missing[i]);
      }
      std::fprintf(stderr, "sapsim: sweep-merge: %zu runs missing: %s%s\n",
                   missing.size(), list.c_str(),
                   missing.size() > 20 ? " ..." : "");
    }
    bool plotted = true;
    if (!no_plots_) plotted = Plot(merged, study, out_, quiet_);
    return missing.empty() && plotted ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", cmd, e.what());
    return 2;
  }
}

}  // namespace sapcontact::cli
