// Every way a URDF can be rejected: a UrdfError naming the file, the line
// of the offending element where known, and the element.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/sim/robot/robot_test_util.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::ExpectUrdfError;
using testing_util::WriteTempUrdf;

// Two links joined by joint `j` of the given type and extra children; the
// second link's body and the first's are given separately.
std::string TwoLinks(const std::string& joint_type,
                     const std::string& joint_extra,
                     const std::string& link_b_body = "") {
  return "<?xml version=\"1.0\"?>\n"
         "<robot name=\"bad\">\n"
         "  <link name=\"a\"/>\n"
         "  <link name=\"b\">\n" +
         link_b_body +
         "  </link>\n"
         "  <joint name=\"j\" type=\"" +
         joint_type +
         "\">\n"
         "    <parent link=\"a\"/>\n"
         "    <child link=\"b\"/>\n" +
         joint_extra +
         "  </joint>\n"
         "</robot>\n";
}

std::string BadLink(const std::string& body) {
  return "<robot name=\"bad\">\n  <link name=\"a\">\n" + body +
         "  </link>\n</robot>\n";
}

std::string CollisionOf(const std::string& shape) {
  return "    <collision>\n      <geometry>\n        " + shape +
         "\n      </geometry>\n    </collision>\n";
}

const std::string kInertia =
    "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>";

TEST(UrdfErrors, FileNotFound) {
  try {
    LoadUrdf("/nonexistent/robot.urdf");
    FAIL() << "no error";
  } catch (const UrdfError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/robot.urdf: cannot "
                                         "open the URDF file"),
              std::string::npos)
        << e.what();
  }
}

TEST(UrdfErrors, DirectoryIsNotAFile) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  try {
    LoadUrdf(dir);
    FAIL() << "no error";
  } catch (const UrdfError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + ": cannot read"),
              std::string::npos)
        << e.what();
  }
}

TEST(UrdfErrors, ErrorsFromLoadUrdfNameThePath) {
  const std::string xml = BadLink("    <inertial><mass value=\"-1\"/>" +
                                  kInertia + "</inertial>\n");
  const std::string path = WriteTempUrdf("negative_mass.urdf", xml);
  try {
    LoadUrdf(path);
    FAIL() << "no error";
  } catch (const UrdfError& e) {
    EXPECT_EQ(std::string(e.what()),
              At(path, xml, "<mass") +
                  " link 'a': <mass value=\"-1\">: negative mass");
  }
}

TEST(UrdfErrors, UrdfErrorIsAnInvalidArgument) {
  EXPECT_THROW(ParseUrdf("<robot", "x.urdf"), std::invalid_argument);
}

TEST(UrdfErrors, XmlSyntaxErrorWithLine) {
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"a\">\n  </lnk>\n</robot>\n";
  ExpectUrdfError(xml, {"bad.urdf:3:", "XML syntax error"});
}

TEST(UrdfErrors, EmptyDocument) {
  ExpectUrdfError("", {"bad.urdf", "XML syntax error"});
}

TEST(UrdfErrors, RootIsNotRobot) {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<model>\n  <name>m</name>\n</model>\n";
  EXPECT_EQ(ExpectUrdfError(xml, {}),
            "bad.urdf:2: the root element is <model>, not <robot>");
}

// MJCF and SDFormat files given as a URDF: the message names the format
// and what is read instead, at the root element's line.
TEST(UrdfErrors, MjcfAndSdformatAreNamed) {
  const std::string mjcf =
      "<!-- an MJCF model -->\n<mujoco model=\"arm\">\n  <worldbody/>\n"
      "</mujoco>\n";
  EXPECT_EQ(ExpectUrdfError(mjcf, {}),
            "bad.urdf:2: the root element is <mujoco>: MJCF is not "
            "supported: sapsim reads URDF robots (docs/robots.md)");
  const std::string sdf =
      "<?xml version=\"1.0\"?>\n<sdf version=\"1.6\">\n"
      "  <model name=\"arm\"><link name=\"a\"/></model>\n</sdf>\n";
  EXPECT_EQ(ExpectUrdfError(sdf, {}),
            "bad.urdf:2: the root element is <sdf>: SDFormat is not "
            "supported: sapsim reads URDF robots (docs/robots.md)");
  // Through a file (LoadUrdf names the path), as a scene's robot gives it.
  const std::string path = WriteTempUrdf("arm.xml", mjcf);
  try {
    LoadUrdf(path);
    FAIL() << "no error";
  } catch (const UrdfError& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ":2: the root element is <mujoco>: MJCF is not "
                  "supported: sapsim reads URDF robots (docs/robots.md)");
  }
}

TEST(UrdfErrors, NoLinks) {
  const std::string xml = "<robot name=\"bad\">\n</robot>\n";
  ExpectUrdfError(xml, {"bad.urdf:1:", "no <link> elements"});
}

TEST(UrdfErrors, MultipleRoots) {
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n"
      "</robot>\n";
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<link name=\"b\""), "link 'b'",
                        "second root link", "'a' at line 2"});
}

TEST(UrdfErrors, JointReferencesAMissingLink) {
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n"
      "  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/>\n"
      "    <child link=\"ghost\"/>\n  </joint>\n</robot>\n";
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<child"), "joint 'j'",
                        "child link 'ghost' does not exist"});
  const std::string parent =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n"
      "  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"ghost\"/>\n"
      "    <child link=\"a\"/>\n  </joint>\n</robot>\n";
  ExpectUrdfError(parent, {At("bad.urdf", parent, "<parent"), "joint 'j'",
                           "parent link 'ghost' does not exist"});
}

TEST(UrdfErrors, JointWithoutChild) {
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n"
      "  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/>\n"
      "  </joint>\n</robot>\n";
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<joint"), "joint 'j'",
                        "missing <child link=\"...\">"});
}

TEST(UrdfErrors, LinkWithTwoParents) {
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n"
      "  <link name=\"c\"/>\n"
      "  <joint name=\"j1\" type=\"fixed\"><parent link=\"a\"/>"
      "<child link=\"c\"/></joint>\n"
      "  <joint name=\"j2\" type=\"fixed\"><parent link=\"b\"/>"
      "<child link=\"c\"/></joint>\n"
      "</robot>\n";
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<joint name=\"j2\""), "joint 'j2'",
                        "already the child of joint 'j1'"});
}

TEST(UrdfErrors, CycleDisconnectedFromTheRoot) {
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"root\"/>\n  <link name=\"b\"/>\n"
      "  <link name=\"c\"/>\n"
      "  <joint name=\"j1\" type=\"fixed\"><parent link=\"b\"/>"
      "<child link=\"c\"/></joint>\n"
      "  <joint name=\"j2\" type=\"fixed\"><parent link=\"c\"/>"
      "<child link=\"b\"/></joint>\n"
      "</robot>\n";
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<link name=\"b\""), "link 'b'",
                        "not connected to the root link 'root'"});
  const std::string rootless =
      "<robot name=\"bad\">\n  <link name=\"b\"/>\n  <link name=\"c\"/>\n"
      "  <joint name=\"j1\" type=\"fixed\"><parent link=\"b\"/>"
      "<child link=\"c\"/></joint>\n"
      "  <joint name=\"j2\" type=\"fixed\"><parent link=\"c\"/>"
      "<child link=\"b\"/></joint>\n"
      "</robot>\n";
  ExpectUrdfError(rootless, {"bad.urdf:1:", "no root link"});
}

TEST(UrdfErrors, DuplicateNames) {
  const std::string links =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n  <link name=\"a\"/>\n"
      "</robot>\n";
  ExpectUrdfError(links,
                  {"bad.urdf:3:", "link 'a'", "duplicate link name", "line 2"});
  const std::string joints =
      TwoLinks("fixed",
               "  </joint>\n  <joint name=\"j\" type=\"fixed\">\n"
               "    <parent link=\"a\"/><child link=\"b\"/>\n");
  ExpectUrdfError(joints, {"bad.urdf:10:", "joint 'j'", "duplicate joint"});
}

TEST(UrdfErrors, UnsupportedJointTypes) {
  const std::string planar = TwoLinks("planar", "");
  ExpectUrdfError(planar, {At("bad.urdf", planar, "<joint"), "joint 'j'",
                           "planar joints are not supported"});
  UrdfOptions skip;
  skip.skip_unsupported = true;  // joints are never skipped
  ExpectUrdfError(planar, {"planar joints are not supported"}, skip);
  const std::string screw = TwoLinks("screw", "");
  ExpectUrdfError(screw, {At("bad.urdf", screw, "<joint"), "joint 'j'",
                          "unknown joint type 'screw'"});
}

TEST(UrdfErrors, NegativeMass) {
  const std::string xml =
      TwoLinks("fixed", "",
               "    <inertial>\n      <mass value=\"-2\"/>\n      " + kInertia +
                   "\n    </inertial>\n");
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<mass"), "link 'b'",
                        "<mass value=\"-2\">: negative mass"});
}

TEST(UrdfErrors, NonFiniteNumbers) {
  const std::string nan = TwoLinks("fixed", "    <origin xyz=\"0 nan 0\"/>\n");
  ExpectUrdfError(nan,
                  {At("bad.urdf", nan, "<origin"), "joint 'j'",
                   "<origin xyz=\"0 nan 0\">", "'nan' is not a finite number"});
  const std::string inf = BadLink(
      "    <inertial><mass value=\"1\"/>\n"
      "      <inertia ixx=\"inf\" ixy=\"0\" "
      "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>\n"
      "    </inertial>\n");
  ExpectUrdfError(inf, {At("bad.urdf", inf, "<inertia "), "link 'a'",
                        "<inertia ixx=\"inf\">: not a finite number"});
  const std::string huge = TwoLinks("revolute",
                                    "    <limit lower=\"-1e999\" upper=\"1\" "
                                    "effort=\"1\" velocity=\"1\"/>\n");
  ExpectUrdfError(
      huge, {At("bad.urdf", huge, "<limit"), "joint 'j'", "lower=\"-1e999\""});
  const std::string junk = BadLink(CollisionOf("<sphere radius=\"0.1m\"/>"));
  ExpectUrdfError(junk, {At("bad.urdf", junk, "<sphere"), "link 'a'",
                         "<sphere radius=\"0.1m\">: not a finite number"});
  const std::string short_vector =
      TwoLinks("fixed", "    <origin xyz=\"0 0\"/>\n");
  ExpectUrdfError(short_vector, {At("bad.urdf", short_vector, "<origin"),
                                 "expected 3 numbers"});
}

TEST(UrdfErrors, InertiaNotPositiveSemidefinite) {
  const std::string xml = BadLink(
      "    <inertial><mass value=\"1\"/>\n"
      "      <inertia ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
      "izz=\"1\"/>\n    </inertial>\n");
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<inertia "), "link 'a'",
                        "not positive semidefinite"});
}

TEST(UrdfErrors, InertialWithoutMassOrInertia) {
  const std::string no_mass =
      BadLink("    <inertial>\n      " + kInertia + "\n    </inertial>\n");
  ExpectUrdfError(no_mass, {At("bad.urdf", no_mass, "<inertial"), "link 'a'",
                            "<inertial> without <mass>"});
  const std::string no_ixy = BadLink(
      "    <inertial><mass value=\"1\"/>\n"
      "      <inertia ixx=\"1\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>\n"
      "    </inertial>\n");
  ExpectUrdfError(no_ixy, {At("bad.urdf", no_ixy, "<inertia "),
                           "the attribute 'ixy' is missing"});
}

TEST(UrdfErrors, InvalidShapeSizes) {
  const std::string radius = BadLink(CollisionOf("<sphere radius=\"-0.1\"/>"));
  ExpectUrdfError(radius,
                  {At("bad.urdf", radius, "<sphere"), "link 'a': collision 0",
                   "<sphere radius=\"-0.1\">: must be positive"});
  const std::string box = BadLink(CollisionOf("<box size=\"0.1 -0.2 0.3\"/>"));
  ExpectUrdfError(box, {At("bad.urdf", box, "<box"), "link 'a'",
                        "<box size=\"0.1 -0.2 0.3\">: sizes must be positive"});
  const std::string capsule =
      BadLink(CollisionOf("<capsule radius=\"0.1\" length=\"-1\"/>"));
  ExpectUrdfError(capsule, {At("bad.urdf", capsule, "<capsule"), "link 'a'",
                            "length=\"-1\">: must not be negative"});
  const std::string no_length =
      BadLink(CollisionOf("<capsule radius=\"0.1\"/>"));
  ExpectUrdfError(no_length, {At("bad.urdf", no_length, "<capsule"),
                              "the attribute 'length' is missing"});
  const std::string empty = BadLink(
      "    <collision name=\"c\">\n      <geometry/>\n"
      "    </collision>\n");
  ExpectUrdfError(
      empty, {At("bad.urdf", empty, "<geometry"), "link 'a': collision 'c'",
              "<geometry> without a shape"});
}

TEST(UrdfErrors, UnsupportedGeometry) {
  // Meshes and cylinders are supported (tests/sim/robot/
  // urdf_geometry_test.cc); a mesh from a package nobody names is an error.
  const std::string mesh =
      BadLink(CollisionOf("<mesh filename=\"package://arm/hand.stl\"/>"));
  ExpectUrdfError(mesh, {At("bad.urdf", mesh, "<mesh"), "link 'a'",
                         "package 'arm' not found"});
  const std::string cone = BadLink(CollisionOf("<cone radius=\"0.1\"/>"));
  ExpectUrdfError(cone, {At("bad.urdf", cone, "<cone"), "link 'a'",
                         "unknown collision geometry <cone>"});
}

TEST(UrdfErrors, JointLimits) {
  const std::string order = TwoLinks(
      "revolute",
      "    <limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/>\n");
  ExpectUrdfError(order, {At("bad.urdf", order, "<limit"), "joint 'j'",
                          "<limit>: lower 1 > upper -1"});
  const std::string effort = TwoLinks(
      "prismatic",
      "    <limit lower=\"0\" upper=\"1\" effort=\"-5\" velocity=\"1\"/>\n");
  ExpectUrdfError(effort, {At("bad.urdf", effort, "<limit"), "joint 'j'",
                           "effort=\"-5\">: must not be negative"});
  const std::string missing = TwoLinks(
      "revolute", "    <limit lower=\"0\" upper=\"1\" velocity=\"1\"/>\n");
  ExpectUrdfError(missing, {At("bad.urdf", missing, "<limit"),
                            "the attribute 'effort' is missing"});
  const std::string none = TwoLinks("revolute", "");
  ExpectUrdfError(none,
                  {At("bad.urdf", none, "<joint"), "joint 'j'",
                   "revolute joint without <limit>", "use type continuous"});
}

TEST(UrdfErrors, ZeroAxis) {
  const std::string xml = TwoLinks("continuous", "    <axis xyz=\"0 0 0\"/>\n");
  ExpectUrdfError(xml, {At("bad.urdf", xml, "<axis"), "joint 'j'",
                        "<axis xyz=\"0 0 0\">: zero axis"});
}

TEST(UrdfErrors, Dynamics) {
  const std::string negative =
      TwoLinks("continuous", "    <dynamics damping=\"-0.5\"/>\n");
  ExpectUrdfError(negative, {At("bad.urdf", negative, "<dynamics"), "joint 'j'",
                             "damping=\"-0.5\">: must not be "
                             "negative"});
  const std::string empty = TwoLinks("continuous", "    <dynamics/>\n");
  ExpectUrdfError(empty, {At("bad.urdf", empty, "<dynamics"),
                          "without damping or friction"});
}

TEST(UrdfErrors, Mimic) {
  const std::string ghost =
      TwoLinks("continuous", "    <mimic joint=\"ghost\"/>\n");
  ExpectUrdfError(ghost, {At("bad.urdf", ghost, "<mimic"), "joint 'j'",
                          "<mimic>: joint 'ghost' does not exist"});
  const std::string self = TwoLinks("continuous", "    <mimic joint=\"j\"/>\n");
  ExpectUrdfError(self,
                  {At("bad.urdf", self, "<mimic"), "cannot mimic itself"});
  const std::string fixed = TwoLinks("fixed", "    <mimic joint=\"j\"/>\n");
  ExpectUrdfError(
      fixed, {At("bad.urdf", fixed, "<mimic"), "<mimic> on a fixed joint"});
}

TEST(UrdfErrors, BaseJointNameClash) {
  // The root joint is named "<root link>_base"; a URDF joint of that name
  // would clash.
  const std::string xml =
      "<robot name=\"bad\">\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n"
      "  <joint name=\"a_base\" type=\"fixed\"><parent link=\"a\"/>"
      "<child link=\"b\"/></joint>\n</robot>\n";
  ExpectUrdfError(xml, {"bad.urdf:4:", "joint 'a_base'",
                        "reserved for the joint attaching the root link"});
}

TEST(UrdfErrors, UrdfdomRejectionNamesTheFileAndPrintsNothing) {
  // Only urdfdom checks the version; its message is captured, not printed.
  const std::string xml =
      "<robot name=\"bad\" version=\"2.0\">\n  <link name=\"a\"/>\n"
      "</robot>\n";
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  ExpectUrdfError(
      xml, {"bad.urdf: urdfdom could not parse the robot", "only version 1.0"});
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(err, "");
  EXPECT_EQ(out, "");
}

TEST(UrdfErrors, BadBasePose) {
  UrdfOptions options;
  options.base_pose.position.x() = std::nan("");
  ExpectUrdfError("<robot name=\"r\"><link name=\"a\"/></robot>",
                  {"bad.urdf: UrdfOptions::base_pose"}, options);
}

}  // namespace
}  // namespace sapcontact
