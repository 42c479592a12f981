// The MJCF front end against MuJoCo's own compiler: every Gym model Debian's
// dart-doc ships is loaded by LoadMjcf and by Debian's libmujoco 2.2.2
// (tests only), and the compiled models must agree on what our layer
// represents: body masses (1e-12) and principal moments of inertia
// (1e-12), centres of mass and inertia tensors (1e-9), body frames,
// joint axes and anchors, initial positions, geom poses and sizes, and the
// joint-space mass matrix with armature at qpos0 and at a random q.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/robot/mjcf_loader.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using Eigen::Matrix3d;
using Eigen::Vector3d;

const char* kGymDir = "/usr/share/doc/dart/data/mjcf/openai/";

// The model file, gunzipped into a temporary folder when it is compressed.
std::string GymModelFile(const std::string& name) {
  const std::string path = std::string(kGymDir) + name;
  if (path.size() < 3 || path.substr(path.size() - 3) != ".gz") return path;
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_mjcf_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / name.substr(0, name.size() - 3)).string();
  const std::string cmd = "gzip -dc '" + path + "' > '" + out + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return out;
}

Matrix3d MjMat(const mjtNum* m) {
  Matrix3d R;
  R << m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8];
  return R;
}
Vector3d MjVec(const mjtNum* v) { return Vector3d(v[0], v[1], v[2]); }

struct MujocoAndOurs {
  mjModel* m{nullptr};
  mjData* d{nullptr};
  MjcfModel ours;
  ~MujocoAndOurs() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// Our q of every robot from MuJoCo's qpos, matching joints by name.
std::vector<Eigen::VectorXd> OurPositions(const mjModel* m, const mjtNum* qpos,
                                          const MjcfModel& ours) {
  std::vector<Eigen::VectorXd> q;
  for (const RobotDescription& r : ours.robots) {
    Eigen::VectorXd x = r.initial_positions;
    for (int j = 0; j < m->njnt; ++j) {
      const char* name = mj_id2name(m, mjOBJ_JOINT, j);
      if (name == nullptr) continue;
      const int k = r.tree.FindJoint(name);
      if (k < 0) continue;
      const int n = r.tree.num_positions(k);
      x.segment(r.tree.position_start(k), n) =
          Eigen::Map<const Eigen::VectorXd>(qpos + m->jnt_qposadr[j], n);
    }
    q.push_back(x);
  }
  return q;
}

void CompareWithMujoco(const std::string& file) {
  SCOPED_TRACE(file);
  const std::string path = GymModelFile(file);
  ASSERT_FALSE(path.empty());
  MujocoAndOurs L;
  char error[1000] = "";
  L.m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  ASSERT_NE(L.m, nullptr) << error;
  L.d = mj_makeData(L.m);
  ASSERT_NO_THROW(L.ours = LoadMjcf(path));
  const mjModel* m = L.m;
  mjData* d = L.d;
  const MjcfModel& ours = L.ours;
  EXPECT_NEAR(ours.time_step, m->opt.timestep, 0.0);
  EXPECT_NEAR((ours.gravity - MjVec(m->opt.gravity)).norm(), 0.0, 0.0);

  std::mt19937 rng(7);
  for (int trial = 0; trial < 2; ++trial) {
    SCOPED_TRACE(trial == 0 ? "qpos0" : "random q");
    // Trial 1: hinge and slide joints at random positions in [-1, 1].
    std::vector<mjtNum> qpos(m->qpos0, m->qpos0 + m->nq);
    if (trial == 1) {
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      for (int j = 0; j < m->njnt; ++j) {
        if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) {
          qpos[m->jnt_qposadr[j]] = u(rng);
        }
      }
    }
    std::copy(qpos.begin(), qpos.end(), d->qpos);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    const std::vector<Eigen::VectorXd> q = OurPositions(m, qpos.data(), ours);
    std::vector<std::vector<Eigen::Isometry3d>> X_WL(ours.robots.size());
    for (size_t r = 0; r < ours.robots.size(); ++r) {
      if (trial == 0) {
        // Our initial positions are MuJoCo's qpos0.
        ASSERT_EQ(q[r].size(), ours.robots[r].initial_positions.size());
        EXPECT_LT((q[r] - ours.robots[r].initial_positions).norm(), 1e-12)
            << "robot " << ours.robots[r].name;
      }
      CalcLinkPoses(ours.robots[r].tree, q[r], &X_WL[r]);
    }

    // Bodies: mass, frame, centre of mass and inertia in the world.
    int compared = 0;
    for (int b = 1; b < m->nbody; ++b) {
      // Our bodies are in document order, as MuJoCo's ids.
      ASSERT_EQ(static_cast<int>(ours.bodies.size()), m->nbody - 1);
      const MjcfBody* body = &ours.bodies[b - 1];
      const char* name = mj_id2name(m, mjOBJ_BODY, b);
      SCOPED_TRACE("body " + body->name);
      if (name != nullptr) EXPECT_EQ(body->name, name);
      if (body->robot < 0) continue;  // static: geoms checked below
      const RobotDescription& r = ours.robots[body->robot];
      const Eigen::Isometry3d& X = X_WL[body->robot][body->link];
      const Vector3d p_WB = X * body->body_in_link.position;
      EXPECT_LT((p_WB - MjVec(d->xpos + 3 * b)).norm(), 1e-9);
      const Matrix3d R_WB = X.linear() * body->body_in_link.rotation();
      EXPECT_LT((R_WB - MjMat(d->xmat + 9 * b)).norm(), 1e-9);
      const LinkInertia& in = r.tree.link(body->link).inertia;
      EXPECT_LE(std::abs(in.mass - m->body_mass[b]), 1e-12 * m->body_mass[b]);
      EXPECT_LT((X * in.com - MjVec(d->xipos + 3 * b)).norm(), 1e-9);
      const Matrix3d R_WI = MjMat(d->ximat + 9 * b);
      const Matrix3d I_W_mujoco =
          R_WI * MjVec(m->body_inertia + 3 * b).asDiagonal() * R_WI.transpose();
      const Matrix3d I_W = X.linear() * in.inertia * X.linear().transpose();
      // MuJoCo stores the principal moments and axes (body_inertia,
      // body_iquat) of its iterative eigensolver: the moments agree to
      // 1e-12, the tensor rebuilt from them to 1e-9 (the axes carry the
      // solver's tolerance).
      Eigen::Vector3d moments =
          Eigen::SelfAdjointEigenSolver<Matrix3d>(in.inertia).eigenvalues();
      Eigen::Vector3d moments_mujoco = MjVec(m->body_inertia + 3 * b);
      std::sort(moments_mujoco.data(), moments_mujoco.data() + 3);
      EXPECT_LE((moments - moments_mujoco).norm(),
                1e-12 * moments_mujoco.norm());
      EXPECT_LT((I_W - I_W_mujoco).norm(), 1e-9 * I_W_mujoco.norm());
      ++compared;
    }
    EXPECT_GT(compared, 0);

    // Joints: world axis and anchor.
    for (int j = 0; j < m->njnt; ++j) {
      const char* name = mj_id2name(m, mjOBJ_JOINT, j);
      if (name == nullptr || m->jnt_type[j] == mjJNT_FREE) continue;
      SCOPED_TRACE(std::string("joint ") + name);
      bool found = false;
      for (size_t r = 0; r < ours.robots.size(); ++r) {
        const int k = ours.robots[r].tree.FindJoint(name);
        if (k < 0) continue;
        found = true;
        const Eigen::Isometry3d& X = X_WL[r][k];
        const Vector3d axis = X.linear() * ours.robots[r].tree.joint(k).axis;
        EXPECT_LT((axis - MjVec(d->xaxis + 3 * j)).norm(), 1e-9);
        // MuJoCo's anchor of a slide joint is where it was before the
        // joint's own motion by q - qpos0; our link frame moves with it.
        Vector3d anchor = X.translation();
        if (m->jnt_type[j] == mjJNT_SLIDE) {
          const int a = m->jnt_qposadr[j];
          anchor -= (qpos[a] - m->qpos0[a]) * axis;
        }
        EXPECT_LT((anchor - MjVec(d->xanchor + 3 * j)).norm(), 1e-9);
      }
      EXPECT_TRUE(found);
    }

    // Geoms: world pose and size of each named geom.
    for (int g = 0; g < m->ngeom; ++g) {
      const char* name = mj_id2name(m, mjOBJ_GEOM, g);
      if (name == nullptr) continue;
      SCOPED_TRACE(std::string("geom ") + name);
      const int b = m->geom_bodyid[g];
      const std::string body_name = b == 0 ? "world" : ours.bodies[b - 1].name;
      const std::string full = body_name + "/" + name;
      Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
      const Shape* shape = nullptr;
      for (const WorldGeometry& w : ours.world_geometries) {
        if (w.name == "world/" + std::string(name)) {
          X_WG.translation() = w.pose.position;
          X_WG.linear() = w.pose.rotation();
          shape = &w.shape;
        }
      }
      for (size_t r = 0; r < ours.robots.size() && shape == nullptr; ++r) {
        for (const RobotGeometry& rg : ours.robots[r].geometries) {
          if (rg.name != full) continue;
          X_WG = X_WL[r][rg.link];
          X_WG.translate(rg.pose_in_link.position);
          X_WG.rotate(rg.pose_in_link.orientation);
          shape = &rg.shape;
        }
      }
      if (shape == nullptr) {
        // Not a collision geom: contype = conaffinity = 0 (visual only).
        EXPECT_EQ(m->geom_contype[g] | m->geom_conaffinity[g], 0);
        continue;
      }
      EXPECT_LT((X_WG.translation() - MjVec(d->geom_xpos + 3 * g)).norm(),
                1e-9);
      const mjtNum* size = m->geom_size + 3 * g;
      switch (m->geom_type[g]) {
        case mjGEOM_PLANE: {
          EXPECT_EQ(shape->type, ShapeType::kPlane);
          // A plane's normal (its frame's z axis) is MuJoCo's.
          EXPECT_LT((X_WG.linear().col(2) - MjMat(d->geom_xmat + 9 * g).col(2))
                        .norm(),
                    1e-9);
          break;
        }
        case mjGEOM_SPHERE:
          EXPECT_EQ(shape->type, ShapeType::kSphere);
          EXPECT_NEAR(shape->radius, size[0], 1e-12);
          break;
        case mjGEOM_CAPSULE:
        case mjGEOM_CYLINDER:
          EXPECT_EQ(shape->type, m->geom_type[g] == mjGEOM_CAPSULE
                                     ? ShapeType::kCapsule
                                     : ShapeType::kCylinder);
          EXPECT_NEAR(shape->radius, size[0], 1e-12);
          EXPECT_NEAR(shape->length, 2 * size[1], 1e-12);
          // Symmetric about z: only the axis must agree.
          EXPECT_LT((X_WG.linear().col(2) - MjMat(d->geom_xmat + 9 * g).col(2))
                        .norm(),
                    1e-9);
          break;
        case mjGEOM_BOX:
          EXPECT_EQ(shape->type, ShapeType::kBox);
          EXPECT_LT((shape->size - 2 * MjVec(size)).norm(), 1e-12);
          EXPECT_LT((X_WG.linear() - MjMat(d->geom_xmat + 9 * g)).norm(), 1e-9);
          break;
        default:
          break;
      }
    }

    // Mass matrix over hinge and slide DOFs, armature included.
    std::vector<mjtNum> M(m->nv * m->nv);
    mj_fullM(m, M.data(), d->qM);
    for (size_t r = 0; r < ours.robots.size(); ++r) {
      const MultibodyTree& tree = ours.robots[r].tree;
      Eigen::MatrixXd Mo;
      CalcMassMatrix(tree, q[r], &Mo);
      std::vector<std::pair<int, int>> dofs;  // (ours, MuJoCo's)
      for (int j = 0; j < m->njnt; ++j) {
        const char* name = mj_id2name(m, mjOBJ_JOINT, j);
        if (name == nullptr ||
            (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE)) {
          continue;
        }
        const int k = tree.FindJoint(name);
        if (k >= 0) dofs.push_back({tree.velocity_start(k), m->jnt_dofadr[j]});
      }
      double scale = 0.0, err = 0.0;
      for (auto [a, i] : dofs) {
        for (auto [b, jj] : dofs) {
          const double mj = M[i * m->nv + jj];
          scale = std::max(scale, std::abs(mj));
          err = std::max(err, std::abs(Mo(a, b) - mj));
        }
      }
      EXPECT_LT(err, 1e-9 * (1.0 + scale)) << "robot " << ours.robots[r].name;
    }
  }
}

TEST(MjcfMujoco, Version) { EXPECT_EQ(mj_version(), 222); }

TEST(MjcfMujoco, Ant) { CompareWithMujoco("ant.xml.gz"); }
TEST(MjcfMujoco, HalfCheetah) { CompareWithMujoco("half_cheetah.xml.gz"); }
TEST(MjcfMujoco, Humanoid) { CompareWithMujoco("humanoid.xml.gz"); }
TEST(MjcfMujoco, HumanoidStandup) {
  CompareWithMujoco("humanoidstandup.xml.gz");
}
// coordinate="global" (MJCF before MuJoCo 2.3.3).
TEST(MjcfMujoco, Hopper) { CompareWithMujoco("hopper.xml"); }
TEST(MjcfMujoco, Swimmer) { CompareWithMujoco("swimmer.xml"); }
TEST(MjcfMujoco, Reacher) { CompareWithMujoco("reacher.xml"); }
TEST(MjcfMujoco, InvertedDoublePendulum) {
  CompareWithMujoco("inverted_double_pendulum.xml");
}
TEST(MjcfMujoco, Point) { CompareWithMujoco("point.xml"); }
TEST(MjcfMujoco, Pusher) { CompareWithMujoco("pusher.xml.gz"); }
TEST(MjcfMujoco, Striker) { CompareWithMujoco("striker.xml.gz"); }
TEST(MjcfMujoco, Thrower) { CompareWithMujoco("thrower.xml.gz"); }

}  // namespace
}  // namespace sapcontact
