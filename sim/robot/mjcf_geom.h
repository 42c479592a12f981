// One MJCF <geom> with MuJoCo's compiler semantics: its frame (pos and
// orientation, or fromto), its shape from type and size, and its mass
// properties from mass or density (MuJoCo's closed forms; a mesh by the
// divergence theorem). Used by LoadMjcf (mjcf_loader.h).
#pragma once

#include <Eigen/Core>
#include <string>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/robot/mjcf_document.h"
#include "sapcontact/sim/robot/world_description.h"

namespace sapcontact {

struct MjcfGeom {
  std::string name;
  /// The collision shape; a plane for type="plane". `collides` false: the
  /// geom takes part in no contact (contype = conaffinity = 0, or a type
  /// we cannot collide, warned).
  Shape shape;
  bool collides{true};
  /// false: a type we do not read (warned): no shape, no mass, not drawn.
  bool supported{true};
  /// An ellipsoid collides as the sphere of its largest radius, a mesh
  /// that is not convex as its hull (both warned).
  bool approximated{false};
  /// Pose of the shape frame in the body frame (global coordinates
  /// already resolved by the caller's X_WB).
  Pose pose;
  /// Mass [kg], centre of mass in the body frame [m] and rotational
  /// inertia about it in body axes [kg m^2]; zero for a plane.
  double mass{0.0};
  Eigen::Vector3d com{Eigen::Vector3d::Zero()};
  Eigen::Matrix3d inertia{Eigen::Matrix3d::Zero()};
  /// Not empty: the mass properties are unknown (an open mesh), and why.
  std::string mass_error;
  /// contype and conaffinity bit masks (MuJoCo collides two geoms when
  /// (contype_a & conaffinity_b) || (contype_b & conaffinity_a)).
  int contype{1};
  int conaffinity{1};
  /// friction's first entry (sliding), and rgba.
  double friction{1.0};
  /// condim (1, 3, 4 or 6), solref (timeconst [s], dampratio, or the direct
  /// form -stiffness [1/s^2], -damping [1/s]) and solmix, as written or
  /// defaulted (MuJoCo's defaults 3, (0.02, 1), 1).
  int condim{3};
  Eigen::Vector2d solref{0.02, 1.0};
  double solmix{1.0};
  Eigen::Vector4d rgba{0.5, 0.5, 0.5, 1.0};
  /// A mesh geom's file (absolute), for the visuals.
  std::string mesh_file;
};

/// The geom's surface (sim/robot/world_description.h) in a model stepped at
/// `time_step` [s]: friction, frictionless for condim 1, and solref as a
/// spring-damper per unit mass, as MuJoCo's reference acceleration
/// a = -b v - k r at full impedance:
///   timeconst tc > 0:  k = 1 / (tc dampratio)^2,  b = 2 / tc, with
///                      tc = max(tc, 2 time_step) (MuJoCo's refsafe);
///   direct form:       k = -solref[0],  b = -solref[1].
ContactSurface MjcfContactSurface(const MjcfGeom& geom, double time_step);

/// Reads geom `e` of default class `cls` in a body whose world pose at
/// qpos0 is X_WB (used only under coordinate="global"). `meshes` maps
/// <asset><mesh> names to their elements. Problems the reader can carry on
/// past go to `warnings` ("file:line: <geom>: ...").
MjcfGeom ReadMjcfGeom(
    const MjcfDocument& doc, const MjcfDocument::Element* e,
    const std::string& cls, const Eigen::Isometry3d& X_WB,
    const std::map<std::string, const MjcfDocument::Element*>& meshes,
    const MeshLimits& limits, std::vector<std::string>* warnings);

}  // namespace sapcontact
