// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the fclib component. A local FCLib problem of two decoupled contacts,
// u = W r + q with W = diag(2, 4, 4, 1, 3, 3) [1/kg], is written to an HDF5
// file (argv[1]) with libfclib, read back and solved by the rigid QP.
// Contact 0 approaches (q = (-1, 0.2, 0), mu = 0.5): the tangential impulse
// needed to stop its sliding, 0.2 / 4 = 0.05, is within mu r_n = 0.25, so
// it sticks: r = (0.5, -0.05, 0). Contact 1 separates (q_n = +1): r = 0.
// Exit status 0 when the file round trip is exact and the impulses match
// to 1e-8, 1 otherwise.
#include <sapcontact/fclib/fclib_io.h>
#include <sapcontact/fclib/fclib_solver.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  using namespace sapcontact;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.hdf5\n", argv[0]);
    return 2;
  }
  FclibLocalProblem problem;
  const double diag[6] = {2, 4, 4, 1, 3, 3};
  std::vector<Eigen::Triplet<double>> entries;
  for (int i = 0; i < 6; ++i) entries.emplace_back(i, i, diag[i]);
  problem.W.resize(6, 6);
  problem.W.setFromTriplets(entries.begin(), entries.end());
  problem.q.resize(6);
  problem.q << -1, 0.2, 0, 1, 0, 0;
  problem.mu.resize(2);
  problem.mu << 0.5, 0.5;
  problem.info.title = "two decoupled contacts";
  try {
    WriteFclibLocal(argv[1], problem);
    if (DetectFclibProblemKind(argv[1]) != FclibProblemKind::kLocal) {
      std::printf("%s: not detected as a local problem\n", argv[1]);
      return 1;
    }
    const FclibLocalProblem read = ReadFclibLocal(argv[1]);
    const double dW = (Eigen::MatrixXd(read.W) - Eigen::MatrixXd(problem.W))
                          .cwiseAbs()
                          .maxCoeff();
    const double dq = (read.q - problem.q).cwiseAbs().maxCoeff();
    std::printf("round trip: %d contacts, max |dW| %.1e, max |dq| %.1e\n",
                read.num_contacts(), dW, dq);
    if (read.num_contacts() != 2 || dW != 0 || dq != 0) return 1;

    const FclibSolveResult r = SolveFclibLocal(read);
    std::printf("rigid QP: status %s, %d iterations\n", r.status.c_str(),
                r.iterations);
    if (!r.success || r.r.size() != 6) return 1;
    Eigen::VectorXd expected(6);
    expected << 0.5, -0.05, 0, 0, 0, 0;
    const double err = (r.r - expected).cwiseAbs().maxCoeff();
    std::printf(
        "r = (%.9f, %.9f, %.9f, %.9f, %.9f, %.9f), "
        "max |r - r_ref| %.1e\n",
        r.r(0), r.r(1), r.r(2), r.r(3), r.r(4), r.r(5), err);
    return err <= 1e-8 ? 0 : 1;
  } catch (const FclibError& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
}
