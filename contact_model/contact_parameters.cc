#include "sapcontact/contact_model/contact_parameters.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace {

[[noreturn]] void Fail(const std::string& context, const char* name,
                       double value, const char* requirement) {
  std::ostringstream os;
  if (!context.empty()) os << context << ": ";
  os << "invalid " << name << " = " << value << " (" << requirement << ")";
  throw std::invalid_argument(os.str());
}

}  // namespace

const char* ToString(ContactModel model) {
  switch (model) {
    case ContactModel::kSap:
      return "sap";
    case ContactModel::kSimilar:
      return "similar";
    case ContactModel::kLagged:
      return "lagged";
  }
  return "unknown";
}

bool ParseContactModel(const std::string& text, ContactModel* model) {
  for (ContactModel m :
       {ContactModel::kSap, ContactModel::kSimilar, ContactModel::kLagged}) {
    if (text == ToString(m)) {
      *model = m;
      return true;
    }
  }
  return false;
}

void Validate(const ContactParameters& p, const std::string& context) {
  // stiffness may be +inf, but not NaN (NaN fails every comparison).
  if (!(p.stiffness > 0.0)) {
    Fail(context, "stiffness", p.stiffness, "must be > 0 N/m, may be inf");
  }
  if (!(p.dissipation_time_scale >= 0.0) ||
      std::isinf(p.dissipation_time_scale)) {
    Fail(context, "dissipation_time_scale", p.dissipation_time_scale,
         "must be finite and >= 0 s");
  }
  if (!(p.friction >= 0.0) || std::isinf(p.friction)) {
    Fail(context, "friction", p.friction, "must be finite and >= 0");
  }
  if (p.model != ContactModel::kSap && p.model != ContactModel::kSimilar &&
      p.model != ContactModel::kLagged) {
    Fail(context, "model", static_cast<int>(p.model),
         "must be sap, similar or lagged");
  }
  if (!(p.hunt_crossley_dissipation >= 0.0) ||
      std::isinf(p.hunt_crossley_dissipation)) {
    Fail(context, "hunt_crossley_dissipation", p.hunt_crossley_dissipation,
         "must be finite and >= 0 s/m");
  }
  if (!(p.stiction_tolerance > 0.0) || std::isinf(p.stiction_tolerance)) {
    Fail(context, "stiction_tolerance", p.stiction_tolerance,
         "must be finite and > 0 m/s");
  }
}

void Validate(const RegularizationParameters& p, const std::string& context) {
  if (!(p.near_rigid_threshold >= 0.0) || std::isinf(p.near_rigid_threshold)) {
    Fail(context, "near_rigid_threshold (beta)", p.near_rigid_threshold,
         "must be finite and >= 0");
  }
  if (!(p.friction_regularization > 0.0) ||
      std::isinf(p.friction_regularization)) {
    Fail(context, "friction_regularization (sigma)", p.friction_regularization,
         "must be finite and > 0");
  }
  if (!(p.soft_norm_tolerance >= 0.0) || std::isinf(p.soft_norm_tolerance)) {
    Fail(context, "soft_norm_tolerance (epsilon_s)", p.soft_norm_tolerance,
         "must be finite and >= 0 N*s");
  }
  if (!(p.constraint_near_rigid_threshold >= 0.0) ||
      std::isinf(p.constraint_near_rigid_threshold)) {
    Fail(context, "constraint_near_rigid_threshold",
         p.constraint_near_rigid_threshold, "must be finite and >= 0");
  }
}

void ValidateTimeStep(double dt, const std::string& context) {
  if (!(dt > 0.0) || std::isinf(dt)) {
    Fail(context, "time_step (dt)", dt, "must be finite and > 0 s");
  }
}

}  // namespace sapcontact
