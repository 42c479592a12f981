// Sleeping islands (scene key solver.sleep; docs/scenes.md "Sleeping"). Part
// of TimeStepper (sim/stepping/time_stepper.h).
//
// An island is a set of free bodies joined by the contacts of a step. After
// each step a body whose fastest point moved slower than solver.sleep_speed
// (|v| + |w| r, r the shape's bounding radius) accumulates still time;
// bodies touched by a force (applied or external), a robot link or a moving
// kinematic body do not. When every body of an island has been still for
// solver.sleep_time, the island falls asleep: its velocities are set to
// zero, its trees leave the contact problem and the collision detector
// skips its pairs with other resting bodies (the ground, other sleepers).
// It wakes, as a whole, when collision detection reports a contact between
// one of its bodies and a moving one (that step's contacts are then found
// again with the island awake), when a force is applied to one of its
// bodies, or when its state is set.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {
bool TimeStepper::IsAsleep(int body) const {
  return body >= 0 && body < static_cast<int>(sleep_island_.size()) &&
         sleep_island_[body] >= 0;
}

int TimeStepper::ProblemTree(int body) const {
  if (body < 0 || body >= static_cast<int>(tree_of_body_.size())) return -1;
  return tree_of_body_[body];
}

void TimeStepper::WakeUp(int body) {
  if (body < 0 || body >= static_cast<int>(scene_.bodies.size())) {
    throw std::invalid_argument("TimeStepper::WakeUp: no body " +
                                std::to_string(body));
  }
  WakeIsland(body);
}

void TimeStepper::WakeIsland(int body) {
  const int island = sleep_island_[body];
  if (island < 0) return;
  for (int b : free_bodies_) {
    if (sleep_island_[b] != island) continue;
    sleep_island_[b] = -1;
    still_time_[b] = 0.0;
    --num_sleeping_;
  }
  trees_stale_ = true;
}

void TimeStepper::WakeAll() {
  if (num_sleeping_ == 0) return;
  for (int b : free_bodies_) {
    sleep_island_[b] = -1;
    still_time_[b] = 0.0;
  }
  num_sleeping_ = 0;
  trees_stale_ = true;
}

void TimeStepper::PrepareSleep() {
  if (num_sleeping_ > 0) {
    // An external force that acts during this step wakes its body.
    const double t_end = time_ + scene_.time_step;
    for (const ExternalForce& f : scene_.external_forces) {
      if (!IsAsleep(f.body)) continue;
      if (!f.force.Value(t_end).isZero(0) || !f.torque.Value(t_end).isZero(0)) {
        WakeIsland(f.body);
      }
    }
  }
  if (trees_stale_) RemapTrees();
}

void TimeStepper::UpdateResting() {
  const int nb = static_cast<int>(scene_.bodies.size());
  const double t_end = time_ + scene_.time_step;
  bool changed = false;
  if (resting_.size() != static_cast<size_t>(num_colliders())) {
    resting_.assign(num_colliders(), false);  // robot links never rest
    changed = true;
  }
  for (int b = 0; b < nb; ++b) {
    const Body& body = scene_.bodies[b];
    bool rest = IsAsleep(b);
    if (body.fixed && !body.prescribed) {
      rest = true;
    } else if (body.prescribed) {  // velocities of this step: poses updated
      const BodyState& s = state_[b];
      rest = s.velocity.isZero(0) && s.angular_velocity.isZero(0) &&
             body.motion.surface_velocity.Value(t_end).isZero(0);
    }
    if (resting_[b] != rest) {
      resting_[b] = rest;
      changed = true;
    }
  }
  if (changed) collision_.SetResting(resting_);
}

bool TimeStepper::WakeTouchedIslands() {
  const int nb = static_cast<int>(scene_.bodies.size());
  bool woke = false;
  for (const ContactPoint& cp : contacts_) {
    for (int c : {cp.body_a, cp.body_b}) {
      if (c < nb && IsAsleep(c)) {
        WakeIsland(c);
        woke = true;
      }
    }
  }
  return woke;
}

void TimeStepper::RemapTrees() {
  trees_stale_ = false;
  const int nb = static_cast<int>(scene_.bodies.size());
  const std::vector<int> old_tree_of_body = tree_of_body_;
  const std::vector<int> old_offsets = tree_offsets_;
  std::vector<Tree> old_trees = std::move(problem_.trees);
  problem_.trees.clear();
  body_of_tree_.clear();
  tree_of_body_.assign(nb, -1);
  std::vector<int> old_index;  // per new tree: its old index or -1
  for (int b : free_bodies_) {
    if (IsAsleep(b)) continue;
    tree_of_body_[b] = static_cast<int>(problem_.trees.size());
    body_of_tree_.push_back(b);
    const int o = old_tree_of_body[b];
    old_index.push_back(o);
    if (o >= 0) {
      problem_.trees.push_back(std::move(old_trees[o]));
    } else {
      Tree t;
      t.A = Eigen::MatrixXd::Zero(6, 6);
      t.v_star = Eigen::VectorXd::Zero(6);
      t.name = scene_.bodies[b].name;
      problem_.trees.push_back(std::move(t));
    }
  }
  robot_of_tree_.clear();
  robot_of_tree_.resize(problem_.trees.size(), -1);
  for (size_t r = 0; r < tree_of_robot_.size(); ++r) {
    const int o = tree_of_robot_[r];
    if (o < 0) continue;
    tree_of_robot_[r] = static_cast<int>(problem_.trees.size());
    robot_of_tree_.push_back(static_cast<int>(r));
    old_index.push_back(o);
    problem_.trees.push_back(std::move(old_trees[o]));
  }
  tree_offsets_ = problem_.TreeOffsets();
  guess_.setZero(problem_.num_velocities());
  // The warm start's history moves with its trees; a woken body was at rest.
  if (have_previous_guess_) {
    const Eigen::VectorXd old_previous = previous_guess_;
    previous_guess_.setZero(guess_.size());
    for (size_t t = 0; t < problem_.trees.size(); ++t) {
      const int o = old_index[t];
      if (o < 0) continue;
      const Eigen::Index n = problem_.trees[t].v_star.size();
      previous_guess_.segment(tree_offsets_[t], n) =
          old_previous.segment(old_offsets[o], n);
    }
  }
}

void TimeStepper::UpdateSleep(StepInfo* info) {
  const int nb = static_cast<int>(scene_.bodies.size());
  const double dt = scene_.time_step;
  const SolverSettings& settings = scene_.solver;
  // Still time of the awake bodies (0: moved faster than the threshold).
  for (int b : free_bodies_) {
    if (IsAsleep(b)) continue;
    const BodyState& s = state_[b];
    const double speed =
        s.velocity.norm() + s.angular_velocity.norm() * bounding_radius_[b];
    still_time_[b] = speed < settings.sleep_speed ? still_time_[b] + dt : 0.0;
    if (!applied_force_[b].isZero(0) || !applied_torque_[b].isZero(0)) {
      still_time_[b] = 0.0;
    }
  }
  for (const ExternalForce& f : scene_.external_forces) {
    if (f.body < 0 || IsAsleep(f.body) || scene_.bodies[f.body].fixed) {
      continue;
    }
    if (!f.force.Value(time_).isZero(0) || !f.torque.Value(time_).isZero(0)) {
      still_time_[f.body] = 0.0;
    }
  }
  // Islands of this step's contacts; a contact with a robot link or a
  // moving kinematic body keeps its body awake.
  island_sets_.Reset(nb);
  auto mover = [&](int c) {
    return c >= nb || (scene_.bodies[c].prescribed && !resting_[c]);
  };
  auto free_body = [&](int c) { return c < nb && !scene_.bodies[c].fixed; };
  for (const ContactPoint& cp : contacts_) {
    const int a = cp.body_a, b = cp.body_b;
    if (free_body(a) && free_body(b)) {
      island_sets_.Unite(a, b);
    } else if (free_body(b) && mover(a)) {
      still_time_[b] = 0.0;
    } else if (free_body(a) && mover(b)) {
      still_time_[a] = 0.0;
    }
  }
  island_still_.assign(nb, std::numeric_limits<double>::infinity());
  for (int b : free_bodies_) {
    if (IsAsleep(b)) continue;
    double& m = island_still_[island_sets_.Find(b)];
    m = std::min(m, still_time_[b]);
  }
  for (int b : free_bodies_) {
    if (IsAsleep(b)) continue;
    const int root = island_sets_.Find(b);
    const double still = island_still_[root];
    if (!(still > 0.0 && still >= settings.sleep_time)) continue;
    sleep_island_[b] = root;
    state_[b].velocity.setZero();
    state_[b].angular_velocity.setZero();
    ++num_sleeping_;
    trees_stale_ = true;
  }
  info->sleeping_bodies = num_sleeping_;
}

}  // namespace sapcontact
