// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the collision component (with the geometry and parallel ones it needs; no
// yaml-cpp, no urdfdom). A 0.2 m cube, turned 30 degrees about z, on the
// fixed ground plane z = 0, through CollisionDetector::FindContacts:
//   - sunk d = 1 mm: its four bottom corners, each phi = -d, normal +z from
//     the plane (body A, fixed) into the box (body B), position the
//     midpoint (corner_x, corner_y, -d / 2) of the two surface points;
//   - lifted 0.5 mm, inside the default 1 mm margin: the same four corners
//     at phi = +0.5 mm, position z = +0.25 mm;
//   - lifted 2 mm, beyond the margin: no contact.
// Exit status 0 when every count and number agrees (to 1e-12 m), 1
// otherwise.
#include <sapcontact/collision/collision.h>
#include <sapcontact/geometry/pose.h>
#include <sapcontact/geometry/shapes.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using sapcontact::ContactPoint;
using sapcontact::Vector3;

constexpr double kTolerance = 1e-12;
constexpr double kHalf = 0.1;  // half the cube's edge [m]

// The contacts must be the four bottom corners (in any order), each at
// signed distance `gap` from the plane.
bool CheckCorners(const std::vector<ContactPoint>& contacts,
                  const sapcontact::Pose& pose, double gap, const char* what) {
  if (contacts.size() != 4) {
    std::printf("%s: %zu contacts, expected 4\n", what, contacts.size());
    return false;
  }
  std::array<bool, 4> matched{};
  for (const ContactPoint& c : contacts) {
    const bool ok_frame = c.body_a == 0 && c.body_b == 1 &&
                          (c.normal - Vector3::UnitZ()).norm() < kTolerance &&
                          std::abs(c.phi - gap) < kTolerance;
    bool ok_position = false;
    for (int k = 0; k < 4; ++k) {
      const Vector3 local((k & 1) ? kHalf : -kHalf, (k & 2) ? kHalf : -kHalf,
                          -kHalf);
      Vector3 corner = pose.position + pose.orientation * local;
      corner.z() = gap / 2;  // midpoint of the plane's and the box's points
      if (!matched[k] && (c.position - corner).norm() < kTolerance) {
        matched[k] = ok_position = true;
        break;
      }
    }
    if (!ok_frame || !ok_position) {
      std::printf(
          "%s: contact bodies (%d, %d), phi %.17g (expected %.17g), normal "
          "(%g, %g, %g), position (%.17g, %.17g, %.17g): not a bottom corner "
          "at the expected gap\n",
          what, c.body_a, c.body_b, c.phi, gap, c.normal.x(), c.normal.y(),
          c.normal.z(), c.position.x(), c.position.y(), c.position.z());
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  using namespace sapcontact;
  std::vector<CollisionGeometry> bodies(2);
  bodies[0].shape = MakePlane();
  bodies[0].fixed = true;
  bodies[1].shape = MakeBox(2 * kHalf, 2 * kHalf, 2 * kHalf);
  CollisionDetector detector(bodies);

  const double kPi = 3.14159265358979323846;
  std::vector<Pose> poses(2);
  poses[1].orientation = Eigen::AngleAxisd(kPi / 6, Vector3::UnitZ());
  const double depth = 1e-3;
  poses[1].position = Vector3(0.3, -0.2, kHalf - depth);
  if (!CheckCorners(detector.FindContacts(poses), poses[1], -depth, "sunk")) {
    return 1;
  }
  poses[1].position.z() = kHalf + 0.5e-3;
  if (!CheckCorners(detector.FindContacts(poses), poses[1], 0.5e-3,
                    "lifted 0.5 mm")) {
    return 1;
  }
  poses[1].position.z() = kHalf + 2e-3;
  const std::size_t far = detector.FindContacts(poses).size();
  if (far != 0) {
    std::printf("lifted 2 mm (margin 1 mm): %zu contacts, expected 0\n", far);
    return 1;
  }
  std::printf(
      "collision: box on plane sunk 1 mm: 4 contacts, depth 1.000e-03 m, "
      "normal (0, 0, 1); lifted 0.5 mm: 4 at phi 5.0e-04 m; lifted 2 mm: 0\n");
  return 0;
}
