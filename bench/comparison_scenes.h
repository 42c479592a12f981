// One description of each scene of the MuJoCo comparison
// (bench/mujoco_comparison.cc), from which both engines' inputs are written:
// a sapsim YAML scene (docs/scenes.md) and an MJCF model. Scene layouts
// follow the peer harness's definitions (rest, stack, spheres in a walled
// bin, grid of separated boxes) plus an incline and a clutter of capsules
// and boxes. SI units; z up.
//
// Contact parameters are matched as MuJoCo's solref = (2 dt, 1),
// solimp = (0.99, 0.99, 0.001): rigid (k = inf) contact with a dissipation
// time scale of 3 dt per pair and the near-rigid threshold beta = 0.63
// (MuJoCo's regularization (1 - d)/d = 0.0101 of the inverse mass equals
// SAP's beta^2 / (4 pi^2) at beta = 0.63); friction 0.5 everywhere.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace sapcontact::comparison {

enum class BodyShape { kPlane, kBox, kSphere, kCapsule };

struct ComparisonBody {
  std::string name;
  BodyShape shape{BodyShape::kBox};
  Eigen::Vector3d size{Eigen::Vector3d::Zero()};  // box full edge lengths [m]
  double radius{0.0};                             // sphere, capsule [m]
  double length{0.0};  // capsule segment between sphere centres, along z [m]
  double mass{0.0};    // [kg]; free bodies
  bool fixed{false};
  Eigen::Vector3d position{Eigen::Vector3d::Zero()};
  Eigen::Quaterniond orientation{Eigen::Quaterniond::Identity()};
  Eigen::Vector3d velocity{Eigen::Vector3d::Zero()};
};

/// Final positions of the free bodies (in body order) -> the scene's
/// physical outcome.
using Outcome = std::function<double(const std::vector<Eigen::Vector3d>&)>;

struct ComparisonScene {
  std::string name;      // e.g. "stack 10"
  double duration{1.0};  // simulated time [s]
  Eigen::Vector3d gravity{0, 0, -9.81};
  std::vector<ComparisonBody> bodies;
  std::string outcome_name;  // with its unit
  Outcome outcome;
  /// Contacts MuJoCo 2.2 must preallocate room for (<size nconmax>): its
  /// constraint buffers grow with the square of this, and their total size
  /// must fit an int, so it is set per scene with some headroom.
  int max_contacts{64};
  /// MuJoCo 3's arena (<size memory>, e.g. "1G"), for scenes whose default
  /// arena MuJoCo 3.12 cannot allocate; empty: MuJoCo's default.
  std::string mujoco_memory;
  /// Why MuJoCo is not run on this scene (the table says so); empty: it is.
  std::string mujoco_skipped;
};

constexpr double kFriction = 0.5;
constexpr double kBeta = 0.63;

inline ComparisonBody Ground() {
  ComparisonBody b;
  b.name = "ground";
  b.shape = BodyShape::kPlane;
  b.fixed = true;
  return b;
}

inline ComparisonBody Box(const std::string& name, double edge, double mass,
                          const Eigen::Vector3d& position) {
  ComparisonBody b;
  b.name = name;
  b.shape = BodyShape::kBox;
  b.size.setConstant(edge);
  b.mass = mass;
  b.position = position;
  return b;
}

inline ComparisonBody FixedBox(const std::string& name,
                               const Eigen::Vector3d& size,
                               const Eigen::Vector3d& position) {
  ComparisonBody b;
  b.name = name;
  b.shape = BodyShape::kBox;
  b.size = size;
  b.fixed = true;
  b.position = position;
  return b;
}

/// Four fixed walls (0.1 m thick) around the square [-L/2, L/2]^2, height h.
inline void AddBin(double inner_width, double height,
                   std::vector<ComparisonBody>* bodies) {
  const double t = 0.1, w = inner_width + 2 * t, c = 0.5 * (inner_width + t);
  bodies->push_back(FixedBox("wall_xp", {t, w, height}, {c, 0, height / 2}));
  bodies->push_back(FixedBox("wall_xn", {t, w, height}, {-c, 0, height / 2}));
  bodies->push_back(FixedBox("wall_yp", {w, t, height}, {0, c, height / 2}));
  bodies->push_back(FixedBox("wall_yn", {w, t, height}, {0, -c, height / 2}));
}

/// Largest horizontal displacement of the free bodies.
inline Outcome MaxHorizontalDrift(std::vector<Eigen::Vector3d> initial) {
  return [initial](const std::vector<Eigen::Vector3d>& final) {
    double d = 0;
    for (size_t i = 0; i < final.size(); ++i) {
      d = std::max(d, (final[i] - initial[i]).head<2>().norm());
    }
    return d;
  };
}

inline std::vector<Eigen::Vector3d> FreePositions(
    const std::vector<ComparisonBody>& bodies) {
  std::vector<Eigen::Vector3d> p;
  for (const ComparisonBody& b : bodies) {
    if (!b.fixed) p.push_back(b.position);
  }
  return p;
}

/// A 0.2 m, 10 kg box resting on the ground; outcome: its sink below the
/// touching height at the end.
inline ComparisonScene Rest() {
  ComparisonScene s;
  s.name = "rest";
  s.bodies = {Ground(), Box("box", 0.2, 10.0, {0, 0, 0.1})};
  s.max_contacts = 16;
  s.outcome_name = "sink [m]";
  s.outcome = [](const std::vector<Eigen::Vector3d>& p) {
    return 0.1 - p[0].z();
  };
  return s;
}

/// n boxes (0.2 m, 10 kg) stacked on the ground; outcome: the horizontal
/// drift of the top box.
inline ComparisonScene Stack(int n) {
  ComparisonScene s;
  s.name = "stack " + std::to_string(n);
  s.bodies = {Ground()};
  for (int i = 0; i < n; ++i) {
    s.bodies.push_back(
        Box("box" + std::to_string(i), 0.2, 10.0, {0, 0, 0.1 + 0.2 * i}));
  }
  s.max_contacts = 8 * n + 16;
  s.outcome_name = "top drift [m]";
  s.outcome = [n](const std::vector<Eigen::Vector3d>& p) {
    return p[n - 1].head<2>().norm();
  };
  return s;
}

/// n boxes (0.2 m, 10 kg) on a square grid with 0.2 m gaps (no box-box
/// contact), for `duration` [s]; outcome: the largest horizontal drift.
inline ComparisonScene Grid(int n, double duration = 1.0) {
  ComparisonScene s;
  const int side = static_cast<int>(std::lround(std::sqrt(n)));
  s.name = "grid " + std::to_string(side * side);
  s.duration = duration;
  s.bodies = {Ground()};
  const double off = 0.2 * (side - 1);
  for (int i = 0; i < side; ++i) {
    for (int j = 0; j < side; ++j) {
      s.bodies.push_back(Box("box" + std::to_string(i * side + j), 0.2, 10.0,
                             {i * 0.4 - off, j * 0.4 - off, 0.1}));
    }
  }
  s.max_contacts = 4 * side * side + 16;
  s.outcome_name = "max drift [m]";
  s.outcome = MaxHorizontalDrift(FreePositions(s.bodies));
  return s;
}

/// splitmix64: the jitter sequence of the sphere pile.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  double NextUnit() {  // [0, 1)
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t state_;
};

/// Counts free bodies outside the bin's inner square (+ a tolerance) or
/// below the floor.
inline Outcome Escaped(double inner_width, double tolerance) {
  return [=](const std::vector<Eigen::Vector3d>& p) {
    int n = 0;
    for (const Eigen::Vector3d& x : p) {
      if (std::abs(x.x()) > inner_width / 2 + tolerance ||
          std::abs(x.y()) > inner_width / 2 + tolerance || x.z() < -tolerance) {
        ++n;
      }
    }
    return static_cast<double>(n);
  };
}

/// n spheres (r = 0.05 m, 0.5 kg) in layers of nx^2 with a small horizontal
/// jitter, dropped into a walled bin of inner width 0.125 nx; outcome: the
/// number of spheres that left the bin.
inline ComparisonScene Spheres(int n, double duration) {
  ComparisonScene s;
  s.name = "spheres " + std::to_string(n);
  s.duration = duration;
  const int nx = static_cast<int>(std::ceil(std::cbrt(n) - 1e-9));
  const double L = 0.125 * nx;
  s.bodies = {Ground()};
  AddBin(L, 0.3 + 0.12 * (n / (nx * nx) + 1), &s.bodies);
  SplitMix64 rng(1);
  for (int i = 0; i < n; ++i) {
    const int layer = i / (nx * nx), k = i % (nx * nx);
    const double jx = 0.01 * (2 * rng.NextUnit() - 1);
    const double jy = 0.01 * (2 * rng.NextUnit() - 1);
    ComparisonBody b;
    b.name = "sphere" + std::to_string(i);
    b.shape = BodyShape::kSphere;
    b.radius = 0.05;
    b.mass = 0.5;
    b.position = {-L / 2 + (k % nx + 0.5) * 0.125 + jx,
                  -L / 2 + (k / nx + 0.5) * 0.125 + jy, 0.1 + 0.12 * layer};
    s.bodies.push_back(b);
  }
  s.max_contacts = 4 * n + 64;
  s.outcome_name = "escaped";
  s.outcome = Escaped(L, 0.01);
  return s;
}

/// The rest box on a 20 degree incline (gravity tilted about y, so the
/// slope runs along +x); outcome: its downhill creep over the run (it must
/// stick: tan 20 deg < 0.5).
inline ComparisonScene Incline() {
  ComparisonScene s;
  s.name = "incline 20";
  const double theta = 20.0 * M_PI / 180.0;
  s.gravity = {9.81 * std::sin(theta), 0, -9.81 * std::cos(theta)};
  s.bodies = {Ground(), Box("box", 0.2, 10.0, {0, 0, 0.1})};
  s.max_contacts = 16;
  s.outcome_name = "creep [m]";
  s.outcome = [](const std::vector<Eigen::Vector3d>& p) { return p[0].x(); };
  return s;
}

/// A clutter: 4 x 4 x 3 bodies, capsules (r = 0.03 m, length 0.12 m, 0.4 kg)
/// and boxes (0.08 m, 0.5 kg) alternating, tilted, dropped into a 0.8 m bin;
/// outcome: the number of bodies that left the bin.
inline ComparisonScene Clutter() {
  ComparisonScene s;
  s.name = "clutter 48";
  const double L = 0.8;
  s.bodies = {Ground()};
  AddBin(L, 0.6, &s.bodies);
  int i = 0;
  for (int layer = 0; layer < 3; ++layer) {
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b, ++i) {
        ComparisonBody body;
        body.name = "piece" + std::to_string(i);
        body.position = {-0.3 + 0.2 * a, -0.3 + 0.2 * b, 0.12 + 0.18 * layer};
        body.orientation =
            Eigen::AngleAxisd(0.4 * i, Eigen::Vector3d::UnitZ()) *
            Eigen::AngleAxisd(0.7 + 0.3 * layer, Eigen::Vector3d::UnitX());
        if (i % 2 == 0) {
          body.shape = BodyShape::kCapsule;
          body.radius = 0.03;
          body.length = 0.12;
          body.mass = 0.4;
        } else {
          body.shape = BodyShape::kBox;
          body.size.setConstant(0.08);
          body.mass = 0.5;
        }
        s.bodies.push_back(body);
      }
    }
  }
  s.max_contacts = 8 * 48 + 64;
  s.outcome_name = "escaped";
  s.outcome = Escaped(L, 0.01);
  return s;
}

/// The scenes of the comparison, in table order. The largest run a short
/// time (spheres 512 0.3 s; spheres 4096 and grid 10000 0.1 s: 100 steps at
/// dt = 1e-3, 10 at 1e-2) so that the whole table runs in minutes; in
/// 0.1 s the 4096 spheres (16 layers of 16 x 16) fall 5 cm, so only the
/// lowest layers touch: a pile being formed, not a settled one.
inline std::vector<ComparisonScene> AllScenes() {
  ComparisonScene spheres4096 = Spheres(4096, 0.1);
  spheres4096.mujoco_memory = "1G";
  ComparisonScene grid10000 = Grid(10000, 0.1);
  grid10000.mujoco_skipped =
      "MuJoCo 3.12.1 cannot allocate its default arena for 10,000 free "
      "bodies, and with <size memory=\"2G\"/> its compiler takes minutes per "
      "run";
  return {Rest(),           Incline(),         Stack(10),   Stack(20),
          Spheres(64, 1.0), Spheres(512, 0.3), spheres4096, Grid(400),
          Grid(729),        Grid(1600),        grid10000,   Clutter()};
}

/// The sphere piles of the scaling table (mujoco_comparison --scaling):
/// the comparison's generator at 64, 512 and 4096 spheres (4, 8 and 16
/// layers), each for the same 0.3 s of a drop (the 64 spheres have landed
/// by then; of the 4096, the lowest layers have: contacts per sphere differ,
/// the time per contact-iteration is what is compared).
inline std::vector<ComparisonScene> ScalingScenes() {
  return {Spheres(64, 0.3), Spheres(512, 0.3), Spheres(4096, 0.3)};
}

inline std::string Num(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

/// The sapsim YAML scene (docs/scenes.md) of `s` at time step dt, with
/// friction regularization sigma (sapcontact's default 1e-3; MuJoCo's
/// friction rows carry the same regularization as its normal rows,
/// (1 - d)/d = 0.0101 times the translational inverse mass, which is
/// sigma = 0.0101 / (w m) ~ 0.004-0.006 for the contacts of these scenes).
inline std::string ToSapsimYaml(const ComparisonScene& s, double dt,
                                double sigma = 1e-3) {
  std::ostringstream y;
  y << "time_step: " << Num(dt) << "\nduration: " << Num(s.duration)
    << "\ngravity: [" << Num(s.gravity.x()) << ", " << Num(s.gravity.y())
    << ", " << Num(s.gravity.z())
    << "]\n"
    // Pair rule: dissipation time scales add, so 1.5 dt per material.
    << "materials:\n  default: {stiffness: .inf, dissipation_time_scale: "
    << Num(1.5 * dt) << ", friction: " << Num(kFriction)
    << "}\n"
    // The scenes' default contact model (lagged; --set
    // solver.contact_model=sap for the SAP paper's), with beta and sigma
    // matched to MuJoCo's regularization above.
    << "solver:\n  near_rigid_threshold: " << Num(kBeta)
    << "\n  friction_regularization: " << Num(sigma) << "\n"
    << "output:\n  every: 1000000\nbodies:\n";
  for (const ComparisonBody& b : s.bodies) {
    y << "  - name: " << b.name << "\n";
    if (b.fixed) y << "    fixed: true\n";
    switch (b.shape) {
      case BodyShape::kPlane:
        y << "    shape: {type: plane}\n";
        break;
      case BodyShape::kBox:
        y << "    shape: {type: box, size: [" << Num(b.size.x()) << ", "
          << Num(b.size.y()) << ", " << Num(b.size.z()) << "]}\n";
        break;
      case BodyShape::kSphere:
        y << "    shape: {type: sphere, radius: " << Num(b.radius) << "}\n";
        break;
      case BodyShape::kCapsule:
        y << "    shape: {type: capsule, radius: " << Num(b.radius)
          << ", length: " << Num(b.length) << "}\n";
        break;
    }
    if (!b.fixed) y << "    mass: " << Num(b.mass) << "\n";
    if (b.shape != BodyShape::kPlane) {
      const Eigen::Quaterniond& q = b.orientation;
      y << "    position: [" << Num(b.position.x()) << ", "
        << Num(b.position.y()) << ", " << Num(b.position.z()) << "]\n"
        << "    quaternion: [" << Num(q.w()) << ", " << Num(q.x()) << ", "
        << Num(q.y()) << ", " << Num(q.z()) << "]\n";
    }
    if (!b.fixed && b.velocity.squaredNorm() > 0) {
      y << "    velocity: [" << Num(b.velocity.x()) << ", "
        << Num(b.velocity.y()) << ", " << Num(b.velocity.z()) << "]\n";
    }
  }
  return y.str();
}

/// The MJCF model of `s` at time step dt: Newton solver, elliptic cones,
/// condim 3, solref (2 dt, 1), solimp (0.99, 0.99, 0.001), impratio 1, one
/// free joint per free body. With `legacy_size` (MuJoCo 2.2),
/// `s.max_contacts` and nv (velocities) size the preallocated buffers
/// (<size nconmax njmax nstack>); MuJoCo 3 sizes its arena itself unless
/// `s.mujoco_memory` sets it (<size memory>).
inline std::string ToMjcf(const ComparisonScene& s, double dt, int nv,
                          bool legacy_size = true) {
  const int njmax = 3 * s.max_contacts;
  // Newton's stack use is about 1.5 nefc nv (measured by the peer harness).
  const long long nstack = 2LL * njmax * std::max(nv, 1) + 100000;
  const int max_contacts = s.max_contacts;
  std::ostringstream x;
  x << "<mujoco model=\"comparison\">\n"
    << "  <option timestep=\"" << Num(dt) << "\" gravity=\""
    << Num(s.gravity.x()) << " " << Num(s.gravity.y()) << " "
    << Num(s.gravity.z())
    << "\" solver=\"Newton\" cone=\"elliptic\" impratio=\"1\" "
       "tolerance=\"1e-8\" iterations=\"100\"/>\n"
    << (legacy_size ? "  <size nconmax=\"" + std::to_string(max_contacts) +
                          "\" njmax=\"" + std::to_string(njmax) +
                          "\" nstack=\"" + std::to_string(nstack) + "\"/>\n"
        : s.mujoco_memory.empty()
            ? std::string()
            : "  <size memory=\"" + s.mujoco_memory + "\"/>\n")
    << "  <default><geom condim=\"3\" friction=\"" << Num(kFriction)
    << " 0 0\" solref=\"" << Num(2 * dt)
    << " 1\" solimp=\"0.99 0.99 0.001 0.5 2\"/></default>\n"
    << "  <worldbody>\n";
  auto geom = [&](const ComparisonBody& b) {
    std::ostringstream g;
    switch (b.shape) {
      case BodyShape::kPlane:
        g << "<geom type=\"plane\" size=\"0 0 1\"";
        break;
      case BodyShape::kBox:
        g << "<geom type=\"box\" size=\"" << Num(b.size.x() / 2) << " "
          << Num(b.size.y() / 2) << " " << Num(b.size.z() / 2) << "\"";
        break;
      case BodyShape::kSphere:
        g << "<geom type=\"sphere\" size=\"" << Num(b.radius) << "\"";
        break;
      case BodyShape::kCapsule:
        g << "<geom type=\"capsule\" size=\"" << Num(b.radius) << " "
          << Num(b.length / 2) << "\"";
        break;
    }
    if (!b.fixed) g << " mass=\"" << Num(b.mass) << "\"";
    return g.str();
  };
  auto pose = [&](const ComparisonBody& b) {
    const Eigen::Quaterniond& q = b.orientation;
    return " pos=\"" + Num(b.position.x()) + " " + Num(b.position.y()) + " " +
           Num(b.position.z()) + "\" quat=\"" + Num(q.w()) + " " + Num(q.x()) +
           " " + Num(q.y()) + " " + Num(q.z()) + "\"";
  };
  for (const ComparisonBody& b : s.bodies) {
    if (b.fixed) {
      x << "    " << geom(b) << (b.shape == BodyShape::kPlane ? "" : pose(b))
        << "/>\n";
    } else {
      x << "    <body name=\"" << b.name << "\"" << pose(b) << "><freejoint/>"
        << geom(b) << "/></body>\n";
    }
  }
  x << "  </worldbody>\n</mujoco>\n";
  return x.str();
}

}  // namespace sapcontact::comparison
