// Fuzz target: SapProblem validation and SapSolver on decoded problems.
//
// Input: bytes decoding one time step's problem (solver/sap/sap_problem.h):
// 1-4 trees of 1-6 velocities (A = L L^T + diagonal, or an arbitrary
// symmetric matrix), 0-8 contacts on one or two trees, 0-2 limit, holonomic
// and actuation constraints, every value possibly 0, ±inf, NaN or huge
// (fuzz_target.h ByteReader::Real), and the solver's parameters (line
// search, linear solver, islands, threads, at most 40 iterations).
// Rules:
//   - Validate(problem) accepts or throws std::invalid_argument;
//   - on an accepted problem Solve returns results, or throws
//     std::invalid_argument naming the item when the numbers cannot be
//     regularized (e.g. a Delassus estimate that overflows: documented in
//     sap_solver.h); nothing else comes out;
//   - results report a status, with a message when not converged; v, gamma
//     and the constraint impulses have the problem's sizes and are finite,
//     whatever the status.
#include <stdexcept>

#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/fuzz/targets/fuzz_target.h"

namespace sapcontact {
namespace {

using fuzz::ByteReader;

Eigen::MatrixXd Matrix(ByteReader* in, int rows, int cols, double scale) {
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) m(i, j) = in->Real(-scale, scale);
  }
  return m;
}

Eigen::VectorXd Vector(ByteReader* in, int n, double lo, double hi) {
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = in->Real(lo, hi);
  return v;
}

template <class Block>
Block JacobianBlock(ByteReader* in, const SapProblem& p, int rows, int tree) {
  Block b;
  b.tree = in->Byte() % 16 == 15 ? in->Int(-1, 5) : tree;  // sometimes bad
  const int n = b.tree >= 0 && b.tree < static_cast<int>(p.trees.size())
                    ? static_cast<int>(p.trees[b.tree].A.rows())
                    : 1;
  b.J = Matrix(in, rows, in->Byte() % 32 == 31 ? n + 1 : n, 2.0);
  return b;
}

SapProblem Decode(ByteReader* in) {
  SapProblem p;
  p.time_step = in->Real(1e-4, 0.05);
  const int num_trees = in->Int(1, 4);
  for (int t = 0; t < num_trees; ++t) {
    Tree tree;
    const int n = in->Int(1, 6);
    const Eigen::MatrixXd L = Matrix(in, n, n, 2.0);
    tree.A = in->Byte() % 8 == 7 ? Eigen::MatrixXd(L + L.transpose())
                                 : Eigen::MatrixXd(L * L.transpose());
    tree.A.diagonal().array() += in->Real(1e-3, 10.0);
    tree.v_star = Vector(in, n, -3.0, 3.0);
    p.trees.push_back(tree);
  }
  const int nt = num_trees;
  const int num_contacts = in->Int(0, 8);
  for (int k = 0; k < num_contacts; ++k) {
    Contact c;
    const int a = in->Int(0, nt - 1);
    c.first = JacobianBlock<ContactJacobianBlock>(in, p, 3, a);
    if (nt > 1 && in->Bool()) {
      c.second = JacobianBlock<ContactJacobianBlock>(in, p, 3, (a + 1) % nt);
    }
    c.phi0 = in->Real(-0.01, 0.01);
    if (in->Byte() % 4 == 0) c.bias_velocity = Vector(in, 3, -1.0, 1.0);
    c.normal_velocity0 = in->Real(-1.0, 1.0);
    ContactParameters& q = c.parameters;
    q.stiffness = in->Byte() % 4 == 0 ? std::numeric_limits<double>::infinity()
                                      : in->Real(1.0, 1e9);
    q.dissipation_time_scale = in->Real(0.0, 0.1);
    q.friction = in->Real(0.0, 2.0);
    q.model = static_cast<ContactModel>(in->Int(0, 2));
    q.hunt_crossley_dissipation = in->Real(0.0, 100.0);
    q.stiction_tolerance = in->Real(1e-6, 1e-2);
    p.contacts.push_back(c);
  }
  const int num_limits = in->Int(0, 2);
  for (int k = 0; k < num_limits; ++k) {
    LimitConstraint c;
    const int m = in->Int(1, 3);
    c.first =
        JacobianBlock<ConstraintJacobianBlock>(in, p, m, in->Int(0, nt - 1));
    c.g0 = Vector(in, m, -0.01, 0.01);
    c.stiffness = in->Bool() ? std::numeric_limits<double>::infinity()
                             : in->Real(1.0, 1e8);
    c.dissipation_time_scale = in->Real(-1.0, 0.1);
    p.limits.push_back(c);
  }
  const int num_holonomic = in->Int(0, 2);
  for (int k = 0; k < num_holonomic; ++k) {
    HolonomicConstraint c;
    const int m = in->Int(1, 3);
    const int a = in->Int(0, nt - 1);
    c.first = JacobianBlock<ConstraintJacobianBlock>(in, p, m, a);
    if (nt > 1 && in->Bool()) {
      c.second = JacobianBlock<ConstraintJacobianBlock>(in, p, m, (a + 1) % nt);
    }
    c.g0 = Vector(in, m, -0.01, 0.01);
    c.stiffness = in->Bool() ? std::numeric_limits<double>::infinity()
                             : in->Real(1.0, 1e8);
    c.relaxation_time = in->Real(0.0, 0.1);
    if (in->Bool()) {
      c.impulse_lower = Vector(in, m, -10.0, 0.0);
      c.impulse_upper = Vector(in, m, 0.0, 10.0);
    }
    p.holonomic.push_back(c);
  }
  const int num_actuation = in->Int(0, 2);
  for (int k = 0; k < num_actuation; ++k) {
    ActuationConstraint c;
    const int m = in->Int(1, 3);
    c.first =
        JacobianBlock<ConstraintJacobianBlock>(in, p, m, in->Int(0, nt - 1));
    c.position = Vector(in, m, -1.0, 1.0);
    c.target = Vector(in, m, -1.0, 1.0);
    c.target_velocity = Vector(in, m, -1.0, 1.0);
    c.feedforward = Vector(in, m, -10.0, 10.0);
    c.kp = Vector(in, m, 0.0, 1e4);
    c.kd = Vector(in, m, 0.0, 1e2);
    c.effort_limit = Vector(in, m, 0.1, 100.0);
    p.actuation.push_back(c);
  }
  return p;
}

SapSolverParameters DecodeParameters(ByteReader* in) {
  SapSolverParameters s;
  s.max_iterations = in->Int(1, 40);
  s.line_search =
      in->Bool() ? LineSearchType::kExact : LineSearchType::kBacktracking;
  s.linear_solver = static_cast<LinearSolverType>(in->Int(0, 3));
  s.cholmod_factor = static_cast<CholmodFactorKind>(in->Int(0, 2));
  s.islands = in->Bool();
  s.warm_start_lowest_cost = in->Bool();
  s.stiction_prediction = in->Bool();
  s.threads = in->Int(1, 2);
  s.regularization.near_rigid_threshold = in->Real(0.0, 1.0);
  s.regularization.friction_regularization = in->Real(0.0, 1e-2);
  s.exclude_separated_contacts = in->Bool();
  s.factor_reuse_rate = in->Bool() ? in->Real(0.0, 0.9) : 0.0;
  s.warm_start_at_rest = in->Bool();
  return s;
}

}  // namespace
}  // namespace sapcontact

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace sapcontact;
  fuzz::ByteReader in(data, size);
  const SapSolverParameters parameters = DecodeParameters(&in);
  const SapProblem problem = Decode(&in);
  try {
    Validate(parameters);
    Validate(problem);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  SapSolver solver(parameters);
  SapSolverResults r;
  try {
    r = solver.Solve(problem);
  } catch (const std::invalid_argument& e) {
    SAPCONTACT_FUZZ_CHECK(std::string(e.what()).size() > 10,
                          "an error that names nothing");
    return 0;
  }
  const int nv = problem.num_velocities();
  const int nc = static_cast<int>(problem.contacts.size());
  SAPCONTACT_FUZZ_CHECK(r.converged() || !r.message.empty(),
                        "a failed solve without a message");
  SAPCONTACT_FUZZ_CHECK(r.v.size() == nv && r.gamma.size() == 3 * nc,
                        "results of the wrong size");
  SAPCONTACT_FUZZ_CHECK(fuzz::AllFinite(r.v) && fuzz::AllFinite(r.gamma) &&
                            fuzz::AllFinite(r.constraint_impulses),
                        std::string("non-finite results, status ") +
                            ToString(r.status) + ": " + r.message);
  return 0;
}
