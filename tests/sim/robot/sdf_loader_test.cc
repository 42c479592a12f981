// The SDFormat front end: Atlas's SDF against its URDF twin (masses,
// inertias, frames, joint axes, collision shapes), the pendulum of an
// inline model against its closed-form inertia, worlds (static models,
// physics, gravity, <include> through package_paths), chained joints,
// nested models, and errors that name file, line and element.
#include "sapcontact/sim/robot/sdf_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/robot/urdf_loader.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;

const char* const kSdfData = "/usr/share/doc/dart/data/sdf";

std::string SdfTempDir() {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_sdf_unit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

std::string WriteSdfFile(const std::string& name, const std::string& text) {
  const std::string path = SdfTempDir() + "/" + name;
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
  return path;
}

std::string SdfErrorOf(const std::string& xml, const SdfOptions& options = {}) {
  try {
    ParseSdf(xml, "model.sdf", options);
  } catch (const SdfError& e) {
    return e.what();
  }
  return "(no error)";
}

int SdfLineOf(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  int line = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

std::string Model(const std::string& body) {
  return "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n" + body + "</sdf>\n";
}

// Atlas's SDF and URDF describe the same robot: every link's frame, mass,
// centre of mass and inertia in the world, every joint's axis in the world
// and every collision mesh agree.
TEST(SdfLoader, AtlasSdfMatchesItsUrdfTwin) {
  const std::string sdf_path =
      std::string(kSdfData) + "/atlas/atlas_v3_no_head.sdf";
  const std::string urdf_path =
      std::string(kSdfData) + "/atlas/atlas_v3_no_head.urdf";
  if (!fs::exists(sdf_path)) GTEST_SKIP() << sdf_path;
  const WorldDescription world = LoadSdf(sdf_path);
  ASSERT_EQ(world.robots.size(), 1u);
  const RobotDescription& sdf = world.robots[0];
  EXPECT_EQ(sdf.name, "drc_skeleton");
  UrdfOptions options;
  options.floating_base = true;
  const RobotDescription urdf = LoadUrdf(urdf_path, options);
  // The URDF adds six camera frames on fixed joints (no mass); the
  // moving joints are the same.
  ASSERT_EQ(sdf.tree.num_links(), 28);
  ASSERT_EQ(urdf.tree.num_links(), 34);
  ASSERT_EQ(sdf.tree.num_velocities(), urdf.tree.num_velocities());
  EXPECT_EQ(sdf.tree.joint(0).type, JointType::kFloating);
  std::vector<Isometry3d> X_sdf, X_urdf;
  CalcLinkPoses(sdf.tree, sdf.initial_positions, &X_sdf);
  CalcLinkPoses(urdf.tree, urdf.initial_positions, &X_urdf);
  for (int i = 0; i < sdf.tree.num_links(); ++i) {
    const Link& ls = sdf.tree.link(i);
    const int u = urdf.tree.FindLink(ls.name);
    ASSERT_GE(u, 0) << ls.name;
    const Link& lu = urdf.tree.link(u);
    SCOPED_TRACE(ls.name);
    EXPECT_LT((X_sdf[i].matrix() - X_urdf[u].matrix()).norm(), 1e-9);
    // The SDF was converted from the URDF with fixed joints lumped: a URDF
    // link's composite with its fixed children that the SDF lacks (the
    // cameras on utorso).
    double mass_u = 0.0;
    Vector3d moment_u = Vector3d::Zero();
    std::vector<int> lumped;
    for (int k = 0; k < urdf.tree.num_links(); ++k) {
      int a = k;
      while (a != u && a >= 0 &&
             sdf.tree.FindLink(urdf.tree.link(a).name) < 0 &&
             urdf.tree.joint(a).type == JointType::kFixed) {
        a = urdf.tree.joint(a).parent;
      }
      if (a != u) continue;
      lumped.push_back(k);
      const LinkInertia& in = urdf.tree.link(k).inertia;
      mass_u += in.mass;
      moment_u += in.mass * (X_urdf[k] * in.com);
    }
    const Vector3d com_u = moment_u / mass_u;
    Matrix3d I_u = Matrix3d::Zero();
    for (int k : lumped) {
      const LinkInertia& in = urdf.tree.link(k).inertia;
      const Vector3d r = X_urdf[k] * in.com - com_u;
      I_u += X_urdf[k].linear() * in.inertia * X_urdf[k].linear().transpose() +
             in.mass *
                 (r.squaredNorm() * Matrix3d::Identity() - r * r.transpose());
    }
    // A lumped link's values are printed to six digits in the SDF.
    const double tol = lumped.size() == 1 ? 1e-9 : 1e-5;
    EXPECT_NEAR(ls.inertia.mass, mass_u, 1e-12 * mass_u);
    const Vector3d com_s = X_sdf[i] * ls.inertia.com;
    EXPECT_LT((com_s - com_u).norm(), tol);
    const Matrix3d I_s =
        X_sdf[i].linear() * ls.inertia.inertia * X_sdf[i].linear().transpose();
    EXPECT_LT((I_s - I_u).norm(), tol * (1.0 + I_u.norm()));
    EXPECT_EQ(lumped.size() > 1, ls.name == "utorso");
    (void)lu;
    if (i > 0) {
      const Joint& js = sdf.tree.joint(i);
      const Joint& ju = urdf.tree.joint(u);
      EXPECT_EQ(js.name, ju.name);
      EXPECT_EQ(js.type, ju.type);
      const int ps = js.parent, pu = ju.parent;
      EXPECT_EQ(sdf.tree.link(ps).name, urdf.tree.link(pu).name);
      const Vector3d axis_s = X_sdf[i].linear() * js.axis;
      const Vector3d axis_u = X_urdf[u].linear() * ju.axis;
      EXPECT_LT((axis_s - axis_u).norm(), 1e-9);
      EXPECT_NEAR(js.lower, ju.lower, 1e-12);
      EXPECT_NEAR(js.upper, ju.upper, 1e-12);
      EXPECT_NEAR(js.damping, ju.damping, 1e-12);
    }
  }
  // The same collision meshes on the same links at the same poses.
  int shared = 0;
  for (const RobotGeometry& g : urdf.geometries) {
    shared += sdf.tree.FindLink(urdf.tree.link(g.link).name) >= 0;
  }
  EXPECT_EQ(static_cast<int>(sdf.geometries.size()), shared);
  std::multimap<std::string, const RobotGeometry*> by_link;
  for (const RobotGeometry& g : urdf.geometries) {
    by_link.emplace(urdf.tree.link(g.link).name, &g);
  }
  for (const RobotGeometry& g : sdf.geometries) {
    const std::string link = sdf.tree.link(g.link).name;
    const int u = urdf.tree.FindLink(link);
    bool found = false;
    for (auto [it, end] = by_link.equal_range(link); it != end; ++it) {
      const RobotGeometry& h = *it->second;
      if (h.shape.type != g.shape.type) continue;
      const Isometry3d Xs =
          X_sdf[g.link] *
          Isometry3d(Eigen::Translation3d(g.pose_in_link.position) *
                     g.pose_in_link.orientation);
      const Isometry3d Xu =
          X_urdf[u] * Isometry3d(Eigen::Translation3d(h.pose_in_link.position) *
                                 h.pose_in_link.orientation);
      if ((Xs.matrix() - Xu.matrix()).norm() < 1e-9 &&
          (g.shape.type != ShapeType::kMesh ||
           fs::path(g.shape.mesh->file).filename() ==
               fs::path(h.shape.mesh->file).filename())) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << g.name;
  }
  EXPECT_EQ(world.robot_self_collision[0], false);
}

// A rod hung from the world by a revolute joint whose frame is offset
// from the link frame: the mass matrix is the inertia about the pivot,
// and the rest pose hangs below it.
TEST(SdfLoader, PendulumInertiaAboutItsPivot) {
  const std::string xml = Model(R"(<model name="pendulum">
  <pose>0 0 2 0 0 0</pose>
  <link name="rod">
    <pose>0 0 -0.5 0 0 0</pose>
    <inertial>
      <mass>2</mass>
      <inertia><ixx>0.2</ixx><iyy>0.25</iyy><izz>0.1</izz>
        <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
    </inertial>
    <collision name="c"><geometry><box><size>0.1 0.1 1</size></box></geometry>
      <surface><friction><ode><mu>0.4</mu></ode></friction></surface>
    </collision>
  </link>
  <joint name="hinge" type="revolute">
    <parent>world</parent><child>rod</child>
    <pose>0 0 0.5 0 0 0</pose>
    <axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1.5</upper></limit>
      <dynamics><damping>0.3</damping><spring_stiffness>4</spring_stiffness>
        <spring_reference>0.2</spring_reference></dynamics></axis>
  </joint>
</model>
)");
  const WorldDescription w = ParseSdf(xml, "pendulum.sdf");
  ASSERT_EQ(w.robots.size(), 1u);
  const RobotDescription& d = w.robots[0];
  EXPECT_EQ(d.name, "pendulum");
  // A single revolute joint to the world hangs from a massless "world".
  ASSERT_EQ(d.tree.num_links(), 2);
  EXPECT_EQ(d.tree.link(0).name, "world");
  EXPECT_EQ(d.tree.joint(0).type, JointType::kFixed);
  const Joint& j = d.tree.joint(1);
  EXPECT_EQ(j.name, "hinge");
  EXPECT_EQ(j.lower, -1.0);
  EXPECT_EQ(j.upper, 1.5);
  EXPECT_EQ(j.damping, 0.3);
  EXPECT_EQ(j.stiffness, 4.0);
  EXPECT_EQ(j.spring_reference, 0.2);
  Eigen::MatrixXd M;
  CalcMassMatrix(d.tree, d.initial_positions, &M);
  ASSERT_EQ(M.rows(), 1);
  EXPECT_NEAR(M(0, 0), 0.2 + 2.0 * 0.5 * 0.5, 1e-12);
  std::vector<Isometry3d> X;
  CalcLinkPoses(d.tree, d.initial_positions, &X);
  // The link frame is the joint frame (the pivot, at z = 2); the collision
  // box's centre is 0.5 m below it.
  EXPECT_LT((X[1].translation() - Vector3d(0, 0, 2)).norm(), 1e-12);
  ASSERT_EQ(d.geometries.size(), 1u);
  EXPECT_LT(
      (d.geometries[0].pose_in_link.position - Vector3d(0, 0, -0.5)).norm(),
      1e-12);
  EXPECT_EQ(w.geometry_surfaces[0][0].friction, 0.4);
  // The gravity torque at q = 0.3 is -m g l sin(q).
  Eigen::VectorXd q = d.initial_positions, c;
  q[0] = 0.3;
  CalcBiasForces(d.tree, q, Eigen::VectorXd::Zero(1), w.gravity, &c);
  EXPECT_NEAR(c[0], 2.0 * 9.81 * 0.5 * std::sin(0.3), 1e-12);
}

TEST(SdfLoader, WorldWithStaticModelsPhysicsAndFreeBodies) {
  const std::string xml = Model(R"(<world name="w">
  <gravity>0 0 -3</gravity>
  <physics type="ode"><max_step_size>0.004</max_step_size></physics>
  <light name="sun" type="directional"/>
  <model name="ground">
    <static>true</static>
    <link name="l">
      <collision name="plane"><geometry><plane><normal>0 1 1</normal>
        </plane></geometry>
        <surface><friction><ode><mu>0.6</mu><mu2>0.3</mu2></ode></friction>
        </surface>
      </collision>
    </link>
  </model>
  <model name="box">
    <pose>1 2 3 0 0 0.5</pose>
    <self_collide>true</self_collide>
    <link name="body">
      <inertial><mass>3</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz>
      </inertia></inertial>
      <collision name="c"><geometry><sphere><radius>0.2</radius></sphere>
      </geometry></collision>
    </link>
    <link name="other">
      <pose>0 0 1 0 0 0</pose>
      <collision name="c"><geometry><capsule><radius>0.1</radius>
        <length>0.4</length></capsule></geometry></collision>
    </link>
  </model>
</world>
)");
  const WorldDescription w = ParseSdf(xml, "world.sdf");
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.time_step, 0.004);
  EXPECT_EQ(w.gravity, Vector3d(0, 0, -3));
  ASSERT_EQ(w.world_geometries.size(), 1u);
  const WorldGeometry& plane = w.world_geometries[0];
  EXPECT_EQ(plane.name, "ground/l/plane");
  EXPECT_EQ(plane.shape.type, ShapeType::kPlane);
  EXPECT_EQ(plane.surface.friction, 0.6);
  // The plane's z axis is the normal.
  EXPECT_LT((plane.pose.orientation * Vector3d::UnitZ() -
             Vector3d(0, 1, 1).normalized())
                .norm(),
            1e-12);
  // Two root links: two floating robots named "<model>::<link>".
  ASSERT_EQ(w.robots.size(), 2u);
  EXPECT_EQ(w.robots[0].name, "box::body");
  EXPECT_EQ(w.robots[1].name, "box::other");
  EXPECT_TRUE(w.robot_self_collision[0]);
  const RobotDescription& body = w.robots[0];
  EXPECT_EQ(body.tree.joint(0).type, JointType::kFloating);
  EXPECT_EQ(body.tree.joint(0).name, "body_base");
  EXPECT_EQ(body.tree.link(0).inertia.mass, 3.0);
  const Eigen::VectorXd& q = body.initial_positions;
  EXPECT_LT((q.head<3>() - Vector3d(1, 2, 3)).norm(), 1e-12);
  EXPECT_NEAR(q[3], std::cos(0.25), 1e-12);
  EXPECT_NEAR(q[6], std::sin(0.25), 1e-12);
  // The other link is offset along the model's (rotated) z.
  EXPECT_LT(
      (w.robots[1].initial_positions.head<3>() - Vector3d(1, 2, 4)).norm(),
      1e-12);
  // Without <inertial>, SDFormat's default: 1 kg, unit inertia.
  EXPECT_EQ(w.robots[1].tree.link(0).inertia.mass, 1.0);
  EXPECT_EQ(w.robots[1].geometries[0].shape.type, ShapeType::kCapsule);
  EXPECT_EQ(w.robots[1].geometries[0].shape.length, 0.4);
  bool light_warned = false, mu2_warned = false;
  for (const std::string& s : w.warnings) {
    light_warned |= s.find("1 <light> ignored") != std::string::npos;
    mu2_warned |=
        s.find(
            "<collision name='plane'>: mu2 = 0.3 differs from "
            "mu = 0.6: friction is isotropic here") != std::string::npos;
  }
  EXPECT_TRUE(light_warned);
  EXPECT_TRUE(mu2_warned);
}

// ball -> three revolute joints, universal -> two, through massless links;
// a fixed joint welds; nested models' links are scoped.
TEST(SdfLoader, ChainedJointsAndNestedModels) {
  const std::string xml = Model(R"(<model name="arm">
  <link name="base"/>
  <link name="a"><pose>0 0 1 0 0 0</pose></link>
  <link name="b"><pose>0 0 2 0 0 0</pose></link>
  <model name="hand">
    <pose>0 0 3 0 0 0</pose>
    <link name="palm"/>
  </model>
  <joint name="weld" type="fixed"><parent>world</parent><child>base</child>
  </joint>
  <joint name="shoulder" type="ball"><parent>base</parent><child>a</child>
  </joint>
  <joint name="elbow" type="universal"><parent>a</parent><child>b</child>
    <axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2>
  </joint>
  <joint name="wrist" type="prismatic"><parent>b</parent>
    <child>hand::palm</child><axis><xyz>0 0 2</xyz></axis>
  </joint>
</model>
)");
  const WorldDescription w = ParseSdf(xml, "arm.sdf");
  ASSERT_EQ(w.robots.size(), 1u);
  const MultibodyTree& t = w.robots[0].tree;
  EXPECT_EQ(t.num_velocities(), 3 + 2 + 1);
  EXPECT_EQ(t.link(0).name, "base");
  EXPECT_EQ(t.joint(0).name, "weld");
  EXPECT_GE(t.FindJoint("shoulder_x"), 0);
  EXPECT_GE(t.FindJoint("shoulder_z"), 0);
  EXPECT_EQ(t.link(t.FindJoint("shoulder_x")).inertia.mass, 0.0);
  EXPECT_GE(t.FindJoint("elbow_2"), 0);
  const int palm = t.FindLink("hand::palm");
  ASSERT_GE(palm, 0);
  EXPECT_EQ(t.joint(palm).type, JointType::kPrismatic);
  EXPECT_LT((t.joint(palm).axis - Vector3d::UnitZ()).norm(), 1e-12);
  std::vector<Isometry3d> X;
  CalcLinkPoses(t, w.robots[0].initial_positions, &X);
  EXPECT_LT((X[palm].translation() - Vector3d(0, 0, 3)).norm(), 1e-12);
  bool ball_warned = false;
  for (const std::string& s : w.robots[0].warnings) {
    ball_warned |= s.find("three revolute joints") != std::string::npos;
  }
  EXPECT_TRUE(ball_warned);
}

TEST(SdfLoader, IncludeThroughPackagePaths) {
  const std::string models = SdfTempDir() + "/models";
  WriteSdfFile("models/ball/model.config",
               "<?xml version=\"1.0\"?>\n<model><name>ball</name>"
               "<sdf version=\"1.9\">model.sdf</sdf></model>\n");
  WriteSdfFile("models/ball/model.sdf", Model(R"(<model name="ball">
  <link name="l"><collision name="c"><geometry><sphere><radius>0.3</radius>
  </sphere></geometry></collision></link>
</model>
)"));
  const std::string xml = Model(R"(<world name="w">
  <include><uri>model://ball</uri><name>b1</name><pose>0 0 1 0 0 0</pose>
  </include>
</world>
)");
  // Unresolved: the error names the line and how to resolve it.
  SdfOptions none;
  none.use_environment = false;
  const std::string e = SdfErrorOf(xml, none);
  EXPECT_NE(e.find("model.sdf:" + std::to_string(SdfLineOf(xml, "<include>"))),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("model://ball"), std::string::npos) << e;
  EXPECT_NE(e.find("SDF_PATH"), std::string::npos) << e;
  SdfOptions options;
  options.use_environment = false;
  options.package_paths["ball"] = models + "/ball";
  const WorldDescription w = ParseSdf(xml, "world.sdf", options);
  ASSERT_EQ(w.robots.size(), 1u);
  EXPECT_EQ(w.robots[0].name, "b1");
  EXPECT_EQ(w.robots[0].geometries[0].shape.radius, 0.3);
  EXPECT_NEAR(w.robots[0].initial_positions[2], 1.0, 1e-12);
}

TEST(SdfLoader, ErrorsNameFileLineAndElement) {
  // Malformed XML.
  EXPECT_NE(
      SdfErrorOf("<sdf version=\"1.9\"><model name=\"m\">").find("model.sdf"),
      std::string::npos);
  // A screw joint.
  const std::string screw = Model(R"(<model name="m">
  <link name="a"/><link name="b"/>
  <joint name="s" type="screw"><parent>a</parent><child>b</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
</model>
)");
  const WorldDescription w = ParseSdf(screw, "model.sdf");
  ASSERT_EQ(w.robots.size(), 1u);
  const MultibodyTree& t = w.robots[0].tree;
  EXPECT_EQ(t.joint(t.FindJoint("s")).type, JointType::kFixed);
  bool warned = false;
  for (const std::string& x : w.robots[0].warnings) {
    warned |= x.find("model.sdf:" + std::to_string(SdfLineOf(screw, "<joint")) +
                     ": <joint name='s'>: this joint type (screw, gearbox) is "
                     "not supported: it is loaded as a fixed joint") !=
              std::string::npos;
  }
  EXPECT_TRUE(warned);
  std::string e;
  // A plane on a moving link.
  const std::string plane = Model(R"(<model name="m">
  <link name="a">
    <collision name="p"><geometry><plane><normal>0 0 1</normal></plane>
    </geometry></collision>
  </link>
</model>
)");
  e = SdfErrorOf(plane);
  EXPECT_NE(e.find("<collision name='p'>: a <plane> on a moving link"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(":" + std::to_string(SdfLineOf(plane, "<collision"))),
            std::string::npos)
      << e;
  // A missing mesh names the file it looked for.
  const std::string mesh = Model(R"(<model name="m">
  <link name="a">
    <collision name="m"><geometry><mesh><uri>no_such.stl</uri></mesh>
    </geometry></collision>
  </link>
</model>
)");
  e = SdfErrorOf(mesh);
  EXPECT_NE(e.find("<collision name='m'>"), std::string::npos) << e;
  EXPECT_NE(e.find("no_such.stl"), std::string::npos) << e;
  // A mesh URI whose model is nowhere.
  const std::string uri = Model(R"(<model name="m">
  <link name="a">
    <collision name="m"><geometry><mesh><uri>model://nowhere/a.stl</uri>
    </mesh></geometry></collision>
  </link>
</model>
)");
  SdfOptions none;
  none.use_environment = false;
  e = SdfErrorOf(uri, none);
  EXPECT_NE(e.find("no folder 'nowhere' found"), std::string::npos) << e;
  // Two joints moving one link: a kinematic loop.
  const std::string loop = Model(R"(<model name="m">
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="j1" type="revolute"><parent>a</parent><child>b</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="j2" type="revolute"><parent>c</parent><child>b</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
</model>
)");
  e = SdfErrorOf(loop);
  EXPECT_NE(e.find("kinematic loops are not supported"), std::string::npos)
      << e;
  // A joint naming a link the model does not have (libsdformat's check).
  const std::string unknown = Model(R"(<model name="m">
  <link name="a"/>
  <joint name="j" type="revolute"><parent>a</parent><child>zz</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
</model>
)");
  e = SdfErrorOf(unknown);
  EXPECT_NE(e.find("model.sdf:"), std::string::npos) << e;
  EXPECT_NE(e.find("zz"), std::string::npos) << e;
  // Neither a world nor a model.
  EXPECT_NE(SdfErrorOf(Model("")).find("neither a <world> nor a <model>"),
            std::string::npos);
  EXPECT_THROW(LoadSdf("/no/such/file.sdf"), SdfError);
}

}  // namespace
}  // namespace sapcontact
