// The contact phase of a step (TimeStepper, sim/stepping/time_stepper.h):
// the problem built, solved by SAP (from the warm start's candidates,
// docs/theory.md §7) or by the rigid-contact QP, and what the solve says
// about the step: non-finite velocities, gliding.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

namespace sapcontact {

void TimeStepper::SolveContacts(StepInfo* info) {
  BuildProblem();
  if (scene_.solver.sleep &&
      last_.problem.trees.empty()) {  // everything sleeps
    last_.v_next.resize(0);
    last_.impulses.resize(0);
    warm_start_.previous_guess.resize(0);
    last_.sap_results = SapSolverResults();
    return;
  }
  if (scene_.solver.model == SolverModel::kSap) {
    SolveSap(info);
  } else {
    SolveRigidQp(info);
  }
}

void TimeStepper::SolveSap(StepInfo* info) {
  const double dt = scene_.time_step;
  try {
    if (warm_start_.have_previous_guess) {
      const double r =
          warm_start_.previous_dt > 0.0 ? dt / warm_start_.previous_dt : 1.0;
      if (r == 1.0) {
        warm_start_.extrapolated_guess =
            2.0 * step_.guess - warm_start_.previous_guess;
      } else {
        warm_start_.extrapolated_guess =
            step_.guess + r * (step_.guess - warm_start_.previous_guess);
      }
      warm_start_.candidates.assign(
          {&warm_start_.extrapolated_guess, &step_.guess});
    } else {
      warm_start_.candidates.assign({&step_.guess});
    }
    if (warm_start_.have_hint &&
        warm_start_.hint.size() == step_.guess.size()) {
      warm_start_.candidates.push_back(&warm_start_.hint);
    }
    warm_start_.have_hint = false;
    // Into the kept results: no allocation per step.
    sap_.SolveFromCandidates(last_.problem, warm_start_.candidates,
                             &last_.sap_results);
    warm_start_.previous_guess = step_.guess;
    warm_start_.have_previous_guess = true;
    warm_start_.previous_dt = dt;
  } catch (const std::invalid_argument& e) {
    Fail("contact solver: " + NameBodies(e.what()));
  }
  const SapSolverResults& r = last_.sap_results;
  info->newton_iterations = r.statistics.newton_iterations;
  const SapSolverStatistics& st = r.statistics;
  StepInfo::SolverCounters& c = info->counters;
  c.islands = st.islands;
  c.largest_island_velocities = st.largest_island_velocities;
  c.penetrating_contacts = st.penetrating_contacts;
  c.speculative_contacts = st.speculative_contacts;
  c.excluded_contacts = st.excluded_contacts;
  c.factorizations = st.factorizations;
  c.low_rank_updates = st.low_rank_updates;
  c.line_search_evaluations = st.line_search_iterations;
  info->failed = !r.converged();
  if (info->failed) {
    info->failure = r.message;
    // A robot past its velocity limits: the likely cause, named.
    for (int i = 0; i < static_cast<int>(scene_.robots.size()); ++i) {
      info->failure += DivergenceNote(i);
    }
  }
  last_.v_next = r.v;  // kept: no allocation per step
  last_.impulses = r.gamma;
  // Elastic energy k_eff phi0^2 / 2 with the solver's effective
  // stiffness (each contact model's own; the near-rigid floor's beyond
  // it). Fallback for a solver that does not report it: sap's
  // 1 / (dt (dt + tau_d) R_n).
  const bool have_k_eff = r.effective_stiffness.size() ==
                          static_cast<Eigen::Index>(last_.contacts.size());
  for (size_t k = 0; k < last_.contacts.size(); ++k) {
    const double phi = last_.contacts[k].phi;
    if (phi >= 0) continue;
    double k_eff;
    if (have_k_eff) {
      k_eff = r.effective_stiffness(k);
    } else {
      const double tau =
          last_.problem.contacts[k].parameters.dissipation_time_scale;
      k_eff = 1.0 / (dt * (dt + tau) * r.R_n(k));
    }
    info->elastic_energy += 0.5 * k_eff * phi * phi;
  }
}

void TimeStepper::SolveRigidQp(StepInfo* info) {
  std::vector<bool> fixed(scene_.bodies.size());
  for (size_t b = 0; b < fixed.size(); ++b) fixed[b] = scene_.bodies[b].fixed;
  const double bytes = EstimateRigidQpBytes(
      last_.contacts, static_cast<int>(scene_.bodies.size()), fixed);
  if (bytes > scene_limits::kMaxRigidQpBytes) {
    char what[256];
    std::snprintf(what, sizeof(what),
                  "rigid contact solver: %zu contacts would need about %.3g "
                  "GB, more than the %.3g GB budget (docs/scenes.md, "
                  "Limits): bodies piled at one place? (the sap model "
                  "needs far less)",
                  last_.contacts.size(), bytes / 1e9,
                  scene_limits::kMaxRigidQpBytes / 1e9);
    try {
      Fail(what);
    } catch (SimulationError& limit) {
      limit.set_limit_exceeded(true);
      throw;
    }
  }
  RigidQpResult r;
  try {
    r = SolveRigidContactQp(last_.problem);
  } catch (const std::invalid_argument& e) {
    Fail("rigid contact solver: " + NameBodies(e.what()));
  }
  info->newton_iterations = r.iterations;
  // Reduced accuracy (residuals below 1e-6) is a usable solution; the
  // iteration limit leaves usable impulses (in the cones, not optimal), a
  // failed step; after a numerical error or an infeasibility report the
  // impulses must not be used: the step keeps the old velocities.
  info->failed = r.status != RigidQpStatus::kSolved &&
                 r.status != RigidQpStatus::kSolvedReducedAccuracy;
  if (info->failed) {
    info->failure = std::string(ToString(r.status)) + ": " + r.reason;
  }
  const bool usable = r.status == RigidQpStatus::kSolved ||
                      r.status == RigidQpStatus::kSolvedReducedAccuracy ||
                      r.status == RigidQpStatus::kMaxIterations;
  if (usable && r.velocities.size() == step_.guess.size() &&
      r.velocities.allFinite()) {
    last_.v_next = r.velocities;
    last_.impulses = r.impulses;
  } else {
    last_.v_next = step_.guess;
    last_.impulses.setZero(3 * last_.problem.contacts.size());
  }
}

void TimeStepper::CheckVelocities(const StepInfo& info) const {
  const Eigen::VectorXd& v_next = last_.v_next;
  if (v_next.size() == step_.guess.size() && v_next.allFinite()) return;
  for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
    if (v_next.size() == step_.guess.size() &&
        v_next.segment<6>(6 * t).allFinite()) {
      continue;
    }
    Fail(BodyLabel(layout_.body_of_tree[t]) +
         ": velocity is not finite after the contact solve" +
         (info.failed ? " (" + info.failure + ")" : ""));
  }
}

void TimeStepper::MeasureGliding(StepInfo* info) const {
  // Gliding (StepInfo::max_hover): contacts that push while sliding,
  // across a gap at the end of the step.
  if (last_.impulses.size() !=
      3 * static_cast<Eigen::Index>(last_.contacts.size())) {
    return;
  }
  const double dt = scene_.time_step;
  for (size_t k = 0; k < last_.contacts.size(); ++k) {
    if (!(last_.impulses(3 * k + kNormal) > 0.0)) continue;
    const Vector3 v_c = ContactVelocity(last_.problem.contacts[k],
                                        layout_.tree_offsets, last_.v_next);
    if (!(Tangential(v_c).norm() > kHoverSlipSpeed)) continue;
    const double gap = last_.contacts[k].phi + dt * v_c(kNormal);
    if (gap > info->max_hover) {
      info->max_hover = gap;
      info->hover_contact = static_cast<int>(k);
    }
  }
}

}  // namespace sapcontact
