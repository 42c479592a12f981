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
  return body >= 0 && body < static_cast<int>(sleep_.sleep_island.size()) &&
         sleep_.sleep_island[body] >= 0;
}

int TimeStepper::ProblemTree(int body) const {
  if (body < 0 || body >= static_cast<int>(layout_.tree_of_body.size()))
    return -1;
  return layout_.tree_of_body[body];
}

void TimeStepper::WakeUp(int body) {
  if (body < 0 || body >= static_cast<int>(scene_.bodies.size())) {
    throw std::invalid_argument("TimeStepper::WakeUp: no body " +
                                std::to_string(body));
  }
  WakeIsland(body);
}

void TimeStepper::WakeIsland(int body) {
  const int island = sleep_.sleep_island[body];
  if (island < 0) return;
  for (int b : layout_.free_bodies) {
    if (sleep_.sleep_island[b] != island) continue;
    sleep_.sleep_island[b] = -1;
    sleep_.still_time[b] = 0.0;
    --sleep_.num_sleeping;
  }
  sleep_.trees_stale = true;
}

void TimeStepper::WakeAll() {
  if (sleep_.num_sleeping == 0) return;
  for (int b : layout_.free_bodies) {
    sleep_.sleep_island[b] = -1;
    sleep_.still_time[b] = 0.0;
  }
  sleep_.num_sleeping = 0;
  sleep_.trees_stale = true;
}

void TimeStepper::PrepareSleep() {
  if (sleep_.num_sleeping > 0) {
    // An external force that acts during this step wakes its body.
    const double t_end = step_.time + scene_.time_step;
    for (const ExternalForce& f : scene_.external_forces) {
      if (!IsAsleep(f.body)) continue;
      if (!f.force.Value(t_end).isZero(0) || !f.torque.Value(t_end).isZero(0)) {
        WakeIsland(f.body);
      }
    }
  }
  if (sleep_.trees_stale) RemapTrees();
}

void TimeStepper::UpdateResting() {
  const int nb = static_cast<int>(scene_.bodies.size());
  const double t_end = step_.time + scene_.time_step;
  bool changed = false;
  if (sleep_.resting.size() != static_cast<size_t>(num_colliders())) {
    sleep_.resting.assign(num_colliders(), false);  // robot links never rest
    changed = true;
  }
  for (int b = 0; b < nb; ++b) {
    const Body& body = scene_.bodies[b];
    bool rest = IsAsleep(b);
    if (body.fixed && !body.prescribed) {
      rest = true;
    } else if (body.prescribed) {  // velocities of this step: poses updated
      const BodyState& s = step_.state[b];
      rest = s.velocity.isZero(0) && s.angular_velocity.isZero(0) &&
             body.motion.surface_velocity.Value(t_end).isZero(0);
    }
    if (sleep_.resting[b] != rest) {
      sleep_.resting[b] = rest;
      changed = true;
    }
  }
  if (changed) collision_.SetResting(sleep_.resting);
}

bool TimeStepper::WakeTouchedIslands() {
  const int nb = static_cast<int>(scene_.bodies.size());
  bool woke = false;
  for (const ContactPoint& cp : last_.contacts) {
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
  sleep_.trees_stale = false;
  const int nb = static_cast<int>(scene_.bodies.size());
  const std::vector<int> old_tree_of_body = layout_.tree_of_body;
  const std::vector<int> old_offsets = layout_.tree_offsets;
  std::vector<Tree> old_trees = std::move(last_.problem.trees);
  last_.problem.trees.clear();
  layout_.body_of_tree.clear();
  layout_.tree_of_body.assign(nb, -1);
  std::vector<int> old_index;  // per new tree: its old index or -1
  for (int b : layout_.free_bodies) {
    if (IsAsleep(b)) continue;
    layout_.tree_of_body[b] = static_cast<int>(last_.problem.trees.size());
    layout_.body_of_tree.push_back(b);
    const int o = old_tree_of_body[b];
    old_index.push_back(o);
    if (o >= 0) {
      last_.problem.trees.push_back(std::move(old_trees[o]));
    } else {
      Tree t;
      t.A = Eigen::MatrixXd::Zero(6, 6);
      t.v_star = Eigen::VectorXd::Zero(6);
      t.name = scene_.bodies[b].name;
      last_.problem.trees.push_back(std::move(t));
    }
  }
  layout_.robot_of_tree.clear();
  layout_.robot_of_tree.resize(last_.problem.trees.size(), -1);
  for (size_t r = 0; r < layout_.tree_of_robot.size(); ++r) {
    const int o = layout_.tree_of_robot[r];
    if (o < 0) continue;
    layout_.tree_of_robot[r] = static_cast<int>(last_.problem.trees.size());
    layout_.robot_of_tree.push_back(static_cast<int>(r));
    old_index.push_back(o);
    last_.problem.trees.push_back(std::move(old_trees[o]));
  }
  layout_.tree_offsets = last_.problem.TreeOffsets();
  step_.guess.setZero(last_.problem.num_velocities());
  // The warm start's history moves with its trees; a woken body was at rest.
  if (warm_start_.have_previous_guess) {
    const Eigen::VectorXd old_previous = warm_start_.previous_guess;
    warm_start_.previous_guess.setZero(step_.guess.size());
    for (size_t t = 0; t < last_.problem.trees.size(); ++t) {
      const int o = old_index[t];
      if (o < 0) continue;
      const Eigen::Index n = last_.problem.trees[t].v_star.size();
      warm_start_.previous_guess.segment(layout_.tree_offsets[t], n) =
          old_previous.segment(old_offsets[o], n);
    }
  }
}

void TimeStepper::UpdateSleep(StepInfo* info) {
  const int nb = static_cast<int>(scene_.bodies.size());
  const double dt = scene_.time_step;
  const SolverSettings& settings = scene_.solver;
  // Still time of the awake bodies (0: moved faster than the threshold).
  for (int b : layout_.free_bodies) {
    if (IsAsleep(b)) continue;
    const BodyState& s = step_.state[b];
    const double speed = s.velocity.norm() +
                         s.angular_velocity.norm() * sleep_.bounding_radius[b];
    sleep_.still_time[b] =
        speed < settings.sleep_speed ? sleep_.still_time[b] + dt : 0.0;
    if (!inputs_.applied_force[b].isZero(0) ||
        !inputs_.applied_torque[b].isZero(0)) {
      sleep_.still_time[b] = 0.0;
    }
  }
  for (const ExternalForce& f : scene_.external_forces) {
    if (f.body < 0 || IsAsleep(f.body) || scene_.bodies[f.body].fixed) {
      continue;
    }
    if (!f.force.Value(step_.time).isZero(0) ||
        !f.torque.Value(step_.time).isZero(0)) {
      sleep_.still_time[f.body] = 0.0;
    }
  }
  // Islands of this step's contacts; a contact with a robot link or a
  // moving kinematic body keeps its body awake.
  sleep_.island_sets.Reset(nb);
  auto mover = [&](int c) {
    return c >= nb || (scene_.bodies[c].prescribed && !sleep_.resting[c]);
  };
  auto free_body = [&](int c) { return c < nb && !scene_.bodies[c].fixed; };
  for (const ContactPoint& cp : last_.contacts) {
    const int a = cp.body_a, b = cp.body_b;
    if (free_body(a) && free_body(b)) {
      sleep_.island_sets.Unite(a, b);
    } else if (free_body(b) && mover(a)) {
      sleep_.still_time[b] = 0.0;
    } else if (free_body(a) && mover(b)) {
      sleep_.still_time[a] = 0.0;
    }
  }
  sleep_.island_still.assign(nb, std::numeric_limits<double>::infinity());
  for (int b : layout_.free_bodies) {
    if (IsAsleep(b)) continue;
    double& m = sleep_.island_still[sleep_.island_sets.Find(b)];
    m = std::min(m, sleep_.still_time[b]);
  }
  for (int b : layout_.free_bodies) {
    if (IsAsleep(b)) continue;
    const int root = sleep_.island_sets.Find(b);
    const double still = sleep_.island_still[root];
    if (!(still > 0.0 && still >= settings.sleep_time)) continue;
    sleep_.sleep_island[b] = root;
    step_.state[b].velocity.setZero();
    step_.state[b].angular_velocity.setZero();
    ++sleep_.num_sleeping;
    sleep_.trees_stale = true;
  }
  info->sleeping_bodies = sleep_.num_sleeping;
}

}  // namespace sapcontact
