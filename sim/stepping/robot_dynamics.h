// A robot's dynamics at a time stepper's current state, for controllers
// (docs/robots.md, "Robot dynamics"): the mass matrix, the bias and
// gravity forces, the centre of mass and its Jacobian, the joints' limits
// and the links' inertias. Generalized coordinates in robot_states()[r]
// order (a floating base first: 7 positions, 6 velocities, world frame);
// SI units. The equations of motion without contact, limits, actuation and
// joint damping read
//   M(q) dv/dt + c(q, v) = tau,   c(q, v) = C(q, v) v + g(q),
// so tau = g(q) (GravityForces) holds a robot at rest where it is.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {

/// M(q) [kg, kg m, kg m^2] (nv x nv, symmetric positive definite).
Eigen::MatrixXd RobotMassMatrix(const TimeStepper& stepper, int r);

/// c(q, v) [N m or N]: Coriolis, centrifugal and gravity generalized
/// forces (recursive Newton-Euler with dv/dt = 0; no joint damping).
Eigen::VectorXd RobotBiasForces(const TimeStepper& stepper, int r);

/// g(q) = c(q, 0) [N m or N]: the gravity part of the bias forces, the
/// gradient of the potential energy dV/dq, and the generalized forces that
/// hold the robot still against gravity.
Eigen::VectorXd RobotGravityForces(const TimeStepper& stepper, int r);

/// The robot's centre of mass [m, world] and its 3 x nv Jacobian:
/// d(com)/dt = J v.
Vector3 RobotCenterOfMass(const TimeStepper& stepper, int r);
Eigen::MatrixXd RobotCenterOfMassJacobian(const TimeStepper& stepper, int r);

/// Per joint of TimeStepper::JointNames(r): the URDF's position limits
/// [rad or m] (-inf / inf: none), velocity limit [rad/s or m/s] and effort
/// limit [N m or N] (inf: none).
struct RobotJointLimits {
  std::vector<std::string> joints;
  Eigen::VectorXd lower, upper, velocity, effort;
};
RobotJointLimits RobotLimits(const TimeStepper& stepper, int r);

/// Per link of TimeStepper::LinkNames(r): mass [kg], centre of mass [m,
/// link frame] and rotational inertia about it [kg m^2, link axes].
struct RobotLinkInertias {
  std::vector<std::string> links;
  Eigen::VectorXd mass;
  std::vector<Vector3> com;
  std::vector<Eigen::Matrix3d> inertia;
};
RobotLinkInertias RobotInertias(const TimeStepper& stepper, int r);

}  // namespace sapcontact
