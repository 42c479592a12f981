// The C++ side of the Python tests (tests/python/README.md): solves small
// problems with the C++ API and prints their inputs and results as JSON with
// every double as a C99 hex float ("%a", exact), so that the pytest suite
// can rebuild the same problems through the Python module and require
// bitwise equal results; and times the C++ solve call for the overhead
// measurement of a Python solve (tests/python/solve_overhead.py).
//
//   python_cpp_reference cases           JSON: the reference problems
//   python_cpp_reference overhead N R    median time of one solve [s] of the
//                                        4-contact box over R batches of N
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using Json = nlohmann::ordered_json;

std::string Hex(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%a", x);
  return buffer;
}

Json Hex(const Eigen::VectorXd& v) {
  Json a = Json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(Hex(v[i]));
  return a;
}

// Row-major rows of hex floats.
Json Hex(const Eigen::MatrixXd& m) {
  Json rows = Json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    rows.push_back(Hex(Eigen::VectorXd(m.row(i).transpose())));
  }
  return rows;
}

Json ProblemJson(const SapProblem& p) {
  Json j;
  j["time_step"] = Hex(p.time_step);
  Json trees = Json::array();
  for (const Tree& t : p.trees) {
    trees.push_back({{"A", Hex(t.A)}, {"v_star", Hex(t.v_star)}});
  }
  j["trees"] = trees;
  Json contacts = Json::array();
  for (const Contact& c : p.contacts) {
    Json k;
    k["tree"] = c.first.tree;
    k["J"] = Hex(c.first.J);
    if (c.second) {
      k["second_tree"] = c.second->tree;
      k["second_J"] = Hex(c.second->J);
    }
    k["phi0"] = Hex(c.phi0);
    k["stiffness"] = Hex(c.parameters.stiffness);
    k["dissipation_time_scale"] = Hex(c.parameters.dissipation_time_scale);
    k["friction"] = Hex(c.parameters.friction);
    contacts.push_back(k);
  }
  j["contacts"] = contacts;
  return j;
}

Json SapJson(const SapSolverResults& r) {
  Json j;
  j["status"] = ToString(r.status);
  j["newton_iterations"] = r.statistics.newton_iterations;
  j["v"] = Hex(r.v);
  j["gamma"] = Hex(r.gamma);
  j["v_c"] = Hex(r.v_c);
  j["generalized_impulse"] = Hex(r.generalized_impulse);
  j["w"] = Hex(r.delassus_estimate);
  j["R_n"] = Hex(r.R_n);
  j["R_t"] = Hex(r.R_t);
  j["effective_stiffness"] = Hex(r.effective_stiffness);
  Json cost = Json::array();
  for (double c : r.statistics.cost) cost.push_back(Hex(c));
  j["cost"] = cost;
  return j;
}

Json RigidJson(const RigidQpResult& r) {
  Json j;
  j["status"] = static_cast<int>(r.status);
  j["iterations"] = r.iterations;
  j["impulses"] = Hex(r.impulses);
  j["velocities"] = Hex(r.velocities);
  j["objective"] = Hex(r.objective);
  return j;
}

// Two point masses (3 DOFs each): tree 0 (1 kg) on the ground, tree 1 (2 kg)
// on top of it, sliding along x; the upper contact is between the trees
// (A = tree 0, B = tree 1: v_c = R v1 - R v0).
SapProblem TwoPointMasses() {
  SapProblem p;
  p.time_step = 1e-3;
  const double g = 9.81, dt = p.time_step;
  Matrix3 R;  // rows (n, t1, t2) = (z, x, y)
  R << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  for (double m : {1.0, 2.0}) {
    Tree t;
    t.A = m * Eigen::MatrixXd::Identity(3, 3);
    t.v_star = Eigen::Vector3d(0.0, 0.0, -g * dt);
    p.trees.push_back(t);
  }
  p.trees[1].v_star.x() = 0.3;  // the upper mass slides along +x
  Contact ground;
  ground.first.tree = 0;
  ground.first.J = R;
  ground.phi0 = -3e-5;
  ground.parameters = {1e6, 0.01, 0.4};
  p.contacts.push_back(ground);
  Contact between;
  between.first.tree = 0;
  between.first.J = -R;
  between.second = ContactJacobianBlock{1, R};
  between.phi0 = -2e-5;
  between.parameters = {1e6, 0.01, 0.3};
  p.contacts.push_back(between);
  return p;
}

// A 10 kg box (0.2 m cube) resting on its 4 bottom corners: the problem of
// the overhead measurement.
SapProblem BoxOnFourContacts() {
  const double m = 10.0, s = 0.2, g = 9.81, dt = 1e-3;
  SapProblem p;
  p.time_step = dt;
  Tree t;
  t.A = Eigen::MatrixXd::Zero(6, 6);
  const double I = m * s * s / 6;
  t.A.diagonal() << m, m, m, I, I, I;
  t.v_star = Eigen::VectorXd::Zero(6);
  t.v_star(2) = -g * dt;
  p.trees.push_back(t);
  for (double x : {-0.1, 0.1}) {
    for (double y : {-0.1, 0.1}) {
      Contact c;
      c.first.tree = 0;
      c.first.J = testing::GroundContactJacobian(Vector3(x, y, -0.1));
      c.phi0 = -2.5e-5;
      c.parameters = {1e6, 0.01, 0.5};
      p.contacts.push_back(c);
    }
  }
  return p;
}

Json Case(const std::string& name, const SapProblem& p, bool rigid) {
  Json j;
  j["name"] = name;
  j["problem"] = ProblemJson(p);
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  j["sap"] = SapJson(r);
  // The same solve warm-started from a guess (half of v*).
  const Eigen::VectorXd guess = 0.5 * StackedVStar(p);
  j["v_guess"] = Hex(guess);
  j["sap_from_guess"] = SapJson(solver.Solve(p, &guess));
  // Other parameters.
  SapSolverParameters params;
  params.rel_tolerance = 1e-10;
  params.regularization.near_rigid_threshold = 0.5;
  params.line_search = LineSearchType::kBacktracking;
  j["sap_parameters"] = SapJson(SapSolver(params).Solve(p));
  const InverseDynamicsResult id =
      CalcInverseDynamics(p, RegularizationParameters{}, r.v);
  j["inverse_dynamics"] = {
      {"gamma", Hex(id.gamma)},
      {"generalized_impulse", Hex(id.generalized_impulse)}};
  if (rigid) j["rigid"] = RigidJson(SolveRigidContactQp(p));
  return j;
}

// The message of the std::invalid_argument that f throws ("" if none).
template <class F>
std::string Message(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A one-tree problem of 2 DOFs with matrix A and v* = v_star.
SapProblem TwoDofs(const Eigen::Matrix2d& A, const Eigen::Vector2d& v_star) {
  SapProblem p;
  Tree t;
  t.A = A;
  t.v_star = v_star;
  t.name = "arm";
  p.trees.push_back(t);
  return p;
}

// Messages of the C++ API for invalid input, which the Python module must
// pass on unchanged (as ValueError).
Json Errors() {
  Eigen::Matrix2d nonsymmetric, indefinite;
  nonsymmetric << 1.0, 0.5, 0.0, 1.0;
  indefinite << 1.0, 2.0, 2.0, 1.0;
  const Eigen::Vector2d zero = Eigen::Vector2d::Zero();
  const Eigen::Vector2d nan_v(0.0, std::nan(""));
  SapProblem bad_contact = TwoDofs(Eigen::Matrix2d::Identity(), zero);
  Contact c;
  c.first.tree = 0;
  c.first.J = Eigen::MatrixXd::Zero(3, 2);
  c.first.J(0, 0) = 1.0;
  c.parameters.friction = -1.0;
  c.name = "corner";
  bad_contact.contacts.push_back(c);
  SapSolverParameters bad_parameters;
  bad_parameters.rel_tolerance = -1.0;
  SapSolverParameters bad_beta;
  bad_beta.regularization.near_rigid_threshold = -2.0;
  Json j;
  j["nonsymmetric_A"] =
      Message([&] { SapSolver().Solve(TwoDofs(nonsymmetric, zero)); });
  j["indefinite_A"] =
      Message([&] { SapSolver().Solve(TwoDofs(indefinite, zero)); });
  j["nan_v_star"] = Message(
      [&] { SapSolver().Solve(TwoDofs(Eigen::Matrix2d::Identity(), nan_v)); });
  j["negative_friction"] = Message([&] { SapSolver().Solve(bad_contact); });
  j["rigid_nonsymmetric_A"] =
      Message([&] { SolveRigidContactQp(TwoDofs(nonsymmetric, zero)); });
  j["negative_rel_tolerance"] = Message([&] { Validate(bad_parameters); });
  j["negative_near_rigid_threshold"] = Message([&] { Validate(bad_beta); });
  j["zero_time_step"] = Message([] { ValidateTimeStep(0.0, "SapProblem"); });
  return j;
}

int Cases() {
  testing::PizzaSaver stiction;
  stiction.tau =
      0.5 * stiction.contact.friction * stiction.m * stiction.g * stiction.r;
  testing::PizzaSaver sliding;
  sliding.tau =
      3.0 * sliding.contact.friction * sliding.m * sliding.g * sliding.r;
  Json cases = Json::array();
  cases.push_back(Case("pizza_saver_stiction", stiction.Build(), true));
  cases.push_back(Case("pizza_saver_sliding", sliding.Build(), true));
  cases.push_back(Case("two_point_masses", TwoPointMasses(), true));
  cases.push_back(Case("box_on_four_contacts", BoxOnFourContacts(), false));
  Json out;
  out["cases"] = cases;
  out["errors"] = Errors();
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

int Overhead(int n, int batches) {
  const SapProblem p = BoxOnFourContacts();
  SapSolver solver;
  SapSolverResults r;
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) r = solver.Solve(p);
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / n);
  }
  if (!r.converged()) {
    std::fprintf(stderr, "box solve did not converge: %s\n", r.message.c_str());
    return 1;
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("%.9g\n", per_call[per_call.size() / 2]);
  return 0;
}

}  // namespace
}  // namespace sapcontact

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "cases" && argc == 2) return sapcontact::Cases();
  if (mode == "overhead" && argc == 4) {
    const int n = std::atoi(argv[2]), batches = std::atoi(argv[3]);
    if (n > 0 && batches > 0) return sapcontact::Overhead(n, batches);
  }
  std::fprintf(stderr,
               "usage: python_cpp_reference cases\n"
               "       python_cpp_reference overhead CALLS BATCHES\n");
  return 2;
}
