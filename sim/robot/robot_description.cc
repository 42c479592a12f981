#include "sapcontact/sim/robot/robot_description.h"

#include <stdexcept>

namespace sapcontact {

void PlaceRobot(const Pose& X_WM, RobotDescription* d) {
  if (d->tree.num_links() == 0) return;
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = X_WM.rotation();
  X.translation() = X_WM.position;
  const Joint& root = d->tree.joint(0);
  if (root.type == JointType::kFloating) {
    Eigen::VectorXd& q = d->initial_positions;
    const Eigen::Quaterniond q_MB(q[3], q[4], q[5], q[6]);
    const Eigen::Vector3d p = X * q.head<3>();
    const Eigen::Quaterniond q_WB = (X_WM.orientation * q_MB).normalized();
    q.head<3>() = p;
    q[3] = q_WB.w();
    q[4] = q_WB.x();
    q[5] = q_WB.y();
    q[6] = q_WB.z();
    return;
  }
  if (root.type != JointType::kFixed) {
    throw std::invalid_argument("PlaceRobot: the root joint '" + root.name +
                                "' is neither fixed nor floating");
  }
  MultibodyTree placed;
  for (int i = 0; i < d->tree.num_links(); ++i) {
    Joint j = d->tree.joint(i);
    if (i == 0) j.origin = X * j.origin;
    placed.AddLink(d->tree.link(i), j);
  }
  d->tree = std::move(placed);
}

}  // namespace sapcontact
