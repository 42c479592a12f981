#include <algorithm>
#include <cmath>
#include <sstream>

#include "sapcontact/geometry/mesh_file.h"
#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/sim/robot/sdf_reader.h"

namespace sapcontact {
namespace sdf_loader_internal {

namespace fs = std::filesystem;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;

bool SdfReader::ReadShape(const sdf::Geometry& geom, const sdf::ElementPtr& e,
                          bool moving, Shape* shape, std::string* mesh_file,
                          bool* approximated) {
  *approximated = false;
  try {
    switch (geom.Type()) {
      case sdf::GeometryType::BOX: {
        const auto s = geom.BoxShape()->Size();
        *shape = MakeBox(s.X(), s.Y(), s.Z());
        break;
      }
      case sdf::GeometryType::SPHERE:
        *shape = MakeSphere(geom.SphereShape()->Radius());
        break;
      case sdf::GeometryType::CYLINDER:
        *shape = MakeCylinder(geom.CylinderShape()->Radius(),
                              geom.CylinderShape()->Length());
        break;
      case sdf::GeometryType::CAPSULE:
        *shape = MakeCapsule(geom.CapsuleShape()->Radius(),
                             geom.CapsuleShape()->Length());
        break;
      case sdf::GeometryType::ELLIPSOID: {
        const auto r = geom.EllipsoidShape()->Radii();
        *shape = MakeSphere(std::max({r.X(), r.Y(), r.Z()}));
        *approximated = true;
        break;
      }
      case sdf::GeometryType::PLANE: {
        if (moving) {
          Fail(e,
               "a <plane> on a moving link (planes are fixed in the "
               "world: put it in a static model)");
        }
        *shape = MakePlane();
        break;
      }
      case sdf::GeometryType::MESH: {
        const sdf::Mesh& m = *geom.MeshShape();
        *mesh_file = ResolveUri(m.Uri(), m.Element());
        auto mesh = LoadMeshShape(*mesh_file, m.Uri(), ToVector(m.Scale()),
                                  /*centre=*/false, options_.mesh_limits);
        *shape = MakeMesh(mesh);
        *approximated = !HullApproximation(*mesh).empty();
        break;
      }
      case sdf::GeometryType::EMPTY:
        return false;
      default:
        Fail(e,
             "this geometry (heightmap, polyline) is not supported: "
             "box, sphere, cylinder, capsule, ellipsoid, plane or mesh");
    }
  } catch (const SdfError&) {
    throw;
  } catch (const std::exception& ex) {  // MeshError, a bad size
    Fail(e, ex.what());
  }
  return true;
}

double SdfReader::Friction(const sdf::Collision& c,
                           std::vector<std::string>* warnings) const {
  sdf::ElementPtr ode = c.Element();
  for (const char* tag : {"surface", "friction", "ode"}) {
    if (ode == nullptr || !ode->HasElement(tag)) return 1.0;
    ode = ode->GetElement(tag);
  }
  if (!ode->HasElement("mu")) return 1.0;
  const sdf::ElementPtr e = ode->GetElement("mu");
  const double mu = e->Get<double>();
  if (!std::isfinite(mu) || mu < 0.0) {
    Fail(e, "friction mu must be finite and >= 0");
  }
  if (ode->HasElement("mu2")) {
    const double mu2 = ode->GetElement("mu2")->Get<double>();
    if (mu2 != mu) {
      std::ostringstream w;
      w << Where(c.Element()) << ": mu2 = " << mu2
        << " differs from mu = " << mu
        << ": friction is isotropic here, mu is used";
      warnings->push_back(w.str());
    }
  }
  return mu;
}

int SdfReader::Bitmask(const sdf::Collision& c) const {
  if (c.Surface() == nullptr || c.Surface()->Contact() == nullptr) {
    return 0xffff;
  }
  return c.Surface()->Contact()->CollideBitmask();
}

void SdfReader::ReadStatic(const sdf::Model& model, const Isometry3d& X_WM) {
  std::vector<LinkInfo> links;
  std::vector<JointInfo> joints;
  Flatten(model, "", Isometry3d::Identity(), &links, &joints);
  for (const LinkInfo& info : links) {
    const sdf::Link& link = *info.link;
    for (uint64_t k = 0; k < link.CollisionCount(); ++k) {
      const sdf::Collision& c = *link.CollisionByIndex(k);
      WorldGeometry w;
      bool approximated = false;
      if (!ReadShape(*c.Geom(), c.Element(), false, &w.shape, &w.mesh_file,
                     &approximated)) {
        continue;
      }
      if (approximated) {
        world_.warnings.push_back(
            Where(c.Element()) +
            ": collides as an approximation (an ellipsoid as the sphere of "
            "its largest radius, a mesh that is not convex as its hull)");
      }
      ignition::math::Pose3d X_LC;
      c.SemanticPose().Resolve(X_LC);
      Isometry3d X_WG = X_WM * info.X_ML * ToIsometry(X_LC);
      if (w.shape.type == ShapeType::kPlane) {
        // Our plane is z = 0 of its frame: turn z onto the normal.
        const Vector3d n =
            ToVector(c.Geom()->PlaneShape()->Normal()).normalized();
        X_WG.linear() = X_WG.linear() *
                        Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), n)
                            .toRotationMatrix();
      }
      w.pose = ToPose(X_WG);
      w.name = model.Name() + "/" + info.name + "/" + c.Name();
      w.surface.friction = Friction(c, &world_.warnings);
      w.contype = w.conaffinity = Bitmask(c);
      world_.world_geometries.push_back(w);
    }
  }
}

// Collisions and visuals of an SDFormat link on tree link `link`, whose
// frame T has X_TL to the SDFormat link frame L.
void SdfReader::AddLinkGeometry(const LinkInfo& info, int link,
                                const Isometry3d& X_TL, int robot,
                                RobotDescription* d) {
  const sdf::Link& l = *info.link;
  for (uint64_t k = 0; k < l.CollisionCount(); ++k) {
    const sdf::Collision& c = *l.CollisionByIndex(k);
    RobotGeometry g;
    std::string mesh_file;
    bool approximated = false;
    if (!ReadShape(*c.Geom(), c.Element(), true, &g.shape, &mesh_file,
                   &approximated)) {
      continue;
    }
    if (approximated) {
      d->warnings.push_back(
          Where(c.Element()) +
          ": collides as an approximation (an ellipsoid as the sphere of its "
          "largest radius, a mesh that is not convex as its hull)");
      ++d->collision_counts.approximated;
    }
    ignition::math::Pose3d X_LC;
    c.SemanticPose().Resolve(X_LC);
    g.name = info.name + "/" + c.Name();
    g.link = link;
    g.pose_in_link = ToPose(X_TL * ToIsometry(X_LC));
    d->geometries.push_back(g);
    ContactSurface surface;
    surface.friction = Friction(c, &d->warnings);
    world_.geometry_surfaces[robot].push_back(surface);
    const int mask = Bitmask(c);
    world_.geometry_masks[robot].push_back({mask, mask});
    ++d->collision_counts.loaded;
  }
  if (!options_.load_visuals) return;
  for (uint64_t k = 0; k < l.VisualCount(); ++k) {
    const sdf::Visual& vis = *l.VisualByIndex(k);
    VisualGeometry v;
    v.name = info.name + "/" + vis.Name();
    v.link = link;
    const sdf::Geometry& geom = *vis.Geom();
    try {
      switch (geom.Type()) {
        case sdf::GeometryType::BOX:
          v.type = ShapeType::kBox;
          v.size = ToVector(geom.BoxShape()->Size());
          break;
        case sdf::GeometryType::SPHERE:
          v.type = ShapeType::kSphere;
          v.radius = geom.SphereShape()->Radius();
          break;
        case sdf::GeometryType::CYLINDER:
          v.type = ShapeType::kCylinder;
          v.radius = geom.CylinderShape()->Radius();
          v.length = geom.CylinderShape()->Length();
          break;
        case sdf::GeometryType::CAPSULE:
          v.type = ShapeType::kCapsule;
          v.radius = geom.CapsuleShape()->Radius();
          v.length = geom.CapsuleShape()->Length();
          break;
        case sdf::GeometryType::MESH: {
          const sdf::Mesh& m = *geom.MeshShape();
          v.type = ShapeType::kMesh;
          v.file = ResolveUri(m.Uri(), m.Element());
          v.mesh = visual_meshes_.Get(v.file, ToVector(m.Scale()));
          break;
        }
        default:
          d->warnings.push_back(Where(vis.Element()) +
                                ": this visual geometry is not drawn");
          ++d->visual_counts.dropped;
          continue;
      }
    } catch (const std::exception& ex) {
      d->warnings.push_back(Where(vis.Element()) + ": not drawn: " + ex.what());
      ++d->visual_counts.dropped;
      continue;
    }
    ignition::math::Pose3d X_LV;
    vis.SemanticPose().Resolve(X_LV);
    v.pose_in_link = ToPose(X_TL * ToIsometry(X_LV));
    if (const sdf::Material* m = vis.Material()) {
      const auto c = m->Diffuse();
      if (m->Element() && m->Element()->HasElement("diffuse")) {
        v.rgba = Eigen::Vector4d(c.R(), c.G(), c.B(), c.A());
        v.coloured = true;
      }
    }
    d->visuals.push_back(v);
    ++d->visual_counts.loaded;
  }
}

}  // namespace sdf_loader_internal
}  // namespace sapcontact
