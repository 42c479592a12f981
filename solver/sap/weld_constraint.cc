#include "sapcontact/solver/sap/weld_constraint.h"

#include <stdexcept>

namespace sapcontact {

HolonomicConstraint MakeWeldConstraint(const WeldFrame& p, const WeldFrame& q,
                                       const std::string& name) {
  const std::string label = "weld" + (name.empty() ? "" : " '" + name + "'");
  if (p.tree < 0 && q.tree < 0) {
    throw std::invalid_argument(label + ": both frames are on the world");
  }
  if (p.tree == q.tree) {
    throw std::invalid_argument(label + ": both frames are on tree " +
                                std::to_string(p.tree));
  }
  for (const WeldFrame* f : {&p, &q}) {
    if (f->tree >= 0 && f->J.rows() != 6) {
      throw std::invalid_argument(label + ": a frame Jacobian has " +
                                  std::to_string(f->J.rows()) +
                                  " rows, expected 6");
    }
  }
  HolonomicConstraint h;
  h.name = name;
  h.g0.resize(6);
  h.g0.head<3>() = q.pose.translation() - p.pose.translation();
  const Eigen::AngleAxisd error(q.pose.linear() * p.pose.linear().transpose());
  h.g0.tail<3>() = error.angle() * error.axis();
  // B relative to A: +J_WQ on Q's tree, -J_WP on P's.
  if (q.tree >= 0) {
    h.first = ConstraintJacobianBlock{q.tree, q.J};
    if (p.tree >= 0) h.second = ConstraintJacobianBlock{p.tree, -p.J};
  } else {
    h.first = ConstraintJacobianBlock{p.tree, -p.J};
  }
  return h;
}

}  // namespace sapcontact
