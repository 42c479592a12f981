#include "sapcontact/solver/sap/stiction_prediction.h"

namespace sapcontact {

int MarkPredictedStiction(const SapModel& model, const SapModel::Island& island,
                          const NewtonIslandState& state,
                          const Eigen::VectorXd& v_c,
                          const Eigen::VectorXd& gamma,
                          const std::vector<ProjectionRegion>& regions,
                          std::vector<char>* marks,
                          SapModel::ConstraintHessians* G,
                          Eigen::VectorXd* stick_delta) {
  std::vector<char>& mark = *marks;
  // A contact of the last predicted system that still slides after that
  // step was taken (nearly) in full, and would still have slid at its full
  // step, was predicted wrongly. (One that would have stuck at the full
  // step is only short of its band by the step's 1 - alpha: it stays.)
  const bool release =
      state.last_step_predicted && state.last_alpha >= kStictionReleaseStep;
  int predicted = 0;
  for (int k : island.contacts) {
    if (mark[k] != kUnmarked && !state.suspend_prediction &&
        !(release && mark[k] == kSlidesAtFullStep) &&
        regions[k] == ProjectionRegion::kSliding) {
      mark[k] = kPredicted;
      Vector3 y;
      model.contacts()[k].constraint.EvaluateAsStiction(v_c.segment<3>(3 * k),
                                                        &y, &G->contacts[k]);
      stick_delta->segment<3>(3 * k) = y - gamma.segment<3>(3 * k);
      ++predicted;
    } else {
      mark[k] = kUnmarked;
      stick_delta->segment<3>(3 * k).setZero();
    }
  }
  return predicted;
}

void MarkReversedSlip(const SapModel& model, const SapModel::Island& island,
                      const Eigen::VectorXd& v_c, const Eigen::VectorXd& dv_c,
                      const std::vector<ProjectionRegion>& regions,
                      std::vector<char>* marks) {
  std::vector<char>& mark = *marks;
  for (int k : island.contacts) {
    if (mark[k] == kPredicted) {
      ContactConstraintState full;
      model.contacts()[k].constraint.Evaluate(
          v_c.segment<3>(3 * k) + dv_c.segment<3>(3 * k), false, &full);
      if (full.region == ProjectionRegion::kSliding) {
        mark[k] = kSlidesAtFullStep;
      }
      continue;
    }
    if (regions[k] != ProjectionRegion::kSliding || mark[k] != kUnmarked) {
      continue;
    }
    const auto v_t = v_c.segment<2>(3 * k + kTangent1);
    if (v_t.dot(v_t + dv_c.segment<2>(3 * k + kTangent1)) < 0.0) {
      mark[k] = kMarked;
    }
  }
}

}  // namespace sapcontact
