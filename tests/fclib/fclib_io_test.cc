// FCLib reading and writing (fclib/fclib_io.h): round trips through
// libfclib, the three sparse storages libfclib knows, and bad files.
#include "sapcontact/fclib/fclib_io.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>

#include "tests/fclib/fclib_test_util.h"

extern "C" {
#include <fclib.h>
}

namespace sapcontact {
namespace {

using fclib_test::RandomLocalProblem;
using fclib_test::TempPath;

// The message of the FclibError thrown by f (empty if none).
template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const FclibError& e) {
    return e.what();
  }
  return "";
}

TEST(FclibIo, LocalRoundTripIsExact) {
  FclibLocalProblem p = RandomLocalProblem(5, 9, 1, /*asymmetry=*/1e-3);
  p.info.description = "a description";
  p.info.math_info = "PSD";
  FclibSolution s;
  s.r = Eigen::VectorXd::LinSpaced(15, -1.0, 2.0);
  s.u = p.W * s.r + p.q;
  p.solution = s;
  const std::string path = TempPath("roundtrip.hdf5");
  WriteFclibLocal(path, p);
  WriteFclibLocal(path, p);  // an existing file is replaced
  const FclibLocalProblem back = ReadFclibLocal(path);
  EXPECT_EQ(Eigen::MatrixXd(back.W), Eigen::MatrixXd(p.W));
  EXPECT_EQ(back.q, p.q);
  EXPECT_EQ(back.mu, p.mu);
  EXPECT_EQ(back.info.title, p.info.title);
  EXPECT_EQ(back.info.description, p.info.description);
  EXPECT_EQ(back.info.math_info, p.info.math_info);
  ASSERT_TRUE(back.solution.has_value());
  EXPECT_EQ(back.solution->r, s.r);
  EXPECT_EQ(back.solution->u, s.u);
  EXPECT_EQ(DetectFclibProblemKind(path), FclibProblemKind::kLocal);
  EXPECT_EQ(FclibProblemName("/a/b/roundtrip.hdf5"), "roundtrip");
}

// W written by libfclib itself in compressed rows and in triplets (CSparse
// convention: i rows, p columns) must read back as the same asymmetric W.
TEST(FclibIo, ReadsLibfclibRowAndTripletStorage) {
  Eigen::MatrixXd W(3, 3);
  W << 4, 1, 0, 2, 5, 0, 0, 0, 6;  // asymmetric: catches a transposition
  double q[3] = {-1, 0.5, 0.25}, mu[1] = {0.3};
  // Compressed rows: row pointers, column indices.
  int p_csr[4] = {0, 2, 4, 5}, i_csr[5] = {0, 1, 0, 1, 2};
  double x_csr[5] = {4, 1, 2, 5, 6};
  // Triplets: i rows, p columns.
  int i_tri[5] = {0, 0, 1, 1, 2}, p_tri[5] = {0, 1, 0, 1, 2};
  double x_tri[5] = {4, 1, 2, 5, 6};
  struct Case {
    int nz;
    int* p;
    int* i;
    double* x;
  };
  int k = 0;
  for (Case c : {Case{-2, p_csr, i_csr, x_csr}, Case{5, p_tri, i_tri, x_tri}}) {
    fclib_matrix m{};
    m.nzmax = 5;
    m.m = m.n = 3;
    m.nz = c.nz;
    m.p = c.p;
    m.i = c.i;
    m.x = c.x;
    fclib_local local{};
    local.W = &m;
    local.q = q;
    local.mu = mu;
    local.spacedim = 3;
    const std::string path =
        TempPath("storage" + std::to_string(k++) + ".hdf5");
    std::remove(path.c_str());
    ASSERT_EQ(fclib_write_local(&local, path.c_str()), 1);
    const FclibLocalProblem back = ReadFclibLocal(path);
    EXPECT_EQ(Eigen::MatrixXd(back.W), W) << "nz = " << c.nz;
    EXPECT_EQ(back.q, Eigen::Vector3d(-1, 0.5, 0.25));
    EXPECT_EQ(back.mu(0), 0.3);
    EXPECT_FALSE(back.solution.has_value());
    EXPECT_TRUE(back.info.title.empty());
  }
}

TEST(FclibIo, GlobalRoundTripIsExact) {
  FclibGlobalProblem g;
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(4, 4);
  M.diagonal() << 2, 2, 3, 0.5;
  M(0, 1) = M(1, 0) = 0.5;
  Eigen::MatrixXd H(4, 6);
  H << 1, 0, 0, 0, 1, 0,  //
      0, 1, 0, 1, 0, 0,   //
      0, 0, 1, 0, 0, 1,   //
      0.5, 0, 0, 1, 0, 0;
  g.M = M.sparseView();
  g.H = H.sparseView();
  g.f = Eigen::Vector4d(1, -2, 0.5, 0);
  g.w = Eigen::VectorXd::LinSpaced(6, -0.1, 0.1);
  g.mu = Eigen::Vector2d(0.5, 0.2);
  g.info.title = "global";
  FclibSolution s;
  s.v = Eigen::Vector4d(1, 2, 3, 4);
  s.r = Eigen::VectorXd::Ones(6);
  s.u = H.transpose() * s.v + g.w;
  g.solution = s;
  const std::string path = TempPath("global.hdf5");
  WriteFclibGlobal(path, g);
  EXPECT_EQ(DetectFclibProblemKind(path), FclibProblemKind::kGlobal);
  const FclibGlobalProblem back = ReadFclibGlobal(path);
  EXPECT_EQ(Eigen::MatrixXd(back.M), M);
  EXPECT_EQ(Eigen::MatrixXd(back.H), H);
  EXPECT_EQ(back.f, g.f);
  EXPECT_EQ(back.w, g.w);
  EXPECT_EQ(back.mu, g.mu);
  ASSERT_TRUE(back.solution.has_value());
  EXPECT_EQ(back.solution->v, s.v);
  EXPECT_EQ(back.solution->u, s.u);
  // A global file is not a local problem, and the error says so.
  EXPECT_NE(ErrorOf([&] { ReadFclibLocal(path); }).find("global problem"),
            std::string::npos);
}

// Writes a valid local problem, then edits it with HDF5: `edit` gets the
// open file.
template <typename Edit>
std::string CorruptedFile(const std::string& name, Edit edit) {
  const std::string path = TempPath(name);
  WriteFclibLocal(path, RandomLocalProblem(2, 6, 7));
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  edit(f);
  H5Fclose(f);
  return path;
}

void WriteDoubles(hid_t f, const char* name, const std::vector<double>& x) {
  const hsize_t dim = x.size();
  const hid_t space = H5Screate_simple(1, &dim, nullptr);
  const hid_t d = H5Dcreate2(f, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                             H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
  H5Dclose(d);
  H5Sclose(space);
}

void WriteInt(hid_t f, const char* name, std::vector<int> x) {
  const hsize_t dim = x.size();
  const hid_t space = H5Screate_simple(1, &dim, nullptr);
  const hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, space, H5P_DEFAULT,
                             H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
  H5Dclose(d);
  H5Sclose(space);
}

// Every bad file gives an FclibError naming the file and the problem (the
// process survives: libfclib alone would exit(1) or overrun a buffer).
TEST(FclibIo, BadFilesGiveClearErrors) {
  struct Case {
    std::string path, expected;
  };
  std::vector<Case> cases;
  cases.push_back({TempPath("does_not_exist.hdf5"), "no such file"});
  {
    const std::string path = TempPath("text.hdf5");
    std::ofstream(path) << "not an hdf5 file\n";
    cases.push_back({path, "not an HDF5 file"});
  }
  {
    const std::string path = TempPath("empty.hdf5");
    H5Fclose(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    cases.push_back({path, "no /fclib_local or /fclib_global group"});
  }
  cases.push_back({CorruptedFile("missing_q.hdf5",
                                 [](hid_t f) {
                                   H5Ldelete(f, "/fclib_local/vectors/q",
                                             H5P_DEFAULT);
                                 }),
                   "missing dataset /fclib_local/vectors/q"});
  cases.push_back(
      {CorruptedFile("short_q.hdf5",
                     [](hid_t f) {
                       H5Ldelete(f, "/fclib_local/vectors/q", H5P_DEFAULT);
                       WriteDoubles(f, "/fclib_local/vectors/q", {1, 2, 3, 4});
                     }),
       "/fclib_local/vectors/q: 4 entries, expected 6"});
  cases.push_back({CorruptedFile("short_p.hdf5",
                                 [](hid_t f) {
                                   H5Ldelete(f, "/fclib_local/W/p",
                                             H5P_DEFAULT);
                                   WriteInt(f, "/fclib_local/W/p", {0, 1, 2});
                                 }),
                   "/fclib_local/W/p: 3 entries, expected 7"});
  cases.push_back({CorruptedFile("spacedim2.hdf5",
                                 [](hid_t f) {
                                   H5Ldelete(f, "/fclib_local/spacedim",
                                             H5P_DEFAULT);
                                   WriteInt(f, "/fclib_local/spacedim", {2});
                                 }),
                   "/fclib_local/spacedim = 2"});
  cases.push_back({CorruptedFile("bad_index.hdf5",
                                 [](hid_t f) {
                                   H5Ldelete(f, "/fclib_local/W/i",
                                             H5P_DEFAULT);
                                   std::vector<int> i(36, 0);
                                   i[5] = 99;
                                   WriteInt(f, "/fclib_local/W/i", i);
                                 }),
                   "/fclib_local/W/i[5] = 99 out of range"});
  cases.push_back(
      {CorruptedFile("negative_mu.hdf5",
                     [](hid_t f) {
                       H5Ldelete(f, "/fclib_local/vectors/mu", H5P_DEFAULT);
                       WriteDoubles(f, "/fclib_local/vectors/mu", {0.5, -0.1});
                     }),
       "/fclib_local/vectors/mu[1] = -0.1 is negative"});
  for (const Case& c : cases) {
    const std::string message = ErrorOf([&] { ReadFclibLocal(c.path); });
    EXPECT_NE(message.find(c.path), std::string::npos)
        << "message does not name the file: " << message;
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << c.path << ": got '" << message << "', expected '" << c.expected
        << "'";
  }
}

TEST(FclibIo, WriterRejectsInconsistentProblems) {
  FclibLocalProblem p = RandomLocalProblem(2, 6, 3);
  p.q.resize(5);
  EXPECT_NE(ErrorOf([&] {
              WriteFclibLocal(TempPath("bad_w.hdf5"), p);
            }).find("q has 5 entries, expected 6"),
            std::string::npos);
  p = RandomLocalProblem(2, 6, 3);
  p.mu(1) = -1;
  EXPECT_NE(ErrorOf([&] {
              WriteFclibLocal(TempPath("bad_w.hdf5"), p);
            }).find("mu[1] = -1 is negative"),
            std::string::npos);
  p = RandomLocalProblem(2, 6, 3);
  EXPECT_NE(ErrorOf([&] {
              WriteFclibLocal("/nonexistent_dir/x.hdf5", p);
            }).find("/nonexistent_dir/x.hdf5"),
            std::string::npos);
}

// A value the reader would reject (finite, but beyond kFclibMaxAbsValue) is
// rejected by the writer, naming the entry, so that every file written reads
// back (found by the fclib fuzzer: a global M entry of 1.8e308).
TEST(FclibIo, WriterRejectsValuesTheReaderRejects) {
  FclibLocalProblem p = RandomLocalProblem(2, 6, 3);
  p.q(4) = 1e200;
  EXPECT_NE(ErrorOf([&] {
              WriteFclibLocal(TempPath("big_q.hdf5"), p);
            }).find("q[4] = 1e+200 is out of range (|x| <= 1e+150)"),
            std::string::npos);
  p = RandomLocalProblem(2, 6, 3);
  p.W.coeffRef(1, 2) = -2e151;
  EXPECT_NE(ErrorOf([&] {
              WriteFclibLocal(TempPath("big_w.hdf5"), p);
            }).find("W(1, 2) = -2e+151 is out of range"),
            std::string::npos);
  // At the limit: written and read back exactly.
  p = RandomLocalProblem(2, 6, 3);
  p.q(0) = kFclibMaxAbsValue;
  WriteFclibLocal(TempPath("limit_q.hdf5"), p);
  EXPECT_EQ(ReadFclibLocal(TempPath("limit_q.hdf5")).q(0), kFclibMaxAbsValue);
}

}  // namespace
}  // namespace sapcontact
