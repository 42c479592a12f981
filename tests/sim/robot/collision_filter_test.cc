// LinkCollisionFilter (sim/robot/collision_filter.h) against an independent
// count: links a and b are within N joints when the tree path between them
// crosses at most N joints that are not fixed (welded links count as one
// body). On the test arm and on the KR5 and Atlas of Debian's dart-doc.
// And the SRDF reader's <disable_collisions> pairs and errors.
#include "sapcontact/sim/robot/collision_filter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sapcontact/sim/robot/srdf_reader.h"
#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/sim/scene/robot_test_util.h"

namespace sapcontact {
namespace {

// Joints that are not fixed on the tree path between links a and b.
int MovingJointsBetween(const MultibodyTree& tree, int a, int b) {
  auto ancestors = [&](int l) {
    std::vector<int> path;
    for (; l >= 0; l = tree.joint(l).parent) path.push_back(l);
    return path;  // l, its parent, ..., the root
  };
  const std::vector<int> pa = ancestors(a), pb = ancestors(b);
  int common = -1;
  for (int x : pa) {
    for (int y : pb) {
      if (x == y && common < 0) common = x;
    }
  }
  int count = 0;
  for (const std::vector<int>* path : {&pa, &pb}) {
    for (int l : *path) {
      if (l == common) break;
      count += tree.joint(l).type != JointType::kFixed;
    }
  }
  return count;
}

void ExpectMatchesPathCount(const RobotDescription& d, const std::string& who) {
  const int n = d.tree.num_links();
  for (int adjacent = 0; adjacent <= 3; ++adjacent) {
    const LinkCollisionFilter filter(d.tree, adjacent);
    int excluded = 0;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        const bool expected = MovingJointsBetween(d.tree, a, b) <= adjacent;
        ASSERT_EQ(filter.Excluded(a, b), expected)
            << who << ": links '" << d.tree.link(a).name << "' and '"
            << d.tree.link(b).name << "', adjacent " << adjacent;
        excluded += expected && a < b;
      }
    }
    std::printf("[%s] adjacent %d: %d of %d link pairs filtered\n", who.c_str(),
                adjacent, excluded, n * (n - 1) / 2);
  }
}

TEST(LinkCollisionFilter, WeldedLinksCountAsOneBody) {
  const RobotDescription d = ParseUrdf(testing_util::kArmUrdf, "arm.urdf");
  auto link = [&](const char* name) { return d.tree.FindLink(name); };
  const LinkCollisionFilter welded(d.tree, 0);
  EXPECT_TRUE(welded.Excluded(link("base"), link("plate")));
  EXPECT_TRUE(welded.Excluded(link("tool"), link("carriage")));
  EXPECT_TRUE(welded.Excluded(link("upper"), link("upper")));
  EXPECT_FALSE(welded.Excluded(link("base"), link("upper")));
  const LinkCollisionFilter parent_child(d.tree, 1);
  // The plate is welded to the base, the upper arm's parent.
  EXPECT_TRUE(parent_child.Excluded(link("plate"), link("upper")));
  // The tool is welded to the carriage, a child of the lower arm.
  EXPECT_TRUE(parent_child.Excluded(link("lower"), link("tool")));
  EXPECT_FALSE(parent_child.Excluded(link("base"), link("lower")));
  EXPECT_FALSE(parent_child.Excluded(link("finger"), link("lower")));
  LinkCollisionFilter named = parent_child;
  named.Exclude(link("lower"), link("finger"));
  EXPECT_TRUE(named.Excluded(link("finger"), link("lower")));
  EXPECT_THROW(named.Exclude(0, d.tree.num_links()), std::invalid_argument);
  EXPECT_THROW(LinkCollisionFilter(d.tree, -1), std::invalid_argument);
  ExpectMatchesPathCount(d, "test arm");
}

TEST(LinkCollisionFilter, RealRobotsMatchThePathCount) {
  const char* kRobots[] = {
      "/usr/share/doc/dart/data/urdf/KR5/KR5 sixx R650.urdf",
      "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf"};
  for (const char* path : kRobots) {
    if (!std::filesystem::exists(path)) {
      GTEST_SKIP() << path << " missing (Debian package dart-doc)";
    }
    UrdfOptions options;
    options.skip_unsupported = true;
    const RobotDescription d = LoadUrdf(path, options);
    ExpectMatchesPathCount(d, d.name);
  }
}

TEST(SrdfReader, DisabledCollisionPairsWithTheirLines) {
  const std::string srdf =
      "<?xml version=\"1.0\"?>\n<robot name=\"arm\">\n"
      "  <group name=\"arm\"><chain base_link=\"base\" tip_link=\"tool\"/>"
      "</group>\n"
      "  <disable_collisions link1=\"base\" link2=\"lower\" "
      "reason=\"Never\"/>\n"
      "  <disable_collisions link1=\"upper\" link2=\"finger\"/>\n"
      "</robot>\n";
  const std::vector<SrdfDisabledPair> pairs =
      ParseSrdfDisabledCollisions(srdf, "arm.srdf");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].link1, "base");
  EXPECT_EQ(pairs[0].link2, "lower");
  EXPECT_EQ(pairs[0].line, 4);
  EXPECT_EQ(pairs[1].link1, "upper");
  EXPECT_EQ(pairs[1].link2, "finger");
  EXPECT_EQ(pairs[1].line, 5);
  const std::string path = testing_util::WriteTempScene("arm.srdf", srdf);
  EXPECT_EQ(LoadSrdfDisabledCollisions(path).size(), 2u);
}

TEST(SrdfReader, ErrorsNameTheFileAndLine) {
  auto expect_error = [](const std::string& text, const std::string& part) {
    try {
      ParseSrdfDisabledCollisions(text, "bad.srdf");
      ADD_FAILURE() << "expected an error mentioning " << part;
    } catch (const UrdfError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << e.what();
    }
  };
  expect_error(
      "<robot name=\"a\">\n  <disable_collisions link1=\"x\"/>\n"
      "</robot>\n",
      "bad.srdf:2: <disable_collisions>: the attribute 'link2' is "
      "missing");
  expect_error("<robot name=\"a\">\n  <disable_collisions\n</robot>\n",
               "bad.srdf:");
  expect_error("<mujoco/>\n", "bad.srdf:1: the root element is <mujoco>");
  try {
    LoadSrdfDisabledCollisions("/nonexistent/arm.srdf");
    ADD_FAILURE() << "expected an error";
  } catch (const UrdfError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "/nonexistent/arm.srdf: cannot open the SRDF file"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sapcontact
