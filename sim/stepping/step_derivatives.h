// Derivatives of one simulation step, x+ = f(x, u) (docs/theory.md §21):
// the layout of MuJoCo's mjd_transitionFD, in tangent space.
//   x = (dq, v): dq the tangent of the configuration, v the generalized
//       velocities, both in the order of the step's problem trees (the
//       moving free bodies in scene order, then the robots with degrees of
//       freedom), nv entries each. A free body contributes (dp, dtheta) to
//       dq, where dp [m] moves its centre of mass and dtheta [rad] turns it
//       about world axes (R' = exp(dtheta) R), and (v, w) to v (world
//       frame, as BodyState); a robot its joints' coordinates (a floating
//       base: like a free body, in its parent's axes).
//   u = generalized forces held during the step, nv entries in the same
//       order: a free body's force [N] through its centre of mass and torque
//       [N m] (world axes), a robot's generalized forces (as
//       TimeStepper::SetAppliedGeneralizedForces).
//   A = dx+/dx (2 nv x 2 nv), B = dx+/du (2 nv x nv).
// A robot's carried history (the variational step's momentum p = M(q_prev) v
// and the previous velocity, docs/theory.md §17) is held, with p moving with
// v: the derivatives are those of the next Step() from the current state.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sapcontact/solver/sap/sap_solver_derivatives.h"

namespace sapcontact {

/// How TimeStepper::CalcStepDerivatives computes the derivatives.
enum class StepDerivativeMethod {
  /// The contact solve by the implicit function theorem (one Hessian
  /// factorization, one back-substitution per column). The contacts move
  /// with the configuration in closed form from the features they are
  /// between (collision/contact_motion.h; collision detection again,
  /// by central differences, only for the differenced_contacts), and so do
  /// their frames and, between free bodies and the static world, their
  /// Jacobian blocks; the rest of the problem (A, v*, the rows, robot
  /// links' point Jacobians) by forward (or central) differences of its
  /// construction at the perturbed configuration (smooth, no collision
  /// detection, no solve); a velocity column in closed form but for v*'s
  /// rate (the velocities move only v* and v_n0); the position update
  /// analytically (docs/theory.md §21). One problem construction per
  /// configuration coordinate (two with central_differences): on Atlas
  /// (nv = 33) the cost of some 25-30 plain steps.
  kImplicit,
  /// Central differences of whole steps (problem, solve, position update),
  /// 2 (2 nv + nv + targets) solves: the reference. A coordinate's step is
  /// shrunk (to 1/100 at most) while the perturbed contacts do not follow
  /// the nominal ones.
  kFiniteDifferences,
};

/// Settings of TimeStepper::CalcStepDerivatives (plain struct).
struct StepDerivativeOptions {
  StepDerivativeMethod method{StepDerivativeMethod::kImplicit};
  /// Difference steps: configuration [m or rad], velocity [m/s or rad/s],
  /// generalized force [N or N m]; 0 picks the method's default
  /// (kImplicit: 1e-7 and 1e-7, differences of the problem's data, which
  /// carry only round-off; its force columns are exact; kFiniteDifferences:
  /// 1e-5, 1e-5, 1e-2, central differences of whole steps, which carry the
  /// solver's tolerance).
  double position_step{0.0};
  double velocity_step{0.0};
  double force_step{0.0};
  /// kImplicit: the configuration columns from central differences of the
  /// problem's data (two perturbed problems per column) instead of forward
  /// ones (one). kFiniteDifferences always differences centrally.
  bool central_differences{false};
  /// Relative tolerance of the step's solves (SapSolverParameters::
  /// rel_tolerance): the derivatives are those of the optimum.
  double rel_tolerance{1e-12};
};

/// The transition's derivatives at one state (header comment for the
/// layout).
struct StepDerivatives {
  Eigen::MatrixXd A;  ///< dx+/dx, 2 nv x 2 nv
  Eigen::MatrixXd B;  ///< dx+/du, 2 nv x nv
  /// dx+ / d(PD target positions), 2 nv x (actuated joints): one column per
  /// robot actuated joint (robots in scene order, joints in the order of
  /// their `actuation:` entries), the target the step uses (the scene's
  /// target function at the step's end time, or SetActuationTarget's).
  Eigen::MatrixXd B_targets;
  /// Their names: "arm/joint1 target".
  std::vector<std::string> targets;
  /// Name of each of the nv coordinates: "box/x", "box/rz" (free bodies:
  /// x, y, z, rx, ry, rz), "arm/joint1" (robots; a floating base
  /// "arm/base/x" ... "arm/base/rz").
  std::vector<std::string> coordinates;
  /// The step's contacts, in TimeStepper::last_contacts() order: where each
  /// one's derivative is taken (SapContactRegion: region, distance to a
  /// region boundary [m/s], near-rigid).
  std::vector<SapContactRegion> contact_regions;
  /// Columns of A (coordinates of x, 0 .. 2 nv - 1) whose contact set
  /// changed on one side of the difference (the forward side: the backward
  /// difference is taken) (faces in exact
  /// alignment, such as a box resting flat on a box, change their contact
  /// points under any turn; a contact at the speculative margin appears or
  /// vanishes): there the step is not differentiable, and the column is the
  /// one-sided derivative towards the side whose contacts match
  /// (kImplicit only).
  std::vector<int> one_sided;
  /// Columns whose contact set changed on both sides (faces in exact
  /// alignment turned either way, where the step is not differentiable):
  /// their derivative holds the step's contacts, moving with the bodies to
  /// first order (phi0, or v_n0 for a velocity column, changes by the
  /// normal velocity J_n e of the coordinate's unit motion; contact frames
  /// and Jacobians held) (kImplicit only).
  std::vector<int> held_contacts;
  /// The contacts (indices into contact_regions) whose motion with the
  /// configuration is taken by central differences of collision detection,
  /// because the narrow phase does not record their features (the GJK/EPA
  /// pairs: meshes but for plane-mesh, cylinders but tilted on a plane or
  /// under a sphere; box-capsule but for the
  /// segment ends; a box face's corner inside the other's,
  /// collision/README.md); every other contact moves in closed form
  /// (kImplicit only).
  std::vector<int> differenced_contacts;
  /// Scaled residual of the step's solve at the linearization.
  double scaled_residual{0.0};
};

}  // namespace sapcontact
