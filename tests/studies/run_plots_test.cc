// The plots of one run (studies/run_plots.h): the data gnuplot draws is
// that of the run's files (heights z, speeds |v|, energies and their sum,
// solver time in ms, penetration in mm), the seven PNGs are written, and
// missing or malformed inputs are errors naming the file and line.
#include "sapcontact/studies/run_plots.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sapcontact {
namespace {

namespace fs = std::filesystem;

class RunPlotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("run_plots_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Two bodies, three frames; three steps.
    std::ofstream(dir_ / "trajectory.csv")
        << "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n"
           "0,a,0,0,1,1,0,0,0,0,0,0,0,0,0\n"
           "0,b,0,0,2,1,0,0,0,3,4,0,0,0,0\n"
           "0.1,a,0,0,0.95,1,0,0,0,0,0,-1,0,0,0\n"
           "0.1,b,0,0,2,1,0,0,0,3,4,12,0,0,0\n";
    std::ofstream(dir_ / "steps.csv")
        << "time,contacts,newton_iterations,solver_time_s,collision_time_s,"
           "max_penetration_m,kinetic_energy_J,potential_energy_J,"
           "elastic_energy_J,failed\n"
           "0.05,2,3,0.0015,1e-05,0.002,1.5,10,0.25,0\n"
           "0.1,4,5,0.0025,1e-05,0.001,2,9,0.5,0\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::vector<double>> ReadDat(const std::string& name) {
    std::ifstream in(dir_ / "run_plot_data" / name);
    std::vector<std::vector<double>> rows;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line);
      std::vector<double> row;
      for (double v; s >> v;) row.push_back(v);
      rows.push_back(row);
    }
    return rows;
  }
  std::string Error() {
    try {
      WriteRunPlots(dir_.string());
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(RunPlotsTest, DrawsTheRunsNumbers) {
  WriteRunPlots(dir_.string());
  for (const std::string& png : RunPlotFiles()) {
    EXPECT_GT(fs::file_size(dir_ / png), 1000u) << png;
  }
  // bodies.dat: per body (a, then b) time, z, |v|.
  const auto bodies = ReadDat("bodies.dat");
  ASSERT_EQ(bodies.size(), 4u);
  EXPECT_EQ(bodies[0], (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(bodies[1], (std::vector<double>{0.1, 0.95, 1}));
  EXPECT_EQ(bodies[2], (std::vector<double>{0, 2, 5}));
  EXPECT_EQ(bodies[3], (std::vector<double>{0.1, 2, 13}));
  // steps.dat: time contacts iterations solver[ms] penetration[mm] kinetic
  // potential elastic total.
  const auto steps = ReadDat("steps.dat");
  ASSERT_EQ(steps.size(), 2u);
  const std::vector<double> expected[2] = {
      {0.05, 2, 3, 1.5, 2, 1.5, 10, 0.25, 11.75},
      {0.1, 4, 5, 2.5, 1, 2, 9, 0.5, 11.5}};
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(steps[r].size(), 9u);
    for (int c = 0; c < 9; ++c) {
      EXPECT_NEAR(steps[r][c], expected[r][c], 1e-12) << r << "," << c;
    }
  }
}

TEST_F(RunPlotsTest, MissingOrMalformedInputsNameTheFileAndLine) {
  std::ofstream(dir_ / "steps.csv", std::ios::app)
      << "0.15,4,5,x,0,0,0,0,0,0\n";
  EXPECT_NE(Error().find("steps.csv:4: field 'solver_time_s': 'x'"),
            std::string::npos)
      << Error();
  fs::remove(dir_ / "steps.csv");
  EXPECT_NE(Error().find("sapsim run --plot"), std::string::npos) << Error();
  std::ofstream(dir_ / "steps.csv") << "time,contacts\n";
  EXPECT_NE(Error().find("steps.csv:1: header: no column 'newton_iterations'"),
            std::string::npos)
      << Error();
  fs::remove(dir_ / "trajectory.csv");
  EXPECT_NE(Error().find("cannot read"), std::string::npos) << Error();
  for (const std::string& png : RunPlotFiles()) {
    EXPECT_FALSE(fs::exists(dir_ / png)) << png;
  }
}

}  // namespace
}  // namespace sapcontact
