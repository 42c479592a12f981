#include "sapcontact/studies/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "sapcontact/contact_model/regime_estimates.h"

namespace sapcontact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Means over the active contacts (gamma_n > 0) of one step.
struct ActiveContacts {
  int n{0};
  Vector3 normal{Vector3::Zero()};
  double w{0}, R_n{0}, R_t{0}, k{0}, tau_d{0}, mu{0}, v_s{0};
  // Every active contact uses a Hunt-Crossley model (similar or lagged).
  bool hunt_crossley{false};
};

bool IsHuntCrossley(const ContactParameters& p) {
  return p.model == ContactModel::kSimilar || p.model == ContactModel::kLagged;
}

ActiveContacts Active(const StepSample& s) {
  ActiveContacts a;
  bool all_hunt_crossley = true;
  for (const ContactSample& c : s.contacts) {
    if (!(c.impulse(kNormal) > 0)) continue;
    ++a.n;
    a.normal += c.normal;
    a.w += c.w;
    a.R_n += c.R_n;
    a.R_t += c.R_t;
    a.k += c.parameters.stiffness;
    a.tau_d += c.parameters.dissipation_time_scale;
    a.mu += c.parameters.friction;
    a.v_s += c.parameters.stiction_tolerance;
    all_hunt_crossley = all_hunt_crossley && IsHuntCrossley(c.parameters);
  }
  if (a.n > 0) {
    a.hunt_crossley = all_hunt_crossley;
    a.v_s /= a.n;
    a.w /= a.n;
    a.R_n /= a.n;
    a.R_t /= a.n;
    a.k /= a.n;
    a.tau_d /= a.n;
    a.mu /= a.n;
    if (a.normal.norm() > 0) a.normal.normalize();
  }
  return a;
}

// Restitution e of the continuous Hunt-Crossley impact with u = d v_i > 0
// (metrics.h): G(-e u) = G(u), G(x) = x - ln(1 + x), by bisection on
// e in (0, 1) (G(-x) grows from 0 to infinity on [0, 1)).
double HuntCrossleyRestitution(double u) {
  const double target = u - std::log1p(u);
  double lo = 0, hi = std::min(1.0, 1.0 / u);
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double e = 0.5 * (lo + hi);
    const double x = e * u;
    if (x >= 1 || -x - std::log1p(-x) > target) {
      hi = e;
    } else {
      lo = e;
    }
  }
  return 0.5 * (lo + hi);
}

double TangentialSpeed(const ContactSample& c) {
  return std::hypot(c.velocity(kTangent1), c.velocity(kTangent2));
}

}  // namespace

const std::vector<MetricDefinition>& MetricDefinitions() {
  static const std::vector<MetricDefinition> defs = {
      {"max_penetration_m", "m", "max over steps of max(-phi0, 0)", false},
      {"resting_penetration_m", "m",
       "mean over the last window_fraction of the run of the step's max "
       "penetration",
       false},
      {"stiction_slip_speed_mps", "m/s",
       "mean over the window of the mean tangential speed of active contacts",
       false},
      {"mean_newton_iterations", "-", "mean iterations per step", false},
      {"max_newton_iterations", "-", "max iterations of a step", false},
      {"us_per_step", "us", "mean wall time of collision + solve per step",
       false},
      {"hessian_condition_estimate", "-",
       "max over steps of 1 / (reciprocal condition estimate of the Hessian "
       "factorization)",
       false},
      {"energy_drift", "J", "E(last step) - E(first step)", false},
      {"hover_height_m", "m",
       "mean phi0 of sliding active contacts over the sliding steps", false},
      {"rigid_qp_impulse_distance", "-",
       "mean over steps of ||gamma_SAP - gamma_QP|| / ||gamma_QP||", true},
      {"rigid_qp_velocity_distance", "-",
       "mean over steps of ||v_SAP - v_QP|| / ||v* - v_QP||", true},
      {"rigid_qp_failed_steps", "-", "steps whose rigid QP did not solve",
       true},
      {"cold_start_newton_iterations", "-",
       "mean over steps with contacts of the iterations of a SAP solve "
       "started from v*",
       true},
      {"restitution", "-",
       "rebound speed / impact speed of the first impact of the first moving "
       "body, at separation",
       false},
  };
  return defs;
}

const std::vector<MetricDefinition>& EstimateDefinitions() {
  static const std::vector<MetricDefinition> defs = {
      {"estimate_resting_penetration_m", "m", "(M g_n / n) dt (dt + tau_d) R_n",
       false},
      {"estimate_compliant_penetration_m", "m", "M g_n / (n k)", false},
      {"estimate_near_rigid_penetration_m", "m",
       "(M g_n / n) dt (dt + tau_d) beta^2 w / (4 pi^2)", false},
      {"estimate_crossover_stiffness_N_per_m", "N/m",
       "4 pi^2 / (dt (dt + tau_d) beta^2 w)", false},
      {"estimate_stiction_slip_mps", "m/s",
       "sap: R_t M g_t dt / n; similar, lagged: eps r / sqrt(1 - r^2), r = "
       "g_t / (mu g_n), eps = max(v_s, mu R_t M g_n dt / n)",
       false},
      {"estimate_stiction_slip_bound_mps", "m/s", "sigma mu |g| dt", false},
      {"estimate_hover_height_m", "m",
       "mean over sliding steps of the steady phi0: h = (dt + tau_d) mu "
       "||v_t|| - delta, or dt / (dt + tau_d) h where h > 0 (sap), dt mu "
       "||v_t|| - delta / (1 + d mu ||v_t||) (similar), -delta (lagged); "
       "delta = M g_n / (n k_eff)",
       false},
      {"estimate_restitution", "-", "1 - (2/3) d v_i (similar, lagged impacts)",
       false},
      {"estimate_restitution_exact", "-",
       "e with G(-e d v_i) = G(d v_i), G(x) = x - ln(1 + x) (similar, lagged "
       "impacts)",
       false},
      {"impact_speed_mps", "m/s", "impact speed v_i of restitution", false},
      {"impact_dissipation_speed", "-", "d v_i (similar, lagged impacts)",
       false},
      {"contact_count", "-", "active contacts n at the last step", false},
      {"supported_mass_kg", "kg", "mass M carried by them", false},
      {"contact_stiffness_N_per_m", "N/m", "mean pair stiffness k", false},
      {"contact_dissipation_time_scale_s", "s", "mean pair tau_d", false},
      {"contact_delassus_estimate_per_kg", "1/kg", "mean w", false},
      {"contact_R_n", "s/kg", "mean R_n", false},
      {"contact_R_t", "s/kg", "mean R_t", false},
  };
  return defs;
}

const MetricDefinition* FindMetricDefinition(const std::string& name) {
  for (const auto* list : {&MetricDefinitions(), &EstimateDefinitions()}) {
    for (const MetricDefinition& d : *list) {
      if (d.name == name) return &d;
    }
  }
  return nullptr;
}

bool IsMetricName(const std::string& name) {
  for (const MetricDefinition& d : MetricDefinitions()) {
    if (d.name == name) return true;
  }
  BodyMetric body;
  JointMetric joint;
  return ParseBodyMetric(name, &body) || ParseJointMetric(name, &joint);
}

std::string MetricNameProblem(const std::string& name) {
  if (IsMetricName(name)) return "";
  if (name.rfind("body.", 0) == 0) {
    return "not a body metric: body.NAME.position or body.NAME.velocity, "
           "optionally followed by .x, .y or .z (docs/studies.md)";
  }
  if (name.rfind("joint.", 0) == 0) {
    return "not a joint metric: joint.ROBOT.JOINT.position, .velocity or "
           ".effort (docs/studies.md)";
  }
  std::string list;
  for (const MetricDefinition& d : MetricDefinitions()) list += d.name + ", ";
  return "unknown metric (known: " + list +
         "body.NAME.position, body.NAME.velocity, joint.ROBOT.JOINT.position, "
         "joint.ROBOT.JOINT.velocity, joint.ROBOT.JOINT.effort; "
         "docs/studies.md)";
}

bool ParseBodyMetric(const std::string& name, BodyMetric* metric) {
  const std::string prefix = "body.";
  if (name.rfind(prefix, 0) != 0) return false;
  std::string rest = name.substr(prefix.size());
  auto strip = [&rest](const std::string& suffix) {
    if (rest.size() <= suffix.size() ||
        rest.compare(rest.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return false;
    }
    rest.resize(rest.size() - suffix.size());
    return true;
  };
  BodyMetric m;
  const char* components[] = {".x", ".y", ".z"};
  for (int c = 0; c < 3; ++c) {
    if (strip(components[c])) {
      m.component = c;
      break;
    }
  }
  if (strip(".position")) {
    m.quantity = BodyMetric::Quantity::kPosition;
  } else if (strip(".velocity")) {
    m.quantity = BodyMetric::Quantity::kVelocity;
  } else {
    return false;
  }
  if (rest.empty()) return false;
  m.body = rest;
  *metric = m;
  return true;
}

bool ParseJointMetric(const std::string& name, JointMetric* metric) {
  const std::string prefix = "joint.";
  if (name.rfind(prefix, 0) != 0) return false;
  std::string rest = name.substr(prefix.size());
  JointMetric m;
  const std::pair<const char*, JointMetric::Quantity> suffixes[] = {
      {".position", JointMetric::Quantity::kPosition},
      {".velocity", JointMetric::Quantity::kVelocity},
      {".effort", JointMetric::Quantity::kEffort}};
  bool found = false;
  for (const auto& [suffix, quantity] : suffixes) {
    const size_t n = std::strlen(suffix);
    if (rest.size() > n && rest.compare(rest.size() - n, n, suffix) == 0) {
      rest.resize(rest.size() - n);
      m.quantity = quantity;
      found = true;
      break;
    }
  }
  const size_t dot = rest.find('.');
  if (!found || dot == 0 || dot == std::string::npos ||
      dot + 1 == rest.size()) {
    return false;
  }
  m.robot = rest.substr(0, dot);
  m.joint = rest.substr(dot + 1);
  *metric = m;
  return true;
}

std::vector<std::string> MetricColumns(const std::string& name) {
  BodyMetric body;
  if (ParseBodyMetric(name, &body) && body.component < 0) {
    return {name + ".x", name + ".y", name + ".z"};
  }
  return {name};
}

std::vector<std::string> MetricColumns(const std::vector<std::string>& names) {
  std::vector<std::string> columns;
  for (const std::string& name : names) {
    for (std::string& c : MetricColumns(name)) columns.push_back(std::move(c));
  }
  return columns;
}

std::string MetricUnit(const std::string& name) {
  if (const MetricDefinition* d = FindMetricDefinition(name)) return d->unit;
  JointMetric joint;
  if (ParseJointMetric(name, &joint)) {
    switch (joint.quantity) {
      case JointMetric::Quantity::kPosition:
        return "rad or m";
      case JointMetric::Quantity::kVelocity:
        return "rad/s or m/s";
      case JointMetric::Quantity::kEffort:
        return "N m or N";
    }
  }
  BodyMetric body;
  if (!ParseBodyMetric(name, &body)) return "";
  return body.quantity == BodyMetric::Quantity::kPosition ? "m" : "m/s";
}

std::vector<std::string> DefaultMetricNames() {
  std::vector<std::string> names;
  for (const MetricDefinition& d : MetricDefinitions()) {
    if (!d.expensive) names.push_back(d.name);
  }
  return names;
}

MetricsAccumulator::MetricsAccumulator(const MetricsContext& c) : context_(c) {
  auto bad = [](const std::string& field, double v) {
    throw std::invalid_argument("metrics: " + field + " = " +
                                std::to_string(v) + " is out of range");
  };
  if (!(c.time_step > 0) || !std::isfinite(c.time_step)) {
    bad("time_step", c.time_step);
  }
  if (c.total_steps < 1) bad("total_steps", c.total_steps);
  if (!(c.window_fraction > 0 && c.window_fraction <= 1)) {
    bad("window_fraction", c.window_fraction);
  }
  if (!(c.sliding_speed_mps > 0)) bad("sliding_speed_mps", c.sliding_speed_mps);
  if (!c.gravity.allFinite()) bad("gravity", c.gravity.norm());
  const int window = std::max(
      1, static_cast<int>(std::ceil(c.window_fraction * c.total_steps - 1e-9)));
  window_start_ = std::max(0, c.total_steps - window);
}

void MetricsAccumulator::Add(const StepSample& s) {
  const int n = steps_++;
  max_penetration_ = std::max(max_penetration_, s.max_penetration);
  iterations_sum_ += s.newton_iterations;
  iterations_max_ = std::max(iterations_max_, s.newton_iterations);
  step_time_sum_ += s.step_time_s;
  if (s.newton_iterations > 0) {
    const double cond = s.reciprocal_condition > 0
                            ? 1.0 / s.reciprocal_condition
                            : std::numeric_limits<double>::infinity();
    max_condition_ =
        std::isnan(max_condition_) ? cond : std::max(max_condition_, cond);
  }
  if (n == 0) energy_first_ = s.energy;
  energy_last_ = s.energy;

  if (n >= window_start_) {
    window_penetration_sum_ += s.max_penetration;
    double slip = 0;
    int active = 0;
    for (const ContactSample& c : s.contacts) {
      if (!(c.impulse(kNormal) > 0)) continue;
      slip += TangentialSpeed(c);
      ++active;
    }
    if (active > 0) {
      window_slip_sum_ += slip / active;
      ++window_slip_steps_;
    }
  }

  const double dt = context_.time_step;
  int active = 0;
  for (const ContactSample& c : s.contacts) active += c.impulse(kNormal) > 0;
  double hover = 0, estimate = 0;
  int sliding = 0;
  for (const ContactSample& c : s.contacts) {
    const double vt = TangentialSpeed(c);
    if (!(c.impulse(kNormal) > 0) || !(vt > context_.sliding_speed_mps)) {
      continue;
    }
    hover += c.phi0;
    // Steady hover with v_n = 0 (metrics.h): the resting penetration delta
    // of the contact's share of the load, lifted by the model's response
    // to mu ||v_t||.
    const double load =
        s.supported_mass * std::abs(context_.gravity.dot(c.normal)) / active;
    const double delta =
        std::isfinite(c.effective_stiffness) && c.effective_stiffness > 0
            ? load / c.effective_stiffness
            : 0.0;
    const double mu_vt = c.parameters.friction * vt;
    switch (c.parameters.model) {
      case ContactModel::kSap: {
        // (dt + tau_d) mu ||v_t|| - delta while that is a penetration; a
        // gap pushes with v_hat_n = -phi0 / dt (docs/theory.md §3, §10),
        // which scales it by dt / (dt + tau_d).
        const double T = dt + c.parameters.dissipation_time_scale;
        const double paper = T * mu_vt - delta;
        estimate += paper > 0.0 ? dt / T * paper : paper;
        break;
      }
      case ContactModel::kSimilar:
        estimate +=
            dt * mu_vt -
            delta / (1 + c.parameters.hunt_crossley_dissipation * mu_vt);
        break;
      case ContactModel::kLagged:
        estimate -= delta;
        break;
    }
    ++sliding;
  }
  if (sliding > 0) {
    hover_sum_ += hover / sliding;
    hover_estimate_sum_ += estimate / sliding;
    ++sliding_steps_;
  }

  if (s.rigid_qp_failed) {
    qp_attempted_ = true;
    ++qp_failed_steps_;
  } else if (!std::isnan(s.rigid_qp_impulse_distance)) {
    qp_attempted_ = true;
    qp_impulse_sum_ += s.rigid_qp_impulse_distance;
    qp_velocity_sum_ += s.rigid_qp_velocity_distance;
    ++qp_steps_;
  }
  if (s.cold_start_iterations >= 0) {
    cold_sum_ += s.cold_start_iterations;
    ++cold_steps_;
  }
  if (s.probe.valid && impact_phase_ == 0 && s.probe.in_contact) {
    impact_phase_ = 1;
    impact_normal_ = s.probe.normal;
    impact_speed_ = -impact_normal_.dot(s.probe.velocity0);
    impact_parameters_ = s.probe.parameters;
  } else if (s.probe.valid && impact_phase_ == 1 && !s.probe.in_contact) {
    impact_phase_ = 2;
    rebound_speed_ = impact_normal_.dot(s.probe.velocity);
  }
  last_ = s;
}

std::vector<MetricValue> MetricsAccumulator::Metrics(
    const std::vector<std::string>& names) const {
  std::vector<MetricValue> out;
  const int window_steps = std::max(0, steps_ - window_start_);
  for (const std::string& name : names) {
    double v = kNaN;
    if (name == "max_penetration_m") {
      if (steps_ > 0) v = max_penetration_;
    } else if (name == "resting_penetration_m") {
      if (window_steps > 0) v = window_penetration_sum_ / window_steps;
    } else if (name == "stiction_slip_speed_mps") {
      if (window_slip_steps_ > 0) v = window_slip_sum_ / window_slip_steps_;
    } else if (name == "mean_newton_iterations") {
      if (steps_ > 0) v = iterations_sum_ / steps_;
    } else if (name == "max_newton_iterations") {
      if (steps_ > 0) v = iterations_max_;
    } else if (name == "us_per_step") {
      if (steps_ > 0) v = 1e6 * step_time_sum_ / steps_;
    } else if (name == "hessian_condition_estimate") {
      v = max_condition_;
    } else if (name == "energy_drift") {
      if (steps_ > 0) v = energy_last_ - energy_first_;
    } else if (name == "hover_height_m") {
      if (sliding_steps_ > 0) v = hover_sum_ / sliding_steps_;
    } else if (name == "rigid_qp_impulse_distance") {
      if (qp_steps_ > 0) v = qp_impulse_sum_ / qp_steps_;
    } else if (name == "rigid_qp_velocity_distance") {
      if (qp_steps_ > 0) v = qp_velocity_sum_ / qp_steps_;
    } else if (name == "cold_start_newton_iterations") {
      if (cold_steps_ > 0) v = cold_sum_ / cold_steps_;
    } else if (name == "rigid_qp_failed_steps") {
      if (qp_attempted_) v = qp_failed_steps_;
    } else if (name == "restitution") {
      if (impact_phase_ == 2 && impact_speed_ > 0) {
        v = rebound_speed_ / impact_speed_;
      }
    } else {
      BodyMetric body;
      throw std::invalid_argument(
          "metric '" + name + "': " +
          (ParseBodyMetric(name, &body)
               ? std::string("a body metric (MetricsRecorder computes it)")
               : MetricNameProblem(name)));
    }
    out.push_back({name, v});
  }
  return out;
}

std::vector<MetricValue> MetricsAccumulator::Estimates() const {
  std::vector<MetricValue> out;
  for (const MetricDefinition& d : EstimateDefinitions()) {
    out.push_back({d.name, kNaN});
  }
  auto set = [&](const char* name, double v) {
    for (MetricValue& m : out) {
      if (m.name == name) m.value = std::isfinite(v) ? v : kNaN;
    }
  };
  if (sliding_steps_ > 0) {
    set("estimate_hover_height_m", hover_estimate_sum_ / sliding_steps_);
  }
  if (impact_phase_ > 0 && impact_speed_ > 0) {
    set("impact_speed_mps", impact_speed_);
    if (IsHuntCrossley(impact_parameters_)) {
      const double dv =
          impact_parameters_.hunt_crossley_dissipation * impact_speed_;
      set("impact_dissipation_speed", dv);
      set("estimate_restitution", 1.0 - 2.0 / 3.0 * dv);
      set("estimate_restitution_exact",
          dv > 0 ? HuntCrossleyRestitution(dv) : 1.0);
    }
  }
  const ActiveContacts a = Active(last_);
  if (steps_ == 0 || a.n == 0) return out;
  set("contact_count", a.n);
  set("supported_mass_kg", last_.supported_mass);
  set("contact_stiffness_N_per_m", a.k);
  set("contact_dissipation_time_scale_s", a.tau_d);
  set("contact_delassus_estimate_per_kg", a.w);
  set("contact_R_n", a.R_n);
  set("contact_R_t", a.R_t);
  const double dt = context_.time_step;
  const double M = last_.supported_mass;
  if (!(M > 0)) return out;
  const Vector3& g = context_.gravity;
  const double g_n = std::abs(g.dot(a.normal));
  const double g_t = (g - g.dot(a.normal) * a.normal).norm();
  const double beta = context_.near_rigid_threshold;
  set("estimate_resting_penetration_m",
      RestingPenetration(M, g_n, a.n, dt, a.tau_d, a.R_n));
  set("estimate_compliant_penetration_m",
      std::isinf(a.k) ? 0.0 : CompliantRestingPenetration(M, g_n, a.n, a.k));
  set("estimate_near_rigid_penetration_m",
      NearRigidRestingPenetration(M, g_n, a.n, dt, a.tau_d, beta, a.w));
  if (beta > 0) {
    set("estimate_crossover_stiffness_N_per_m",
        NearRigidCrossoverStiffness(dt, a.tau_d, beta, a.w));
  }
  if (a.hunt_crossley) {
    const double r = g_t / (a.mu * g_n);
    const double eps = std::max(a.v_s, a.mu * a.R_t * M * g_n * dt / a.n);
    if (r < 1)
      set("estimate_stiction_slip_mps", eps * r / std::sqrt(1 - r * r));
  } else {
    set("estimate_stiction_slip_mps",
        StictionSlipVelocity(a.R_t, M * g_t * dt / a.n));
  }
  set("estimate_stiction_slip_bound_mps",
      PointMassStictionSlipBound(context_.friction_regularization, a.mu,
                                 g.norm(), dt));
  return out;
}

}  // namespace sapcontact
