// Python bindings of the solver: SapProblem, SapSolverParameters, SapSolver
// and its results and statistics, the rigid-contact QP solver and inverse
// dynamics. Arrays come in as anything numpy.asarray accepts and go out as
// float64 numpy arrays (copies); per-contact 3-vectors are rows of
// (num_contacts, 3) arrays in the contact frame (n, t1, t2)
// (contact_model/conventions.h).
#include <pybind11/stl.h>

#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/problem_binding.h"
#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact::python {

void PyProblem::CheckNotSolving(const char* what) const {
  if (solves_in_progress.load() > 0) {
    throw std::runtime_error(std::string("SapProblem.") + what +
                             ": the problem is being solved in another "
                             "thread; change it after the solve returns");
  }
}

namespace {

const EnumNames<ContactModel> kContactModels = {
    {"sap", ContactModel::kSap},
    {"similar", ContactModel::kSimilar},
    {"lagged", ContactModel::kLagged}};
const EnumNames<LineSearchType> kLineSearches = {
    {"exact", LineSearchType::kExact},
    {"backtracking", LineSearchType::kBacktracking}};
const EnumNames<LinearSolverType> kLinearSolvers = {
    {"auto", LinearSolverType::kAuto},
    {"dense", LinearSolverType::kDense},
    {"block_sparse", LinearSolverType::kBlockSparse},
    {"cholmod", LinearSolverType::kCholmod}};
const EnumNames<CholmodFactorKind> kCholmodKinds = {
    {"auto", CholmodFactorKind::kAuto},
    {"supernodal", CholmodFactorKind::kSupernodal},
    {"simplicial", CholmodFactorKind::kSimplicial}};
const EnumNames<RigidQpLinearSolver> kRigidLinearSolvers = {
    {"auto", RigidQpLinearSolver::kAuto},
    {"dense", RigidQpLinearSolver::kDense},
    {"sparse", RigidQpLinearSolver::kSparse}};

// The tree index `tree` of `problem`, or a ValueError naming `name`.
int TreeIndex(const SapProblem& problem, int tree, const std::string& name) {
  const int n = static_cast<int>(problem.trees.size());
  if (tree < 0 || tree >= n) {
    throw py::value_error(name + ": " + std::to_string(tree) +
                          " is not a tree index (the problem has " +
                          std::to_string(n) + " trees; add_tree returns them)");
  }
  return tree;
}

int TreeSize(const SapProblem& p, int tree) {
  return static_cast<int>(p.trees[tree].v_star.size());
}

// `second=(tree, J)` of a two-tree contact or constraint with `rows` rows.
template <class Block>
std::optional<Block> SecondBlock(const SapProblem& p, const py::object& second,
                                 int first_tree, int rows) {
  if (second.is_none()) return std::nullopt;
  if (!py::isinstance<py::sequence>(second) || py::len(second) != 2) {
    throw py::type_error(
        "second: expected a pair (tree, J) for the second tree");
  }
  const py::sequence pair = second;
  Block b;
  b.tree = TreeIndex(p, pair[0].cast<int>(), "second[0] (tree)");
  if (b.tree == first_tree) {
    throw py::value_error(
        "second[0] (tree): the second tree must differ "
        "from the first (both are " +
        std::to_string(first_tree) + ")");
  }
  b.J = ToMatrix(pair[1], "second[1] (J)", rows, TreeSize(p, b.tree));
  return b;
}

Eigen::VectorXd OptionalVector(const py::object& value, const std::string& name,
                               int size, double fill) {
  if (value.is_none()) return Eigen::VectorXd::Constant(size, fill);
  return ToVector(value, name, size);
}

std::string ProblemRepr(const SapProblem& p) {
  return "<sapcontact.SapProblem time_step=" +
         py::repr(py::float_(p.time_step)).cast<std::string>() + " s, " +
         std::to_string(p.trees.size()) + " trees, " +
         std::to_string(p.num_velocities()) + " velocities, " +
         std::to_string(p.contacts.size()) + " contacts, " +
         std::to_string(p.limits.size() + p.holonomic.size() +
                        p.actuation.size()) +
         " other constraints>";
}

// What a SapSolver.solve returns: the C++ results as numpy arrays.
struct PySapResults {
  SapSolverStatus status{SapSolverStatus::kMaxIterations};
  std::string message;
  py::object v, gamma, v_c, generalized_impulse, constraint_velocities,
      constraint_impulses, w, R_n, R_t, effective_stiffness;
  SapSolverStatistics statistics;
};

PySapResults ToPython(const SapSolverResults& r) {
  PySapResults p;
  p.status = r.status;
  p.message = r.message;
  p.v = ToNumpy(r.v);
  p.gamma = ToNumpyRows3(r.gamma);
  p.v_c = ToNumpyRows3(r.v_c);
  p.generalized_impulse = ToNumpy(r.generalized_impulse);
  p.constraint_velocities = ToNumpy(r.constraint_velocities);
  p.constraint_impulses = ToNumpy(r.constraint_impulses);
  p.w = ToNumpy(r.delassus_estimate);
  p.R_n = ToNumpy(r.R_n);
  p.R_t = ToNumpy(r.R_t);
  p.effective_stiffness = ToNumpy(r.effective_stiffness);
  p.statistics = r.statistics;
  return p;
}

// The Python SapSolver: one C++ solver and a lock, so that a solver shared
// by threads solves one problem at a time (the C++ object must not be used
// by two threads at once; separate solvers run in parallel).
struct PySapSolver {
  explicit PySapSolver(const SapSolverParameters& p) : solver(p) {}
  SapSolver solver;
  std::mutex mutex;
};

// What RigidQpSolver.solve returns.
struct PyRigidResult {
  RigidQpStatus status{RigidQpStatus::kNumericalError};
  std::string reason;
  py::object impulses, constraint_velocities, velocities, unbounded_direction;
  double objective{0}, primal_residual{0}, dual_residual{0}, relative_gap{0},
      relative_complementarity{0};
  int iterations{0};
  bool used_sparse{false};
};

struct PyRigidSolver {
  RigidQpSolverOptions options;
};

struct PyInverseDynamics {
  py::object v_c, gamma, constraint_velocities, constraint_impulses,
      generalized_impulse;
};

// Splits the stacked rows of InverseDynamicsResult (3 per contact, then the
// constraints' rows) into the contact part (rows of 3) and the rest.
PyInverseDynamics SplitInverseDynamics(const InverseDynamicsResult& r,
                                       int num_contacts) {
  const int nc3 = 3 * num_contacts;
  const int rest = static_cast<int>(r.v_c.size()) - nc3;
  PyInverseDynamics p;
  p.v_c = ToNumpyRows3(r.v_c.head(nc3));
  p.gamma = ToNumpyRows3(r.gamma.head(nc3));
  p.constraint_velocities = ToNumpy(Eigen::VectorXd(r.v_c.tail(rest)));
  p.constraint_impulses = ToNumpy(Eigen::VectorXd(r.gamma.tail(rest)));
  p.generalized_impulse = ToNumpy(r.generalized_impulse);
  return p;
}

SapSolverParameters MergedParameters(const py::object& parameters,
                                     const py::kwargs& kwargs) {
  SapSolverParameters p;
  if (!parameters.is_none()) {
    p = CastArgument<SapSolverParameters>(parameters, "parameters",
                                          "SapSolverParameters");
  }
  if (kwargs.size() > 0) p = FromKeywords(p, kwargs, "SapSolverParameters");
  Validate(p);
  return p;
}

void DefineParameters(py::module_& m) {
  py::class_<SapSolverParameters> c(
      m, "SapSolverParameters",
      "Settings of the SAP Newton solver (C++ SapSolverParameters), with the "
      "C++ defaults.\n\n"
      "Construct with keywords, e.g. SapSolverParameters(rel_tolerance=1e-8, "
      "near_rigid_threshold=1.0); unknown names raise TypeError and values "
      "out of range raise ValueError (naming the field) when a solver is "
      "made. The regularization settings (near_rigid_threshold, "
      "friction_regularization, soft_norm_tolerance, "
      "constraint_near_rigid_threshold, supported_delassus_estimate) are "
      "attributes here too (docs/theory.md §5, §19).");
  c.def(py::init([](const py::kwargs& kwargs) {
          SapSolverParameters p = FromKeywords(SapSolverParameters{}, kwargs,
                                               "SapSolverParameters");
          Validate(p);
          return p;
        }),
        "SapSolverParameters(**fields): the defaults, with the given fields "
        "replaced.");
  // The regularization's fields, flattened into the parameters (as the
  // keyword arguments of SapSolverParameters(**fields)).
  auto regularization = [&c](const char* name,
                             auto RegularizationParameters::*field,
                             const char* doc) {
    c.def_property(
        name,
        [field](const SapSolverParameters& p) {
          return p.regularization.*field;
        },
        [field](SapSolverParameters& p,
                std::remove_reference_t<decltype(p.regularization.*field)> v) {
          p.regularization.*field = v;
        },
        doc);
  };
  regularization(
      "near_rigid_threshold", &RegularizationParameters::near_rigid_threshold,
      "beta [-], >= 0 (default 1): R_n never drops below beta^2/(4 pi^2) w_k "
      "(SAP paper §V-B); 0 disables the near-rigid floor.");
  regularization("friction_regularization",
                 &RegularizationParameters::friction_regularization,
                 "sigma [-], > 0 (default 1e-3): R_t = sigma w_k.");
  regularization(
      "soft_norm_tolerance", &RegularizationParameters::soft_norm_tolerance,
      "epsilon_s [N*s], >= 0 (default 1e-8): soft norm of the tangential "
      "impulse (docs/theory.md §4).");
  regularization(
      "constraint_near_rigid_threshold",
      &RegularizationParameters::constraint_near_rigid_threshold,
      "beta_c [-], >= 0 (default 0.1): near-rigid floor of joint limits, "
      "holonomic and actuation rows (docs/theory.md §17).");
  regularization(
      "supported_delassus_estimate",
      &RegularizationParameters::supported_delassus_estimate,
      "Heavy-on-light Delassus estimate (docs/theory.md §19; default True).");
  c.def_readwrite("abs_tolerance", &SapSolverParameters::abs_tolerance,
                  "Absolute convergence tolerance [sqrt(kg) m/s] (1e-14).");
  c.def_readwrite("rel_tolerance", &SapSolverParameters::rel_tolerance,
                  "Relative convergence tolerance [-] (1e-6): ||D grad|| <= "
                  "abs + rel max(||D A v||, ||D J' gamma||).");
  c.def_readwrite("cost_stall_tolerance",
                  &SapSolverParameters::cost_stall_tolerance,
                  "Relative cost decrease below which Newton stops (1e-14).");
  c.def_readwrite("stall_residual_tolerance",
                  &SapSolverParameters::stall_residual_tolerance,
                  "A stalled solve counts as converged below this relative "
                  "residual (1e-3), else status 'stalled'.");
  c.def_readwrite("max_iterations", &SapSolverParameters::max_iterations,
                  "Newton iterations before status 'max_iterations' (100).");
  DefEnumProperty(c, "line_search", &SapSolverParameters::line_search,
                  kLineSearches,
                  "'exact' (default; rtsafe on dl/dalpha, SAP paper §IV-B) or "
                  "'backtracking' (Armijo).");
  c.def_readwrite("max_step", &SapSolverParameters::max_step,
                  "Exact line search interval [0, max_step] (1.5).");
  c.def_readwrite("max_line_search_iterations",
                  &SapSolverParameters::max_line_search_iterations,
                  "Line-search iteration limit (100).");
  c.def_readwrite("line_search_slope_ratio",
                  &SapSolverParameters::line_search_slope_ratio,
                  "Strong-Wolfe slope ratio of the exact search (0.9; 0 "
                  "minimizes along the ray to round-off).");
  c.def_readwrite("armijo_c", &SapSolverParameters::armijo_c,
                  "Armijo constant (1e-4).");
  c.def_readwrite("backtracking_rho", &SapSolverParameters::backtracking_rho,
                  "Backtracking reduction factor (0.8).");
  DefEnumProperty(
      c, "linear_solver", &SapSolverParameters::linear_solver, kLinearSolvers,
      "Newton system solver: 'auto' (default: dense LLT for small islands, "
      "block Cholesky on the tree graph otherwise), 'dense', "
      "'block_sparse' or 'cholmod' (docs/theory.md §8).");
  c.def_readwrite("dense_size_threshold",
                  &SapSolverParameters::dense_size_threshold,
                  "'auto': islands of at most this many DOFs are factored "
                  "densely (30).");
  DefEnumProperty(
      c, "cholmod_factor", &SapSolverParameters::cholmod_factor, kCholmodKinds,
      "CHOLMOD method with linear_solver='cholmod': 'auto', 'supernodal' or "
      "'simplicial'.");
  c.def_readwrite("islands", &SapSolverParameters::islands,
                  "Solve each connected component as its own Newton problem "
                  "(True).");
  c.def_readwrite("warm_start_lowest_cost",
                  &SapSolverParameters::warm_start_lowest_cost,
                  "Start each island from the guess or v* of lowest cost "
                  "(True).");
  c.def_readwrite("stiction_prediction",
                  &SapSolverParameters::stiction_prediction,
                  "Model contacts whose slip Newton reverses as sticking for "
                  "one iteration (docs/theory.md §16; True).");
  c.def_readwrite("stiction_prediction_min_step",
                  &SapSolverParameters::stiction_prediction_min_step,
                  "Smallest accepted step of a predicted direction (0.05).");
  c.def_readwrite("min_reciprocal_condition",
                  &SapSolverParameters::min_reciprocal_condition,
                  "Status 'ill_conditioned' below this reciprocal condition "
                  "estimate of the Hessian (1e-12; 0 disables).");
  c.def("__repr__", [](const SapSolverParameters& p) {
    return "<sapcontact.SapSolverParameters rel_tolerance=" +
           std::string(py::repr(py::float_(p.rel_tolerance))) +
           " max_iterations=" + std::to_string(p.max_iterations) +
           " linear_solver='" + EnumToText(kLinearSolvers, p.linear_solver) +
           "' near_rigid_threshold=" +
           std::string(
               py::repr(py::float_(p.regularization.near_rigid_threshold))) +
           ">";
  });
}

void DefineProblem(py::module_& m) {
  const ContactParameters defaults;
  py::class_<PyProblem> c(
      m, "SapProblem",
      "One time step's contact problem (C++ SapProblem): trees with their "
      "matrices A and free-motion velocities v*, contacts with 3 x n_t "
      "Jacobian blocks (rows n, t1, t2; v_c = J v of body B relative to "
      "body A) and their parameters, and joint-limit, holonomic and "
      "actuation constraints.\n\n"
      "Velocities of all trees are stacked in the order add_tree was "
      "called; results come back in that order and in the order contacts "
      "and constraints were added. Units: SI (dt [s], stiffness [N/m], "
      "impulses [N*s]).");
  c.def(py::init([](double time_step) {
          ValidateTimeStep(time_step, "SapProblem");
          auto p = std::make_unique<PyProblem>();
          p->problem.time_step = time_step;
          return p;
        }),
        py::arg("time_step") = SapProblem{}.time_step,
        "SapProblem(time_step=1e-3): an empty problem with time step dt [s] "
        "(ValueError unless finite and > 0).");
  c.def_property(
      "time_step", [](const PyProblem& p) { return p.problem.time_step; },
      [](PyProblem& p, double dt) {
        p.CheckNotSolving("time_step");
        ValidateTimeStep(dt, "SapProblem");
        p.problem.time_step = dt;
      },
      "Time step dt [s], > 0.");
  c.def(
      "add_tree",
      [](PyProblem& p, const py::object& A, const py::object& v_star,
         const std::string& name) {
        p.CheckNotSolving("add_tree");
        Tree t;
        t.A = ToMatrix(A, "A");
        if (t.A.rows() != t.A.cols() || t.A.rows() == 0) {
          throw py::value_error(
              "A: expected a square 2-D array (n, n) with n >= 1, got shape "
              "(" +
              std::to_string(t.A.rows()) + ", " + std::to_string(t.A.cols()) +
              ")");
        }
        t.v_star = ToVector(v_star, "v_star", static_cast<int>(t.A.rows()));
        t.name = name;
        p.problem.trees.push_back(std::move(t));
        return static_cast<int>(p.problem.trees.size()) - 1;
      },
      py::arg("A"), py::arg("v_star"), py::arg("name") = "",
      "Adds a tree (a free body of 6 DOFs or an articulated robot) and "
      "returns its index.\n\n"
      "A: symmetric positive definite (n, n) matrix [kg, kg m, kg m^2 per "
      "DOF] (the mass matrix, plus dt times joint damping); v_star: (n,) "
      "free-motion velocity at the end of the step [m/s, rad/s]; name: used "
      "in error messages.");
  c.def(
      "add_contact",
      [](PyProblem& p, int tree, const py::object& J, double phi0,
         double stiffness, double dissipation_time_scale, double friction,
         const py::object& second, const std::string& model,
         double hunt_crossley_dissipation, double stiction_tolerance,
         const py::object& bias_velocity, double normal_velocity0,
         const std::string& name) {
        p.CheckNotSolving("add_contact");
        Contact k;
        k.first.tree = TreeIndex(p.problem, tree, "tree");
        k.first.J = ToMatrix(J, "J", 3, TreeSize(p.problem, tree));
        k.second =
            SecondBlock<ContactJacobianBlock>(p.problem, second, tree, 3);
        k.phi0 = phi0;
        k.parameters.stiffness = stiffness;
        k.parameters.dissipation_time_scale = dissipation_time_scale;
        k.parameters.friction = friction;
        k.parameters.model = EnumFromText(kContactModels, model, "model");
        k.parameters.hunt_crossley_dissipation = hunt_crossley_dissipation;
        k.parameters.stiction_tolerance = stiction_tolerance;
        if (!bias_velocity.is_none()) {
          k.bias_velocity = ToVector3(bias_velocity, "bias_velocity");
        }
        k.normal_velocity0 = normal_velocity0;
        k.name = name;
        // The label C++ Validate(SapProblem) gives the contact.
        std::string label =
            "contact " + std::to_string(p.problem.contacts.size());
        if (!name.empty()) label += " ('" + name + "')";
        Validate(k.parameters, label);
        p.problem.contacts.push_back(std::move(k));
        return static_cast<int>(p.problem.contacts.size()) - 1;
      },
      py::arg("tree"), py::arg("J"), py::arg("phi0") = 0.0,
      py::arg("stiffness") = defaults.stiffness,
      py::arg("dissipation_time_scale") = defaults.dissipation_time_scale,
      py::arg("friction") = defaults.friction, py::arg("second") = py::none(),
      py::arg("model") = ToString(defaults.model),
      py::arg("hunt_crossley_dissipation") = defaults.hunt_crossley_dissipation,
      py::arg("stiction_tolerance") = defaults.stiction_tolerance,
      py::arg("bias_velocity") = py::none(), py::arg("normal_velocity0") = 0.0,
      py::arg("name") = "",
      "Adds a point contact and returns its index.\n\n"
      "tree, J: the first tree and its (3, n_tree) Jacobian block, rows "
      "(n, t1, t2); second=(tree_b, J_b) for a contact between two trees "
      "(v_c = J v_tree + J_b v_tree_b, of B relative to A; against the "
      "world when omitted). phi0: signed distance at the start of the step "
      "[m] (negative: penetration). stiffness k [N/m] (inf: rigid, the "
      "near-rigid floor applies), dissipation_time_scale tau_d [s], friction "
      "mu [-]. model: 'sap' (default), 'similar' or 'lagged' "
      "(Hunt-Crossley, docs/theory.md §18, with hunt_crossley_dissipation d "
      "[s/m] and stiction_tolerance v_s [m/s]). bias_velocity: contact "
      "velocity at v = 0 (n, t1, t2) [m/s] of a moving surface; "
      "normal_velocity0: v_n at the start of the step [m/s] (lagged model). "
      "Raises ValueError for parameters out of range, naming the field.");
  c.def(
      "add_limit",
      [](PyProblem& p, int tree, const py::object& J, const py::object& g0,
         double stiffness, double dissipation_time_scale,
         const py::object& second, const std::string& name) {
        p.CheckNotSolving("add_limit");
        LimitConstraint c;
        c.g0 = ToVector(g0, "g0");
        const int rows = static_cast<int>(c.g0.size());
        c.first.tree = TreeIndex(p.problem, tree, "tree");
        c.first.J = ToMatrix(J, "J", rows, TreeSize(p.problem, tree));
        c.second =
            SecondBlock<ConstraintJacobianBlock>(p.problem, second, tree, rows);
        c.stiffness = stiffness;
        c.dissipation_time_scale = dissipation_time_scale;
        c.name = name;
        p.problem.limits.push_back(std::move(c));
        return static_cast<int>(p.problem.limits.size()) - 1;
      },
      py::arg("tree"), py::arg("J"), py::arg("g0"),
      py::arg("stiffness") = std::numeric_limits<double>::infinity(),
      py::arg("dissipation_time_scale") = -1.0, py::arg("second") = py::none(),
      py::arg("name") = "",
      "Adds unilateral constraints g_i(q) >= 0 (joint limits, docs/theory.md "
      "§17) and returns their index: J (m, n_tree) maps velocities to "
      "dg/dt, g0 (m,) the values at the start of the step [m or rad], "
      "stiffness [N/m or N m/rad] (inf: near-rigid), dissipation time scale "
      "[s] (< 0: dt).");
  c.def(
      "add_holonomic",
      [](PyProblem& p, int tree, const py::object& J, const py::object& g0,
         double stiffness, double relaxation_time,
         const py::object& impulse_lower, const py::object& impulse_upper,
         const py::object& second, const std::string& name) {
        p.CheckNotSolving("add_holonomic");
        HolonomicConstraint c;
        c.g0 = ToVector(g0, "g0");
        const int rows = static_cast<int>(c.g0.size());
        c.first.tree = TreeIndex(p.problem, tree, "tree");
        c.first.J = ToMatrix(J, "J", rows, TreeSize(p.problem, tree));
        c.second =
            SecondBlock<ConstraintJacobianBlock>(p.problem, second, tree, rows);
        c.stiffness = stiffness;
        c.relaxation_time = relaxation_time;
        if (!impulse_lower.is_none()) {
          c.impulse_lower = ToVector(impulse_lower, "impulse_lower", rows);
        }
        if (!impulse_upper.is_none()) {
          c.impulse_upper = ToVector(impulse_upper, "impulse_upper", rows);
        }
        c.name = name;
        p.problem.holonomic.push_back(std::move(c));
        return static_cast<int>(p.problem.holonomic.size()) - 1;
      },
      py::arg("tree"), py::arg("J"), py::arg("g0"),
      py::arg("stiffness") = std::numeric_limits<double>::infinity(),
      py::arg("relaxation_time") = 0.0, py::arg("impulse_lower") = py::none(),
      py::arg("impulse_upper") = py::none(), py::arg("second") = py::none(),
      py::arg("name") = "",
      "Adds bilateral constraints g(q) = 0 (welds, couplers; docs/theory.md "
      "§17) and returns their index: J (m, n_tree), g0 (m,) [m or rad], "
      "stiffness (inf: near-rigid), relaxation time [s], optional impulse "
      "bounds (m,) [N*s or N m s].");
  c.def(
      "add_actuation",
      [](PyProblem& p, int tree, const py::object& J,
         const py::object& position, const py::object& target,
         const py::object& kp, const py::object& kd,
         const py::object& target_velocity, const py::object& feedforward,
         const py::object& effort_limit, const std::string& name) {
        p.CheckNotSolving("add_actuation");
        ActuationConstraint a;
        a.position = ToVector(position, "position");
        const int rows = static_cast<int>(a.position.size());
        a.first.tree = TreeIndex(p.problem, tree, "tree");
        a.first.J = ToMatrix(J, "J", rows, TreeSize(p.problem, tree));
        a.target = ToVector(target, "target", rows);
        a.kp = ToVector(kp, "kp", rows);
        a.kd = ToVector(kd, "kd", rows);
        a.target_velocity =
            OptionalVector(target_velocity, "target_velocity", rows, 0.0);
        a.feedforward = OptionalVector(feedforward, "feedforward", rows, 0.0);
        a.effort_limit =
            OptionalVector(effort_limit, "effort_limit", rows,
                           std::numeric_limits<double>::infinity());
        a.name = name;
        p.problem.actuation.push_back(std::move(a));
        return static_cast<int>(p.problem.actuation.size()) - 1;
      },
      py::arg("tree"), py::arg("J"), py::arg("position"), py::arg("target"),
      py::arg("kp"), py::arg("kd"), py::arg("target_velocity") = py::none(),
      py::arg("feedforward") = py::none(), py::arg("effort_limit") = py::none(),
      py::arg("name") = "",
      "Adds implicit PD actuation of m coordinates of one tree "
      "(docs/theory.md §17) and returns its index: J (m, n_tree) selects the "
      "coordinates' velocities; per row the position q0 at the start of the "
      "step, target, gains kp [N/m or N m/rad] and kd [N s/m or N m s/rad], "
      "and optionally target_velocity (0), feedforward effort (0) and "
      "effort_limit (inf).");
  c.def_property_readonly(
      "num_trees",
      [](const PyProblem& p) {
        return static_cast<int>(p.problem.trees.size());
      },
      "Number of trees.");
  c.def_property_readonly(
      "num_contacts",
      [](const PyProblem& p) {
        return static_cast<int>(p.problem.contacts.size());
      },
      "Number of contacts.");
  c.def_property_readonly(
      "num_velocities",
      [](const PyProblem& p) { return p.problem.num_velocities(); },
      "Total number of generalized velocities (sum of the trees' sizes).");
  c.def_property_readonly(
      "tree_offsets",
      [](const PyProblem& p) { return p.problem.TreeOffsets(); },
      "Offset of each tree's velocities in the stacked vector.");
  c.def(
      "tree",
      [](const PyProblem& p, int t) {
        TreeIndex(p.problem, t, "t");
        const Tree& tree = p.problem.trees[t];
        return py::make_tuple(ToNumpy(tree.A), ToNumpy(tree.v_star));
      },
      py::arg("t"), "The (A, v_star) of tree t (copies).");
  c.def(
      "validate", [](const PyProblem& p) { Validate(p.problem); },
      "Checks every input as the solvers do; raises ValueError naming the "
      "tree, contact or constraint and the field.");
  c.def(
      "copy", [](const PyProblem& p) { return PyProblem(p); }, "A deep copy.");
  c.def("__repr__", [](const PyProblem& p) { return ProblemRepr(p.problem); });
}

void DefineStatistics(py::module_& m) {
  py::class_<SapIslandStatistics>(
      m, "SapIslandStatistics",
      "One island of a solve (a connected component of the participating "
      "trees, solved as its own Newton problem; docs/theory.md §8).")
      .def_readonly("trees", &SapIslandStatistics::trees)
      .def_readonly("velocities", &SapIslandStatistics::velocities)
      .def_readonly("contacts", &SapIslandStatistics::contacts)
      .def_readonly("newton_iterations",
                    &SapIslandStatistics::newton_iterations)
      .def_readonly("line_search_iterations",
                    &SapIslandStatistics::line_search_iterations)
      .def_readonly("predicted_iterations",
                    &SapIslandStatistics::predicted_iterations)
      .def_readonly("rejected_predictions",
                    &SapIslandStatistics::rejected_predictions)
      .def_readonly("dense", &SapIslandStatistics::dense)
      .def_readonly("start_candidate", &SapIslandStatistics::start_candidate)
      .def_readonly("final_scaled_residual",
                    &SapIslandStatistics::final_scaled_residual)
      .def_readonly("final_cost", &SapIslandStatistics::final_cost, "[J]");
  py::class_<SapSolverStatistics>(
      m, "SapSolverStatistics",
      "Per-solve statistics (C++ SapSolverStatistics): iteration counts, "
      "per-Newton-round cost [J], step size alpha, scaled residual and "
      "line-search iterations, factorization data and wall times per phase "
      "[s]. Plain Python values; as_dict() gives them all.")
      .def_readonly("newton_iterations",
                    &SapSolverStatistics::newton_iterations)
      .def_readonly("island_newton_iterations",
                    &SapSolverStatistics::island_newton_iterations)
      .def_readonly("factorizations", &SapSolverStatistics::factorizations)
      .def_readonly("islands", &SapSolverStatistics::islands)
      .def_readonly("island_statistics",
                    &SapSolverStatistics::island_statistics)
      .def_readonly("predicted_iterations",
                    &SapSolverStatistics::predicted_iterations)
      .def_readonly("predicted_contacts",
                    &SapSolverStatistics::predicted_contacts)
      .def_readonly("rejected_predictions",
                    &SapSolverStatistics::rejected_predictions)
      .def_readonly("line_search_iterations",
                    &SapSolverStatistics::line_search_iterations)
      .def_readonly("cost", &SapSolverStatistics::cost,
                    "Cost l(v_k) before each Newton round [J].")
      .def_readonly("alpha", &SapSolverStatistics::alpha)
      .def_readonly("scaled_residual", &SapSolverStatistics::scaled_residual)
      .def_readonly("line_search_iterations_per_newton",
                    &SapSolverStatistics::line_search_iterations_per_newton)
      .def_readonly("final_scaled_residual",
                    &SapSolverStatistics::final_scaled_residual)
      .def_readonly("final_cost", &SapSolverStatistics::final_cost, "[J]")
      .def_readonly("reciprocal_condition",
                    &SapSolverStatistics::reciprocal_condition)
      .def_readonly("symbolic_analyses",
                    &SapSolverStatistics::symbolic_analyses)
      .def_readonly("participating_trees",
                    &SapSolverStatistics::participating_trees)
      .def_readonly("participating_velocities",
                    &SapSolverStatistics::participating_velocities)
      .def_readonly("patches", &SapSolverStatistics::patches)
      .def_readonly("time_model", &SapSolverStatistics::time_model, "[s]")
      .def_readonly("time_assembly", &SapSolverStatistics::time_assembly, "[s]")
      .def_readonly("time_factorization",
                    &SapSolverStatistics::time_factorization, "[s]")
      .def_readonly("time_line_search", &SapSolverStatistics::time_line_search,
                    "[s]")
      .def_readonly("time_other", &SapSolverStatistics::time_other, "[s]")
      .def_readonly("time_total", &SapSolverStatistics::time_total, "[s]")
      .def(
          "as_dict",
          [](py::object self) {
            py::dict d;
            for (const char* name : {"newton_iterations",
                                     "island_newton_iterations",
                                     "factorizations",
                                     "islands",
                                     "predicted_iterations",
                                     "predicted_contacts",
                                     "rejected_predictions",
                                     "line_search_iterations",
                                     "cost",
                                     "alpha",
                                     "scaled_residual",
                                     "line_search_iterations_per_newton",
                                     "final_scaled_residual",
                                     "final_cost",
                                     "reciprocal_condition",
                                     "symbolic_analyses",
                                     "participating_trees",
                                     "participating_velocities",
                                     "patches",
                                     "time_model",
                                     "time_assembly",
                                     "time_factorization",
                                     "time_line_search",
                                     "time_other",
                                     "time_total"}) {
              d[name] = self.attr(name);
            }
            return d;
          },
          "The statistics as a dict of plain Python values (islands left "
          "out).");
}

void DefineSapSolver(py::module_& m) {
  py::enum_<SapSolverStatus>(m, "SapSolverStatus", "Outcome of a SAP solve.")
      .value("converged", SapSolverStatus::kConverged)
      .value("max_iterations", SapSolverStatus::kMaxIterations)
      .value("stalled", SapSolverStatus::kStalled)
      .value("ill_conditioned", SapSolverStatus::kIllConditioned)
      .value("factorization_failed", SapSolverStatus::kFactorizationFailed);

  py::class_<PySapResults>(
      m, "SapResults",
      "Results of SapSolver.solve, in the problem's order (float64 numpy "
      "arrays, copies).\n\n"
      "v (nv,): generalized velocities [m/s, rad/s]; gamma (nc, 3): impulses "
      "(n, t1, t2) [N*s]; v_c (nc, 3): contact velocities J v [m/s]; "
      "generalized_impulse (nv,): J' gamma, so that A (v - v*) = J' gamma; "
      "constraint_velocities, constraint_impulses: rows of the limit, "
      "holonomic and actuation constraints in that order; w (nc,): Delassus "
      "estimates [1/kg]; R_n, R_t (nc,): regularization [(m/s)/(N*s)]; "
      "effective_stiffness (nc,): k after the near-rigid floor [N/m]. "
      "status: a SapSolverStatus (non-convergence is reported here, never "
      "raised); message explains a failure.")
      .def_readonly("status", &PySapResults::status)
      .def_property_readonly(
          "converged",
          [](const PySapResults& r) {
            return r.status == SapSolverStatus::kConverged;
          },
          "status == SapSolverStatus.converged.")
      .def_readonly("message", &PySapResults::message)
      .def_readonly("v", &PySapResults::v)
      .def_readonly("gamma", &PySapResults::gamma)
      .def_readonly("v_c", &PySapResults::v_c)
      .def_readonly("generalized_impulse", &PySapResults::generalized_impulse)
      .def_readonly("constraint_velocities",
                    &PySapResults::constraint_velocities)
      .def_readonly("constraint_impulses", &PySapResults::constraint_impulses)
      .def_readonly("w", &PySapResults::w)
      .def_readonly("R_n", &PySapResults::R_n)
      .def_readonly("R_t", &PySapResults::R_t)
      .def_readonly("effective_stiffness", &PySapResults::effective_stiffness)
      .def_readonly("statistics", &PySapResults::statistics)
      .def("__repr__", [](const PySapResults& r) {
        return std::string("<sapcontact.SapResults status=") +
               ToString(r.status) + " newton_iterations=" +
               std::to_string(r.statistics.newton_iterations) + ">";
      });

  py::class_<PySapSolver>(
      m, "SapSolver",
      "The SAP Newton solver (SAP paper §IV, Algorithm 2; docs/theory.md "
      "§7).\n\n"
      "Keep one solver per simulation: the sparse symbolic analysis is "
      "reused while the contact graph does not change. solve() releases the "
      "GIL: separate solvers solve in parallel threads, each result "
      "bitwise equal to the same solves run alone; a solver shared by "
      "threads solves one problem at a time.")
      .def(py::init([](const py::object& parameters, const py::kwargs& kw) {
             return std::make_unique<PySapSolver>(
                 MergedParameters(parameters, kw));
           }),
           py::arg("parameters") = py::none(),
           "SapSolver(parameters=None, **fields): a solver with "
           "SapSolverParameters (default: the C++ defaults), the given "
           "fields replaced. Raises ValueError for a field out of range.")
      .def_property_readonly(
          "parameters",
          [](const PySapSolver& s) { return s.solver.parameters(); },
          "A copy of the solver's SapSolverParameters.")
      .def(
          "solve",
          [](PySapSolver& s, PyProblem& p, const py::object& v_guess) {
            std::optional<Eigen::VectorXd> guess;
            if (!v_guess.is_none()) {
              guess = ToVector(v_guess, "v_guess", p.problem.num_velocities());
            }
            SapSolverResults r;
            {
              SolveGuard guard(p);
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(s.mutex);
              r = s.solver.Solve(p.problem, guess ? &*guess : nullptr);
            }
            return ToPython(r);
          },
          py::arg("problem"), py::arg("v_guess") = py::none(),
          "Solves one time step and returns SapResults. v_guess (nv,): "
          "velocities to start Newton from (e.g. the previous step's); "
          "default v*. Raises ValueError for an invalid problem (naming the "
          "tree or contact and the field); non-convergence is reported in "
          "results.status.")
      .def_property_readonly(
          "total_symbolic_analyses",
          [](const PySapSolver& s) {
            return s.solver.total_symbolic_analyses();
          },
          "Sparse symbolic analyses over this solver's lifetime.");

  py::class_<PyInverseDynamics>(
      m, "InverseDynamics",
      "Result of calc_inverse_dynamics: v_c and gamma (nc, 3) [m/s, N*s], "
      "constraint_velocities and constraint_impulses (rows of the limit, "
      "holonomic and actuation constraints), generalized_impulse (nv,).")
      .def_readonly("v_c", &PyInverseDynamics::v_c)
      .def_readonly("gamma", &PyInverseDynamics::gamma)
      .def_readonly("constraint_velocities",
                    &PyInverseDynamics::constraint_velocities)
      .def_readonly("constraint_impulses",
                    &PyInverseDynamics::constraint_impulses)
      .def_readonly("generalized_impulse",
                    &PyInverseDynamics::generalized_impulse);
  m.def(
      "calc_inverse_dynamics",
      [](PyProblem& p, const py::object& v, const py::object& parameters) {
        const Eigen::VectorXd vv = ToVector(v, "v", p.problem.num_velocities());
        const RegularizationParameters reg =
            parameters.is_none()
                ? RegularizationParameters{}
                : CastArgument<SapSolverParameters>(parameters, "parameters",
                                                    "SapSolverParameters")
                      .regularization;
        InverseDynamicsResult r;
        {
          SolveGuard guard(p);
          py::gil_scoped_release release;
          r = CalcInverseDynamics(p.problem, reg, vv);
        }
        return SplitInverseDynamics(
            r, static_cast<int>(p.problem.contacts.size()));
      },
      py::arg("problem"), py::arg("v"), py::arg("parameters") = py::none(),
      "Inverse dynamics (SAP paper §III-B, Eq. (23)): for velocities v (nv,) "
      "the impulses gamma = P_F(y(J v)) the SAP model gives them, with the "
      "regularization of `parameters` (SapSolverParameters; default the C++ "
      "defaults). Returns InverseDynamics with v_c, gamma (nc, 3), the "
      "constraints' rows and generalized_impulse J' gamma (nv,). At a "
      "solution v of SapSolver, generalized_impulse equals A (v - v*).");
  m.attr("CalcInverseDynamics") = m.attr("calc_inverse_dynamics");
}

void DefineRigidQp(py::module_& m) {
  py::enum_<RigidQpStatus>(m, "RigidQpStatus",
                           "Outcome of the rigid-contact QP solver.")
      .value("solved", RigidQpStatus::kSolved)
      .value("solved_reduced_accuracy", RigidQpStatus::kSolvedReducedAccuracy)
      .value("max_iterations", RigidQpStatus::kMaxIterations)
      .value("infeasible", RigidQpStatus::kInfeasible)
      .value("numerical_error", RigidQpStatus::kNumericalError);

  py::class_<RigidQpSolverOptions> o(
      m, "RigidQpSolverOptions",
      "Settings of the interior-point solver of the rigid-contact cone QP "
      "(C++ RigidQpSolverOptions), with the C++ defaults; construct with "
      "keywords.");
  o.def(py::init([](const py::kwargs& kw) {
          return FromKeywords(RigidQpSolverOptions{}, kw,
                              "RigidQpSolverOptions");
        }),
        "RigidQpSolverOptions(**fields).")
      .def_readwrite("max_iterations", &RigidQpSolverOptions::max_iterations)
      .def_readwrite("feasibility_tolerance",
                     &RigidQpSolverOptions::feasibility_tolerance)
      .def_readwrite("gap_tolerance", &RigidQpSolverOptions::gap_tolerance)
      .def_readwrite("max_polish_iterations",
                     &RigidQpSolverOptions::max_polish_iterations)
      .def_readwrite("reduced_tolerance",
                     &RigidQpSolverOptions::reduced_tolerance)
      .def_readwrite("sparse_min_variables",
                     &RigidQpSolverOptions::sparse_min_variables)
      .def_readwrite("sparse_max_density",
                     &RigidQpSolverOptions::sparse_max_density);
  DefEnumProperty(o, "linear_solver", &RigidQpSolverOptions::linear_solver,
                  kRigidLinearSolvers,
                  "'auto' (default), 'dense' or 'sparse' KKT factorization.");

  py::class_<PyRigidResult>(
      m, "RigidQpResults",
      "Results of RigidQpSolver.solve: impulses and constraint_velocities "
      "(nc, 3) (n, t1, t2) [N*s, m/s], velocities (nv,), objective, "
      "iterations, residuals and status (RigidQpStatus; reason explains a "
      "failure).")
      .def_readonly("status", &PyRigidResult::status)
      .def_property_readonly(
          "solved",
          [](const PyRigidResult& r) {
            return r.status == RigidQpStatus::kSolved ||
                   r.status == RigidQpStatus::kSolvedReducedAccuracy;
          },
          "status is solved or solved_reduced_accuracy.")
      .def_readonly("reason", &PyRigidResult::reason)
      .def_readonly("impulses", &PyRigidResult::impulses)
      .def_readonly("constraint_velocities",
                    &PyRigidResult::constraint_velocities)
      .def_readonly("velocities", &PyRigidResult::velocities)
      .def_readonly("unbounded_direction", &PyRigidResult::unbounded_direction)
      .def_readonly("objective", &PyRigidResult::objective)
      .def_readonly("iterations", &PyRigidResult::iterations)
      .def_readonly("primal_residual", &PyRigidResult::primal_residual)
      .def_readonly("dual_residual", &PyRigidResult::dual_residual)
      .def_readonly("relative_gap", &PyRigidResult::relative_gap)
      .def_readonly("relative_complementarity",
                    &PyRigidResult::relative_complementarity)
      .def_readonly("used_sparse", &PyRigidResult::used_sparse);

  py::class_<PyRigidSolver>(
      m, "RigidQpSolver",
      "The rigid-contact limit (docs/theory.md §10): the cone QP "
      "min 1/2 ||v - v*||_A^2 s.t. the contact velocities lie in the dual "
      "friction cone, solved independently of SAP by an interior-point "
      "method. Contact stiffness and dissipation are ignored (rigid), "
      "friction is used. solve() releases the GIL.")
      .def(py::init([](const py::object& options, const py::kwargs& kw) {
             RigidQpSolverOptions o;
             if (!options.is_none()) {
               o = CastArgument<RigidQpSolverOptions>(options, "options",
                                                      "RigidQpSolverOptions");
             }
             if (kw.size() > 0) o = FromKeywords(o, kw, "RigidQpSolverOptions");
             return PyRigidSolver{o};
           }),
           py::arg("options") = py::none(),
           "RigidQpSolver(options=None, **fields).")
      .def(
          "solve",
          [](const PyRigidSolver& s, PyProblem& p) {
            RigidQpResult r;
            {
              SolveGuard guard(p);
              py::gil_scoped_release release;
              r = SolveRigidContactQp(p.problem, s.options);
            }
            PyRigidResult out;
            out.status = r.status;
            out.reason = r.reason;
            out.impulses = ToNumpyRows3(r.impulses);
            out.constraint_velocities = ToNumpyRows3(r.constraint_velocities);
            out.velocities = ToNumpy(r.velocities);
            out.unbounded_direction = ToNumpy(r.unbounded_direction);
            out.objective = r.objective;
            out.iterations = r.iterations;
            out.primal_residual = r.primal_residual;
            out.dual_residual = r.dual_residual;
            out.relative_gap = r.relative_gap;
            out.relative_complementarity = r.relative_complementarity;
            out.used_sparse = r.used_sparse;
            return out;
          },
          py::arg("problem"),
          "Solves the rigid-contact QP of a SapProblem; returns "
          "RigidQpResults. Raises ValueError for an invalid problem.");
}

}  // namespace

py::object SapResultsToPython(const SapSolverResults& results) {
  return py::cast(ToPython(results));
}

void DefineSolver(py::module_& m) {
  DefineParameters(m);
  DefineProblem(m);
  DefineStatistics(m);
  DefineSapSolver(m);
  DefineRigidQp(m);
}

}  // namespace sapcontact::python
