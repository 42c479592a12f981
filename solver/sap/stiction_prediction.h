// Stiction prediction (docs/theory.md §16) for SapSolver's Newton
// iteration: contacts whose slip the last Newton direction reversed enter
// the next Newton system with their stiction model (impulse y, Hessian
// block R^-1) instead of their sliding one, so that a contact that is about
// to stick does not cost one Newton iteration per halving of its slip.
//
// Each contact of the model carries a StictionMark across the iterations of
// one solve; the two functions below are the two moments it changes: before
// an island's Newton system is assembled (MarkPredictedStiction), and once
// its direction is known (MarkReversedSlip).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sapcontact/solver/sap/newton_island.h"
#include "sapcontact/solver/sap/sap_model.h"

namespace sapcontact {

/// A contact's state in stiction prediction.
enum StictionMark : char {
  kUnmarked = 0,   ///< not predicted
  kMarked = 1,     ///< the last direction reversed its slip: enters the next
                   ///< Newton system with its stiction model
  kPredicted = 2,  ///< in the system of the last direction
  kSlidesAtFullStep = 3,  ///< in it, and still sliding at that direction's
                          ///< full step
};

/// Marked contacts still sliding after a predicted step of at least this
/// alpha were predicted wrongly and are released (measured on the sphere
/// piles and the clutter: 0.9 to 1 alike, 0.5 ~10% more iterations).
inline constexpr double kStictionReleaseStep = 0.95;

/// Before island `island`'s Newton system is assembled: each of its
/// contacts that is marked, still sliding (`regions`, at the current
/// iterate v_c) and not released becomes kPredicted, its Hessian block in
/// *G becomes its stiction block R^-1 and its segment of *stick_delta the
/// change y - gamma of its impulse; every other contact of the island
/// becomes kUnmarked with zero *stick_delta. A contact is released when
/// the island's last step was predicted and taken (nearly) in full
/// (alpha >= kStictionReleaseStep) and it would still have slid at that
/// full step; `suspended` (a prediction was just rejected) releases all.
/// Returns the number of kPredicted contacts. Vectors are stacked as in
/// SapModel (3 rows per contact, model order).
int MarkPredictedStiction(const SapModel& model, const SapModel::Island& island,
                          const NewtonIslandState& state,
                          const Eigen::VectorXd& v_c,
                          const Eigen::VectorXd& gamma,
                          const std::vector<ProjectionRegion>& regions,
                          std::vector<char>* marks,
                          SapModel::ConstraintHessians* G,
                          Eigen::VectorXd* stick_delta);

/// Once island `island`'s direction dv_c = J dv is known: a sliding, unmarked
/// contact whose tangential velocity v_t the full step reverses
/// (v_t . (v_t + dv_t) < 0) becomes kMarked; a kPredicted contact that would
/// still slide at the full step becomes kSlidesAtFullStep.
void MarkReversedSlip(const SapModel& model, const SapModel::Island& island,
                      const Eigen::VectorXd& v_c, const Eigen::VectorXd& dv_c,
                      const std::vector<ProjectionRegion>& regions,
                      std::vector<char>* marks);

}  // namespace sapcontact
