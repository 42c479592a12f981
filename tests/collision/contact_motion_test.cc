// CalcContactRate (collision/contact_motion.h) against central
// differences of the narrow phase itself: random shape pairs in contact,
// both bodies moved along random rigid velocity fields, every recorded
// contact's phi, position and normal rates compared with
// (Collide(+h) - Collide(-h)) / 2h.
#include "sapcontact/collision/contact_motion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/collision/collision_test_util.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::Contacts;
using testing_util::RandomRotation;

// The pose after moving for time s with the rigid velocity field u: R(s) =
// exp(s w) R, p(s) = p + s u(p), so that every body point x moves at u(x)
// at s = 0.
Pose Moved(const Pose& pose, const RigidVelocity& u, double s) {
  Pose out = pose;
  out.position = pose.position + s * u.At(pose.position);
  const double angle = s * u.angular.norm();
  if (angle != 0.0) {
    out.orientation =
        Eigen::Quaterniond(Eigen::AngleAxisd(angle, u.angular.normalized())) *
        pose.orientation;
  }
  return out;
}

std::string KindOf(const ContactPoint& c) {
  auto name = [](FeatureType t) {
    switch (t) {
      case FeatureType::kPoint:
        return "point";
      case FeatureType::kLine:
        return "line";
      case FeatureType::kFace:
        return "face";
      case FeatureType::kRim:
        return "rim";
      default:
        return "none";
    }
  };
  return std::string(name(c.feature_a.type)) + "-" + name(c.feature_b.type);
}

struct Tally {
  int trials = 0, compared = 0;
  std::map<std::string, int> kinds;
};

// Random poses from `place` (pose A, pose B) of shapes a and b; at each, the
// contacts' rates against central differences of Collide. Returns what was
// compared.
template <typename Place>
Tally CheckRates(const Shape& a, const Shape& b, Place place, int trials,
                 bool a_moves = true) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  auto random_field = [&]() {
    RigidVelocity u;
    u.angular = Vector3(g(rng), g(rng), g(rng));
    u.linear = 0.3 * Vector3(g(rng), g(rng), g(rng));
    return u;
  };
  const double margin = 0.05, h = 1e-6;
  Tally tally;
  for (int trial = 0; trial < trials; ++trial) {
    Pose pa, pb;
    place(rng, &pa, &pb);
    const std::vector<ContactPoint> c0 = Contacts(a, pa, b, pb, margin);
    if (c0.empty()) continue;
    const RigidVelocity ua = a_moves ? random_field() : RigidVelocity();
    const RigidVelocity ub = random_field();
    const auto plus =
        Contacts(a, Moved(pa, ua, h), b, Moved(pb, ub, h), margin);
    const auto minus =
        Contacts(a, Moved(pa, ua, -h), b, Moved(pb, ub, -h), margin);
    // A contact entering or leaving the margin band changes the list: not
    // a smooth motion.
    if (plus.size() != c0.size() || minus.size() != c0.size()) continue;
    ++tally.trials;
    for (size_t k = 0; k < c0.size(); ++k) {
      if (!HasContactRate(c0[k])) continue;
      const ContactRate r = CalcContactRate(c0[k], ua, ub);
      const double dphi = (plus[k].phi - minus[k].phi) / (2 * h);
      const Vector3 dp = (plus[k].position - minus[k].position) / (2 * h);
      const Vector3 dn = (plus[k].normal - minus[k].normal) / (2 * h);
      const double tol = 1e-6 * (1.0 + r.position.norm() + r.normal.norm());
      SCOPED_TRACE("trial " + std::to_string(trial) + " contact " +
                   std::to_string(k) + " (" + KindOf(c0[k]) + ")");
      EXPECT_NEAR(r.phi, dphi, tol);
      EXPECT_LE((r.position - dp).norm(), tol)
          << "analytic " << r.position.transpose() << "\nFD " << dp.transpose();
      EXPECT_LE((r.normal - dn).norm(), tol)
          << "analytic " << r.normal.transpose() << "\nFD " << dn.transpose();
      ++tally.compared;
      ++tally.kinds[KindOf(c0[k])];
    }
  }
  std::string kinds;
  for (const auto& [kind, count] : tally.kinds) {
    kinds += " " + kind + " " + std::to_string(count);
  }
  std::printf("%d of %d trials smooth, %d contacts compared:%s\n", tally.trials,
              trials, tally.compared, kinds.c_str());
  return tally;
}

Vector3 RandomVector(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vector3(u(rng), u(rng), u(rng));
}

// Random poses with B moved along the contact normal until the deepest
// contact's phi is a random gap in [-0.02, 0.04] m.
std::function<void(std::mt19937&, Pose*, Pose*)> Touching(const Shape& a,
                                                          const Shape& b) {
  return [a, b](std::mt19937& rng, Pose* pa, Pose* pb) {
    std::uniform_real_distribution<double> gap(-0.02, 0.04);
    *pa = At(RandomVector(rng, 0.1), RandomRotation(rng));
    *pb = At(pa->position + RandomVector(rng, 0.3), RandomRotation(rng));
    for (int it = 0; it < 3; ++it) {
      const auto c = Contacts(a, *pa, b, *pb, 10.0);
      if (c.empty()) return;
      double phi = c[0].phi;
      Vector3 n = c[0].normal;
      for (const ContactPoint& cp : c) {
        if (cp.phi < phi) {
          phi = cp.phi;
          n = cp.normal;
        }
      }
      pb->position += (gap(rng) - phi) * n;
    }
  };
}

TEST(ContactMotion, PlaneBoxSphereCapsule) {
  // The plane tilted and moving too (the rates do not assume it is fixed).
  std::uniform_real_distribution<double> height(-0.02, 0.03);
  auto place = [&](double low) {
    return [&, low](std::mt19937& rng, Pose* pa, Pose* pb) {
      *pa = At(RandomVector(rng, 0.1), RandomRotation(rng));
      *pb = At(Vector3::Zero(), RandomRotation(rng));
      // Lowest point of B at `height` above the plane.
      const Vector3 n = pa->orientation * Vector3::UnitZ();
      pb->position = pa->position + RandomVector(rng, 0.2);
      pb->position +=
          (low + height(rng) - n.dot(pb->position - pa->position)) * n;
    };
  };
  // A random box's lowest vertex is about 0.1-0.17 below its centre; take
  // the centre 0.12 up so that 1-3 vertices fall within the margin.
  Tally box =
      CheckRates(MakePlane(), MakeBox(0.2, 0.15, 0.1), place(0.09), 300);
  EXPECT_GT(box.kinds["face-point"], 200);
  Tally sphere = CheckRates(MakePlane(), MakeSphere(0.1), place(0.1), 100);
  EXPECT_GT(sphere.kinds["face-point"], 60);
  Tally capsule =
      CheckRates(MakePlane(), MakeCapsule(0.05, 0.2), place(0.1), 300);
  EXPECT_GT(capsule.kinds["face-point"], 100);
  // A cylinder (radius 0.05, length 0.2) at random tilts: its rim points.
  Tally cylinder =
      CheckRates(MakePlane(), MakeCylinder(0.05, 0.2), place(0.09), 300);
  EXPECT_GT(cylinder.kinds["face-rim"], 200);
}

TEST(ContactMotion, RoundPairs) {
  // Sphere-sphere, sphere-capsule and capsule-capsule at random poses within
  // the margin of touching.
  std::uniform_real_distribution<double> gap(-0.02, 0.04);
  auto spheres = [&](std::mt19937& rng, Pose* pa, Pose* pb) {
    *pa = At(RandomVector(rng, 0.1), RandomRotation(rng));
    const Vector3 d = RandomVector(rng, 1.0).normalized();
    *pb = At(pa->position + (0.25 + gap(rng)) * d, RandomRotation(rng));
  };
  Tally ss = CheckRates(MakeSphere(0.1), MakeSphere(0.15), spheres, 100);
  EXPECT_GT(ss.kinds["point-point"], 80);

  const Shape sphere = MakeSphere(0.08), capsule = MakeCapsule(0.05, 0.3);
  Tally sc = CheckRates(sphere, capsule, Touching(sphere, capsule), 200);
  EXPECT_GT(sc.kinds["point-line"], 100);
  EXPECT_GT(sc.kinds["point-point"], 5);
  const Shape cylinder = MakeCylinder(0.06, 0.2);
  Tally sy = CheckRates(sphere, cylinder, Touching(sphere, cylinder), 300);
  EXPECT_GT(sy.kinds["point-line"], 50);  // the side
  EXPECT_GT(sy.kinds["point-face"], 5);   // a cap
  const Shape other = MakeCapsule(0.04, 0.25);
  Tally cc = CheckRates(capsule, other, Touching(capsule, other), 300);
  EXPECT_GT(cc.kinds["line-line"], 50);
  EXPECT_GT(cc.kinds["point-line"] + cc.kinds["line-point"], 20);
}

TEST(ContactMotion, BoxSphereRegions) {
  // The sphere's centre in the face, edge and vertex regions of the box and
  // inside it.
  const Shape box = MakeBox(0.3, 0.2, 0.1), sphere = MakeSphere(0.05);
  std::uniform_int_distribution<int> region(0, 3);
  std::uniform_real_distribution<double> u(-1.0, 1.0), gap(-0.01, 0.04);
  auto place = [&](std::mt19937& rng, Pose* pa, Pose* pb) {
    *pa = At(RandomVector(rng, 0.1), RandomRotation(rng));
    const Vector3 half(0.15, 0.1, 0.05);
    const int outside = region(rng);  // axes outside their slab
    Vector3 local(0.8 * half.x() * u(rng), 0.8 * half.y() * u(rng),
                  0.8 * half.z() * u(rng));
    if (outside == 0) {  // inside, nearest face the z one
      local.z() = 0.03 * (u(rng) > 0 ? 1 : -1);
      local.x() *= 0.5;
      local.y() *= 0.5;
    }
    Vector3 dir = Vector3::Zero();
    for (int i = 0; i < outside; ++i) {
      const int axis = (i + 2) % 3;
      local[axis] = (u(rng) > 0 ? 1 : -1) * half[axis];
      dir[axis] = local[axis] > 0 ? 1 : -1;
    }
    if (outside > 0) local += (0.05 + gap(rng)) * dir.normalized();
    *pb = At(pa->ToWorld(local), RandomRotation(rng));
  };
  Tally t = CheckRates(box, sphere, place, 400);
  EXPECT_GT(t.kinds["face-point"], 150);  // face regions and inside
  EXPECT_GT(t.kinds["line-point"], 60);
  EXPECT_GT(t.kinds["point-point"], 60);
}

TEST(ContactMotion, BoxBoxFacesAndEdges) {
  // A tilted box on a box (the incident face's corners against the
  // reference face), and two boxes crossing edge on edge.
  const Shape lower = MakeBox(0.6, 0.5, 0.2), upper = MakeBox(0.2, 0.15, 0.1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto resting = [&](std::mt19937& rng, Pose* pa, Pose* pb) {
    *pa = At(RandomVector(rng, 0.05),
             Eigen::Quaterniond(Eigen::AngleAxisd(
                 0.3 * u(rng), Vector3(u(rng), u(rng), 1).normalized())));
    const Eigen::Quaterniond tilt(Eigen::AngleAxisd(
        0.05 * u(rng), Vector3(u(rng), u(rng), 0).normalized()));
    const Eigen::Quaterniond yaw(
        Eigen::AngleAxisd(3.0 * u(rng), Vector3::UnitZ()));
    *pb = At(
        pa->ToWorld(Vector3(0.1 * u(rng), 0.1 * u(rng), 0.15 + 0.01 * u(rng))),
        pa->orientation * tilt * yaw);
  };
  Tally faces = CheckRates(lower, upper, resting, 200);
  EXPECT_GT(faces.kinds["face-point"], 400);
  // Upper box as A (its face the reference on some trials, B's on others).
  Tally flipped = CheckRates(
      upper, lower,
      [&](std::mt19937& rng, Pose* pa, Pose* pb) { resting(rng, pb, pa); },
      200);
  EXPECT_GT(flipped.kinds["point-face"], 400);

  // Overhanging: the upper box past the lower one's +x side, so that its
  // bottom edges are cut by that side plane.
  const Shape wide = MakeBox(0.3, 0.25, 0.1);
  auto overhanging = [&](std::mt19937& rng, Pose* pa, Pose* pb) {
    resting(rng, pa, pb);
    pb->position = pa->ToWorld(
        Vector3(0.3 + 0.05 * u(rng), 0.1 * u(rng), 0.15 + 0.01 * u(rng)));
  };
  Tally cut = CheckRates(lower, wide, overhanging, 200);
  EXPECT_GT(cut.kinds["face-line"], 200);
  EXPECT_GT(cut.kinds["face-point"], 100);

  // Edge on edge: B turned 45 degrees about x, A about y, B just below A's
  // lower edge line crossing it.
  const Shape bar = MakeBox(0.4, 0.1, 0.1);
  auto crossing = [&](std::mt19937& rng, Pose* pa, Pose* pb) {
    const double s = std::sqrt(0.5) * 0.1;  // half diagonal of the section
    *pa = At(Vector3::Zero(), Eigen::Quaterniond(Eigen::AngleAxisd(
                                  0.7854 + 0.1 * u(rng), Vector3::UnitX())));
    *pb = At(Vector3(0.05 * u(rng), 0.05 * u(rng), -2 * s + 0.005 * u(rng)),
             Eigen::Quaterniond(
                 Eigen::AngleAxisd(1.5708 + 0.3 * u(rng), Vector3::UnitZ())) *
                 Eigen::Quaterniond(Eigen::AngleAxisd(0.7854 + 0.1 * u(rng),
                                                      Vector3::UnitX())));
    pa->orientation = Eigen::Quaterniond(Eigen::AngleAxisd(
                          0.2 * u(rng), RandomVector(rng, 1).normalized())) *
                      pa->orientation;
  };
  Tally edges = CheckRates(bar, bar, crossing, 200);
  EXPECT_GT(edges.kinds["line-line"], 50);
}

TEST(ContactMotion, BoxCapsule) {
  // Segment ends against the box's faces, edges and vertices.
  const Shape box = MakeBox(0.3, 0.2, 0.1), capsule = MakeCapsule(0.04, 0.25);
  Tally t = CheckRates(box, capsule, Touching(box, capsule), 400);
  EXPECT_GT(t.kinds["face-point"], 50);
  EXPECT_GT(t.kinds["line-point"], 20);
  EXPECT_GT(t.kinds["point-point"], 5);
}

TEST(ContactMotion, FrameRateIsTheFramesDerivative) {
  // ContactFrameRowsRate against central differences of ContactFrameRows
  // along n(s) = normalize(n + s dn), for normals near each of the three
  // axis branches.
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Vector3 n(g(rng), g(rng), g(rng));
    n(trial % 3) *= 0.2;  // favour each branch in turn
    n.normalize();
    Vector3 dn(g(rng), g(rng), g(rng));
    dn -= n * n.dot(dn);
    const double h = 1e-6;
    const Vector3 np = (n + h * dn).normalized(),
                  nm = (n - h * dn).normalized();
    if (ContactFrameAxis(np) != ContactFrameAxis(n) ||
        ContactFrameAxis(nm) != ContactFrameAxis(n)) {
      continue;  // the branch switches within the difference
    }
    const Matrix3 fd = (ContactFrameRows(np) - ContactFrameRows(nm)) / (2 * h);
    const Matrix3 rate = ContactFrameRowsRate(n, dn);
    EXPECT_LT((rate - fd).norm(), 1e-7 * (1.0 + dn.norm())) << trial;
    // The rows stay orthonormal: R dR' is skew.
    const Matrix3 R = ContactFrameRows(n);
    EXPECT_LT((R * rate.transpose() + rate * R.transpose()).norm(), 1e-12);
    ++checked;
  }
  EXPECT_GT(checked, 290);
}

TEST(ContactMotion, UnrecordedFeaturesAreRejected) {
  ContactPoint c;
  EXPECT_FALSE(HasContactRate(c));
  EXPECT_THROW(CalcContactRate(c, {}, {}), std::invalid_argument);
  c.feature_a = {FeatureType::kFace, Vector3::Zero(), Vector3::UnitZ(), 0.0};
  c.feature_b = c.feature_a;
  c.feature_b.direction = -Vector3::UnitZ();
  EXPECT_FALSE(HasContactRate(c));  // face on face: a manifold, not a point
  // Parallel lines have no single closest pair.
  c.feature_a = {FeatureType::kLine, Vector3::Zero(), Vector3::UnitX(), 0.1};
  c.feature_b = {FeatureType::kLine, Vector3::UnitZ(), Vector3::UnitX(), 0.1};
  EXPECT_FALSE(HasContactRate(c));
}

}  // namespace
}  // namespace sapcontact
