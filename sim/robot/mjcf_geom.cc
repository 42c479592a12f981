#include "sapcontact/sim/robot/mjcf_geom.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace sapcontact {
namespace {

using Eigen::Vector3d;
using Eigen::VectorXd;

// Rotational inertia of a solid ellipsoid of mass m and semi-axes a, b, c
// about its centre.
Eigen::Matrix3d EllipsoidInertia(double m, const Vector3d& r) {
  return (m / 5.0 *
          Vector3d(r.y() * r.y() + r.z() * r.z(), r.x() * r.x() + r.z() * r.z(),
                   r.x() * r.x() + r.y() * r.y()))
      .asDiagonal();
}

// A warning about an attribute, once per element that sets it (a default
// class's <geom> line for every geom that inherits it).
void WarnOnce(std::vector<std::string>* warnings, const std::string& w) {
  if (std::find(warnings->begin(), warnings->end(), w) == warnings->end()) {
    warnings->push_back(w);
  }
}

// condim, solref, solmix; the contact attributes we do not model (solimp,
// margin, gap, priority, torsional and rolling friction) warned at the line
// that sets them.
void ReadContactAttributes(const MjcfDocument& doc,
                           const MjcfDocument::Element* e,
                           const std::string& cls, MjcfGeom* g,
                           std::vector<std::string>* warnings) {
  const double condim = doc.Number(e, "condim", cls, 3.0);
  if (condim != 1.0 && condim != 3.0 && condim != 4.0 && condim != 6.0) {
    doc.Fail(e, "condim must be 1, 3, 4 or 6");
  }
  g->condim = static_cast<int>(condim);
  if (g->condim > 3) {
    WarnOnce(warnings, doc.Where(doc.Owner(e, "condim", cls)) +
                           ": condim=" + std::to_string(g->condim) +
                           ": torsional and rolling friction are not "
                           "modelled (sliding friction only, as condim 3)");
  }
  g->solref = doc.Numbers(e, "solref", cls, Eigen::Vector2d(0.02, 1.0));
  const bool standard = g->solref[0] > 0.0 && g->solref[1] > 0.0;
  const bool direct = g->solref[0] < 0.0 && g->solref[1] <= 0.0;
  if (!standard && !direct) {
    doc.Fail(doc.Owner(e, "solref", cls),
             "solref must be two positive numbers (timeconst, dampratio) or "
             "a negative and a non-positive one (-stiffness, -damping)");
  }
  g->solmix = doc.Number(e, "solmix", cls, 1.0);
  if (!(g->solmix >= 0.0)) doc.Fail(e, "solmix must be >= 0");
  if (const MjcfDocument::Element* o = doc.Owner(e, "solimp", cls)) {
    WarnOnce(warnings, doc.Where(o) +
                           ": solimp is not modelled: contacts follow "
                           "solref's spring-damper at full impedance "
                           "(docs/robots.md, MJCF contact parameters)");
  }
  for (const char* a : {"margin", "gap"}) {
    const double x = doc.Number(e, a, cls, 0.0);
    if (x != 0.0) {
      std::ostringstream w;
      w << doc.Where(doc.Owner(e, a, cls)) << ": " << a << "=" << x
        << " is not modelled: geoms touch at zero distance (MuJoCo holds "
           "them margin - gap apart)";
      WarnOnce(warnings, w.str());
    }
  }
  if (doc.Number(e, "priority", cls, 0.0) != 0.0) {
    WarnOnce(warnings, doc.Where(doc.Owner(e, "priority", cls)) +
                           ": priority is not modelled: a pair mixes its "
                           "geoms' parameters (larger friction, solref by "
                           "solmix)");
  }
}

}  // namespace

ContactSurface MjcfContactSurface(const MjcfGeom& geom, double time_step) {
  ContactSurface s;
  s.friction = geom.friction;
  s.frictional = geom.condim > 1;
  s.mix = geom.solmix;
  if (geom.solref[0] > 0.0) {
    const double tc = std::max(geom.solref[0], 2.0 * time_step);
    const double z = geom.solref[1];
    s.stiffness_per_mass = 1.0 / (tc * tc * z * z);
    s.damping_per_mass = 2.0 / tc;
  } else {
    s.stiffness_per_mass = -geom.solref[0];
    s.damping_per_mass = -geom.solref[1];
  }
  return s;
}

MjcfGeom ReadMjcfGeom(
    const MjcfDocument& doc, const MjcfDocument::Element* e,
    const std::string& cls, const Eigen::Isometry3d& X_WB,
    const std::map<std::string, const MjcfDocument::Element*>& meshes,
    const MeshLimits& limits, std::vector<std::string>* warnings) {
  MjcfGeom g;
  const char* name = e->Attribute("name");
  g.name = name != nullptr ? name : "";
  const std::string type = doc.Text(e, "type", cls, "sphere");
  // size: up to 3 numbers, unused ones 0 (MuJoCo's default size is 0).
  const VectorXd size =
      doc.Numbers(e, "size", cls, VectorXd::Zero(3), /*min_count=*/1);
  const char* fromto_text = doc.Find(e, "fromto", cls);

  // The frame: fromto (capsule, cylinder, box, ellipsoid) or pos and
  // orientation.
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  double half_length = size[1];
  if (fromto_text != nullptr) {
    if (type != "capsule" && type != "cylinder" && type != "box" &&
        type != "ellipsoid") {
      doc.Fail(e,
               "fromto is for capsule, cylinder, box and ellipsoid geoms, "
               "not " +
                   type);
    }
    const VectorXd ft = doc.Numbers(e, "fromto", cls, VectorXd::Zero(6));
    const Vector3d a = ft.head<3>(), b = ft.tail<3>();
    if ((b - a).norm() < 1e-10) doc.Fail(e, "fromto's two points coincide");
    X.translation() = 0.5 * (a + b);
    // MuJoCo's z axis points from the second point to the first.
    X.linear() = MjcfZAxisToQuaternion(a - b).toRotationMatrix();
    half_length = 0.5 * (b - a).norm();
  } else {
    X.translation() = doc.Numbers(e, "pos", cls, VectorXd::Zero(3));
    X.linear() = doc.Orientation(e).toRotationMatrix();
  }
  if (doc.compiler().global) X = X_WB.inverse() * X;

  const auto need = [&](int n) {
    for (int i = 0; i < n; ++i) {
      if (!(size[i] > 0.0)) {
        doc.Fail(e, "a " + type + " needs " + std::to_string(n) +
                        " positive size entr" + (n == 1 ? "y" : "ies"));
      }
    }
  };
  Vector3d ellipsoid_radii = Vector3d::Zero();
  std::shared_ptr<const MeshShape> mesh;
  if (type == "plane") {
    g.shape = MakePlane();
  } else if (type == "sphere") {
    need(1);
    g.shape = MakeSphere(size[0]);
  } else if (type == "capsule" || type == "cylinder") {
    need(1);
    if (!(half_length > 0.0)) {
      doc.Fail(e, "a " + type +
                      " needs a half-length (size's second entry) "
                      "or fromto");
    }
    g.shape = type == "capsule" ? MakeCapsule(size[0], 2.0 * half_length)
                                : MakeCylinder(size[0], 2.0 * half_length);
  } else if (type == "box") {
    Vector3d h = size.head<3>();
    if (fromto_text != nullptr) h.z() = half_length;
    if (!(h.minCoeff() > 0.0)) doc.Fail(e, "a box needs 3 positive half sizes");
    g.shape = MakeBox(2 * h.x(), 2 * h.y(), 2 * h.z());
  } else if (type == "ellipsoid") {
    ellipsoid_radii = size.head<3>();
    if (fromto_text != nullptr) ellipsoid_radii.z() = half_length;
    if (!(ellipsoid_radii.minCoeff() > 0.0)) {
      doc.Fail(e, "an ellipsoid needs 3 positive radii");
    }
    g.shape = MakeSphere(ellipsoid_radii.maxCoeff());
    g.approximated = true;
    warnings->push_back(doc.Where(e) +
                        ": an ellipsoid collides as the sphere of its largest "
                        "radius (its mass properties are the ellipsoid's)");
  } else if (type == "mesh") {
    const std::string mesh_name = doc.Text(e, "mesh", cls, "");
    auto it = meshes.find(mesh_name);
    if (it == meshes.end()) {
      doc.Fail(e, mesh_name.empty()
                      ? "a mesh geom needs mesh=\"...\""
                      : "no <mesh> asset named '" + mesh_name + "'");
    }
    const MjcfDocument::Element* m = it->second;
    const char* file = m->Attribute("file");
    if (file == nullptr) doc.Fail(m, "a <mesh> needs a file");
    g.mesh_file = doc.Resolve(file, doc.compiler().mesh_dir);
    const Vector3d scale = doc.Numbers(m, "scale", "", Vector3d::Ones());
    try {
      mesh = LoadMeshShape(g.mesh_file, file, scale, /*centre=*/false, limits);
    } catch (const std::exception& ex) {
      doc.Fail(e, std::string("mesh '") + mesh_name + "': " + ex.what());
    }
    g.shape = MakeMesh(mesh);
    // A mesh that is not convex collides as its hull (HullApproximation).
    const std::string hull = HullApproximation(*mesh);
    if (!hull.empty()) {
      g.approximated = true;
      warnings->push_back(doc.Where(e) + ": " + hull);
    }
  } else {
    g.collides = false;
    g.supported = false;
    warnings->push_back(doc.Where(e) + ": geom type '" + type +
                        "' is not supported: it takes no part in contact or "
                        "mass");
    return g;
  }
  g.pose.position = X.translation();
  g.pose.orientation = Eigen::Quaterniond(X.linear()).normalized();

  // contype/conaffinity 0: a visual geom.
  const double contype = doc.Number(e, "contype", cls, 1.0);
  const double conaffinity = doc.Number(e, "conaffinity", cls, 1.0);
  if (contype < 0 || conaffinity < 0 || contype != std::floor(contype) ||
      conaffinity != std::floor(conaffinity) || contype > 2147483647.0 ||
      conaffinity > 2147483647.0) {
    doc.Fail(e, "contype and conaffinity must be non-negative integers");
  }
  g.contype = static_cast<int>(contype);
  g.conaffinity = static_cast<int>(conaffinity);
  g.collides = g.contype != 0 || g.conaffinity != 0;
  g.friction =
      doc.Numbers(e, "friction", cls, Vector3d(1.0, 0.005, 0.0001), 1)[0];
  g.rgba = doc.Numbers(e, "rgba", cls, Eigen::Vector4d(0.5, 0.5, 0.5, 1.0));
  if (g.collides) ReadContactAttributes(doc, e, cls, &g, warnings);

  if (type == "plane") return g;  // no mass
  // Mass properties: mass="..." or density (1000 kg/m^3) times volume.
  const char* mass_text = doc.Find(e, "mass", cls);
  const double density = doc.Number(e, "density", cls, 1000.0);
  if (!(density >= 0.0)) doc.Fail(e, "density must be >= 0");
  double volume = 0.0;
  Eigen::Matrix3d unit_inertia;  // per unit mass, about the centroid
  Vector3d centroid = Vector3d::Zero();
  if (type == "ellipsoid") {
    volume = 4.0 / 3.0 * M_PI * ellipsoid_radii.prod();
    unit_inertia = EllipsoidInertia(1.0, ellipsoid_radii);
  } else if (type == "mesh") {
    if (!mesh->closed || !(mesh->volume > 0.0)) {
      g.mass_error =
          "the mesh is not closed, so it has no volume to give "
          "its mass properties (give the body an <inertial>)";
      return g;
    }
    volume = mesh->volume;
    unit_inertia = MassPropertiesFromMass(g.shape, 1.0).inertia;
    centroid = mesh->centroid;
  } else {
    volume = Volume(g.shape);
    if (!(volume > 0.0) || !std::isfinite(volume)) {
      doc.Fail(e, "the " + type +
                      "'s volume is not a positive finite "
                      "number (its size is out of range)");
    }
    unit_inertia = MassPropertiesFromMass(g.shape, 1.0).inertia;
  }
  g.mass =
      mass_text != nullptr ? doc.Number(e, "mass", cls, 0.0) : density * volume;
  if (!(g.mass >= 0.0) || !std::isfinite(g.mass)) {
    doc.Fail(e, "mass must be finite and >= 0");
  }
  const Eigen::Matrix3d R = X.linear();
  g.com = X * centroid;
  g.inertia = g.mass * R * unit_inertia * R.transpose();
  return g;
}

}  // namespace sapcontact
