// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the geometry component (contact_model's conventions, assimp, qhull). The
// convex hull (qhull) of the eight corners of a unit cube and 100 points
// inside it: 8 vertices, 6 quadrilateral faces, volume 1; and the mass
// properties of a box and a cylinder against their closed forms
// (m = rho V; box m/12 (y^2 + z^2), cylinder m/12 (3 r^2 + L^2) and
// m r^2 / 2). Exit status 0 when all agree (relative 1e-12), 1 otherwise.
#include <sapcontact/geometry/convex_hull.h>
#include <sapcontact/geometry/shapes.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

bool Near(double a, double b, const char* what) {
  if (std::abs(a - b) <= 1e-12 * std::abs(b)) return true;
  std::printf("%s: %.17g, expected %.17g\n", what, a, b);
  return false;
}

}  // namespace

int main() {
  using namespace sapcontact;
  std::vector<Vector3> points;
  for (int k = 0; k < 8; ++k) {
    points.emplace_back(k & 1, (k >> 1) & 1, (k >> 2) & 1);
  }
  for (int i = 1; i <= 100; ++i) {  // inside: fractions of a Weyl sequence
    points.emplace_back(0.05 + 0.9 * std::fmod(i * 0.7548776662, 1.0),
                        0.05 + 0.9 * std::fmod(i * 0.5698402910, 1.0),
                        0.05 + 0.9 * std::fmod(i * 0.3819660113, 1.0));
  }
  const ConvexHull hull = BuildConvexHull(points, "unit cube");
  if (hull.vertices.size() != 8 || hull.faces.size() != 6) {
    std::printf("hull of the cube: %zu vertices, %zu faces; expected 8, 6\n",
                hull.vertices.size(), hull.faces.size());
    return 1;
  }
  for (const auto& face : hull.faces) {
    if (face.vertices.size() != 4) {
      std::printf("a hull face has %zu vertices, expected 4\n",
                  face.vertices.size());
      return 1;
    }
  }
  const double rho = 1000, x = 0.3, y = 0.2, z = 0.1, r = 0.05, l = 0.4;
  const MassProperties box = MassPropertiesFromDensity(MakeBox(x, y, z), rho);
  const double mb = rho * x * y * z;
  const MassProperties cyl = MassPropertiesFromDensity(MakeCylinder(r, l), rho);
  const double mc = rho * 3.14159265358979323846 * r * r * l;
  if (!Near(hull.volume, 1.0, "hull volume") ||
      !Near(box.mass, mb, "box mass") ||
      !Near(box.inertia(0, 0), mb / 12 * (y * y + z * z), "box Ixx") ||
      !Near(box.inertia(2, 2), mb / 12 * (x * x + y * y), "box Izz") ||
      !Near(cyl.mass, mc, "cylinder mass") ||
      !Near(cyl.inertia(0, 0), mc / 12 * (3 * r * r + l * l), "cylinder Ixx") ||
      !Near(cyl.inertia(2, 2), mc * r * r / 2, "cylinder Izz")) {
    return 1;
  }
  std::printf(
      "geometry: hull of a cube and 100 inner points 8 vertices, 6 faces, "
      "volume 1; box and cylinder mass properties as the closed forms\n");
  return 0;
}
