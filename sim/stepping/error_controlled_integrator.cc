#include "sapcontact/sim/stepping/error_controlled_integrator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sapcontact/sim/scene/scene_limits.h"

namespace sapcontact {
namespace {

// Adds the work of `s` (iterations, times, counters) to `sum`.
void AddWork(const StepInfo& s, StepInfo* sum) {
  sum->newton_iterations += s.newton_iterations;
  sum->solver_time += s.solver_time;
  sum->collision_time += s.collision_time;
  StepInfo::SolverCounters& c = sum->counters;
  c.islands = std::max(c.islands, s.counters.islands);
  c.largest_island_velocities = std::max(c.largest_island_velocities,
                                         s.counters.largest_island_velocities);
  c.penetrating_contacts =
      std::max(c.penetrating_contacts, s.counters.penetrating_contacts);
  c.speculative_contacts =
      std::max(c.speculative_contacts, s.counters.speculative_contacts);
  c.excluded_contacts =
      std::max(c.excluded_contacts, s.counters.excluded_contacts);
  c.factorizations += s.counters.factorizations;
  c.low_rank_updates += s.counters.low_rank_updates;
  c.line_search_evaluations += s.counters.line_search_evaluations;
}

}  // namespace

double ErrorNorm(const std::vector<BodyState>& a,
                 const std::vector<RobotState>& a_robots,
                 const std::vector<BodyState>& b,
                 const std::vector<RobotState>& b_robots, double accuracy,
                 double step) {
  double e = 0.0;
  const auto velocity = [&](double x, double y) {
    return step * std::abs(x - y) / accuracy;
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const BodyState &p = a[i], &q = b[i];
    e = std::max(e, (p.pose.position - q.pose.position).cwiseAbs().maxCoeff() /
                        accuracy);
    e = std::max(
        e, p.pose.orientation.angularDistance(q.pose.orientation) / accuracy);
    for (int k = 0; k < 3; ++k) {
      e = std::max(e, velocity(p.velocity[k], q.velocity[k]));
      e = std::max(e, velocity(p.angular_velocity[k], q.angular_velocity[k]));
    }
  }
  for (size_t r = 0; r < a_robots.size(); ++r) {
    const RobotState &p = a_robots[r], &q = b_robots[r];
    if (p.q.size() > 0) {
      e = std::max(e, (p.q - q.q).cwiseAbs().maxCoeff() / accuracy);
    }
    for (int k = 0; k < p.v.size(); ++k)
      e = std::max(e, velocity(p.v[k], q.v[k]));
  }
  return e;
}

ErrorControlledIntegrator::ErrorControlledIntegrator(
    TimeStepper* stepper, const IntegratorSettings& settings, double first_step)
    : stepper_(stepper), settings_(settings) {
  if (!(settings.accuracy >= scene_limits::kMinAccuracy &&
        settings.accuracy <= scene_limits::kMaxAccuracy)) {
    throw std::invalid_argument(
        "integrator.accuracy: " + std::to_string(settings.accuracy) +
        " is outside [1e-10, 1]");
  }
  if (!(first_step > 0.0)) {
    throw std::invalid_argument("the first step must be > 0 s");
  }
  // max_step 0: the first step; min_step at most max_step.
  if (!(settings_.max_step > 0.0)) settings_.max_step = first_step;
  if (!(settings_.min_step > 0.0)) {
    throw std::invalid_argument("integrator.min_step: must be > 0 s");
  }
  settings_.min_step = std::min(settings_.min_step, settings_.max_step);
  h_ = std::min(first_step, settings_.max_step);
}

ErrorControlledStep ErrorControlledIntegrator::Step(double t_end) {
  ErrorControlledStep out;
  const double t0 = stepper_->time();
  stepper_->Save(&start_);
  for (;;) {
    // Land on t_end: never pass it, never leave a sliver before it.
    const double left = t_end - t0;
    double h = h_;
    bool landing = false;
    // (Relative 1e-9: the time, a sum of steps, carries their round-off.)
    if (h >= left * (1.0 - 1e-9) ||
        (left - h < 0.1 * h && left <= settings_.max_step * (1.0 + 1e-9))) {
      h = left;  // shortened, or stretched by less than a tenth
      landing = true;
    } else if (left - h < 0.1 * h) {
      h = 0.5 * left;  // two steps to t_end rather than one and a sliver
    }
    // The full step, then (from the same state) two half steps.
    stepper_->SetTimeStep(h);
    const StepInfo full = stepper_->Step();
    AddWork(full, &out.info);
    full_bodies_ = stepper_->state();
    full_robots_ = stepper_->robot_states();
    full_velocities_ = stepper_->last_velocities();
    stepper_->Restore(start_);
    stepper_->SetTimeStep(0.5 * h);
    // The half steps also start from the full step's velocities (CENIC's
    // warm start): the second half step ends where the full step did.
    stepper_->SetWarmStartHint(full_velocities_);
    const StepInfo first = stepper_->Step();
    stepper_->SetWarmStartHint(full_velocities_);
    const StepInfo second = stepper_->Step();
    AddWork(first, &out.info);
    AddWork(second, &out.info);
    out.solves += 3;
    const double error =
        ErrorNorm(full_bodies_, full_robots_, stepper_->state(),
                  stepper_->robot_states(), settings_.accuracy, h);
    // A non-finite estimate shrinks the step as much as one change may.
    const double factor = !std::isfinite(error) ? kMinShrink
                          : error > 0.0 ? std::clamp(kSafety / std::sqrt(error),
                                                     kMinShrink, kMaxGrowth)
                                        : kMaxGrowth;
    const bool smallest = h <= settings_.min_step * (1.0 + 1e-12);
    if (error <= 1.0 || smallest) {
      out.step_size = h;
      out.error_estimate = error;
      out.at_min_step = error > 1.0;
      // The whole step's findings: contacts and hover where it ends, the
      // elastic energy where it starts, the deeper penetration.
      out.info.contacts = second.contacts;
      out.info.failed = first.failed || second.failed;
      out.info.failure = first.failed ? first.failure : second.failure;
      out.info.max_penetration =
          std::max(first.max_penetration, second.max_penetration);
      out.info.max_hover = second.max_hover;
      out.info.hover_contact = second.hover_contact;
      out.info.elastic_energy = first.elastic_energy;
      out.info.sleeping_bodies = second.sleeping_bodies;
      // No growth right after a rejection (it would likely be rejected
      // again; Hairer, Norsett and Wanner, II.4). A landing step shorter
      // than the controller's choice does not shrink the next one.
      const double proposed =
          std::clamp(h * (out.rejected > 0 ? std::min(factor, 1.0) : factor),
                     settings_.min_step, settings_.max_step);
      h_ = landing && error <= 1.0 ? std::max(proposed, h_) : proposed;
      return out;
    }
    ++out.rejected;
    stepper_->Restore(start_);
    h_ = std::max(settings_.min_step, h * factor);
  }
}

}  // namespace sapcontact
