// Python SapProblem: one time step's contact problem (C++ SapProblem)
// built from numpy arrays: trees, contacts, joint limits, holonomic and
// actuation constraints. Arrays come in as anything numpy.asarray accepts
// and go out as float64 numpy arrays (copies); per-contact 3-vectors are
// rows in the contact frame (n, t1, t2) (contact_model/conventions.h).
#include <pybind11/stl.h>

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/problem_binding.h"
#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/solver/sap/sap_problem.h"

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

}  // namespace

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

}  // namespace sapcontact::python
