// Fuzz class 6 (tests/fuzz/fuzz_rules.h), damaged meshes and URDFs:
// deterministic (seeded) mutations of mesh files (binary STL, ASCII STL, OBJ)
// and of URDFs naming them, loaded three ways:
//  - LoadMeshShape: a valid shape (finite hull with volume) or a MeshError
//    whose message starts with the file's path;
//  - `sapsim run` on a scene with the mesh as a free and as a fixed body,
//    and on a scene with a robot whose URDF holds the mesh: exit 0 (and no
//    non-finite output) or exit 2 with one error line naming the scene or
//    URDF and the mesh file, and no outputs; never a crash or a hang.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/geometry/mesh_shape.h"
#include "tests/fuzz/fuzz_rules.h"
#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using namespace fuzz;  // NOLINT: the suite's rules

// The undamaged files: a unit-scale box as binary STL, ASCII STL and OBJ,
// and a tetrahedron as OBJ.
struct BaseMesh {
  std::string name;  // with the extension that selects the reader
  std::string bytes;
};

std::vector<BaseMesh> BaseMeshes() {
  using geometry_test::BoxTriangles;
  const auto box =
      BoxTriangles(Vector3(-0.05, -0.04, -0.03), Vector3(0.05, 0.04, 0.03));
  return {{"box.stl", geometry_test::BinaryStl(box)},
          {"box_ascii.stl", geometry_test::AsciiStl(box)},
          {"box.obj", geometry_test::Obj(box)},
          {"tetra.obj",
           "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\n"
           "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"}};
}

// One mutation of a file's bytes.
std::string Mutate(std::string bytes, std::mt19937_64& rng, std::string* what) {
  auto pick = [&](size_t n) {
    return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n);
  };
  const int kind = static_cast<int>(rng() % 10);
  switch (kind) {
    case 0:  // truncate
      *what = "truncate";
      bytes.resize(pick(bytes.size()));
      break;
    case 1:  // flip random bytes
      *what = "flip bytes";
      for (int k = 0, n = 1 + static_cast<int>(rng() % 8); k < n; ++k) {
        if (!bytes.empty()) bytes[pick(bytes.size())] ^= char(1 << (rng() % 8));
      }
      break;
    case 2:  // a binary STL's triangle count
      *what = "count";
      if (bytes.size() >= 84) {
        const uint32_t counts[] = {0u, 1u, 11u, 13u, 0xffffffffu, 1u << 30};
        const uint32_t c = counts[rng() % 6];
        std::memcpy(&bytes[80], &c, 4);
      }
      break;
    case 3: {  // a non-finite or huge coordinate (text)
      *what = "bad number";
      const char* numbers[] = {"nan",   "inf",  "-inf", "1e400", "1e30",
                               "0x1p3", "1..2", "",     "-",     "1e-400"};
      const size_t at = bytes.find_first_of("0123456789", pick(bytes.size()));
      if (at != std::string::npos) {
        bytes.replace(at, 1, numbers[rng() % 10]);
      }
      break;
    }
    case 4: {  // a non-finite float in a binary STL
      *what = "nan float";
      if (bytes.size() > 96) {
        const float f = rng() % 2 ? NAN : INFINITY;
        std::memcpy(&bytes[84 + 12 + 4 * (rng() % 9)], &f, 4);
      }
      break;
    }
    case 5:  // empty
      *what = "empty";
      bytes.clear();
      break;
    case 6: {  // a line removed or duplicated (text formats)
      *what = "line";
      const size_t at = bytes.find('\n', pick(bytes.size()));
      if (at != std::string::npos) {
        const size_t end = bytes.find('\n', at + 1);
        const std::string line = bytes.substr(at, end - at);
        if (rng() % 2) {
          bytes.erase(at, end - at);
        } else {
          bytes.insert(at, line);
        }
      }
      break;
    }
    case 7:  // every coordinate squashed: a flat point set
      *what = "flat";
      for (size_t i = 0; i + 1 < bytes.size(); ++i) {
        if (bytes[i] == 'v' && bytes[i + 1] == ' ') {
          const size_t z = bytes.find_last_of(' ', bytes.find('\n', i));
          if (z != std::string::npos && z > i) {
            bytes.replace(z + 1, bytes.find('\n', z) - z - 1, "0");
          }
        }
      }
      break;
    case 8:  // garbage appended
      *what = "garbage";
      for (int k = 0; k < 64; ++k) bytes.push_back(char(rng() % 256));
      break;
    default:  // a face index out of range (OBJ) or text in a binary file
      *what = "index";
      {
        const size_t at = bytes.find("f ");
        if (at != std::string::npos) {
          bytes.replace(at, 2, "f 99 ");
        } else if (!bytes.empty()) {
          bytes.insert(pick(bytes.size()), "facet normal x y z");
        }
      }
      break;
  }
  return bytes;
}

// exit 0 (outputs finite) or exit 2 with one error line naming `names`.
void CheckRun(const std::vector<std::string>& args,
              const std::vector<std::string>& names, const fs::path& out,
              const std::string& label, std::map<std::string, int>* tally) {
  const cli_test::CliResult r = RunSapsim(args);
  if (r.status == 0) {
    ++(*tally)["ran"];
    for (const char* f : {"trajectory.csv", "summary.json"}) {
      const std::string path = (out / f).string();
      if (!fs::exists(path)) continue;
      const std::string text = cli_test::ReadFile(path);
      EXPECT_FALSE(cli_test::HasNonFiniteCell(text)) << label << ": " << f;
    }
    return;
  }
  ++(*tally)["rejected"];
  EXPECT_EQ(r.status, 2) << label << "\n" << r.err;
  EXPECT_TRUE(StartsWith(r.err, "sapsim run: error: ")) << label << "\n"
                                                        << r.err;
  for (const std::string& name : names) {
    EXPECT_NE(r.err.find(name), std::string::npos)
        << label << ": the message does not name " << name << "\n"
        << r.err;
  }
  EXPECT_FALSE(fs::exists(out / "trajectory.csv")) << label;
}

TEST(Fuzz, DamagedMeshesAndUrdfs) {
  cli_test::TempDir dir("mesh_fuzz");
  std::mt19937_64 rng(Seed() * 7919 + 3);
  const std::vector<BaseMesh> bases = BaseMeshes();
  std::map<std::string, int> tally;
  const int cases = Cases(120);
  for (int c = 0; c < cases; ++c) {
    const BaseMesh& base = bases[rng() % bases.size()];
    std::string what;
    const std::string bytes = Mutate(base.bytes, rng, &what);
    const std::string mesh =
        dir.Write("m" + std::to_string(c) + "_" + base.name, bytes);
    const std::string label =
        "case " + std::to_string(c) + " (" + what + " of " + base.name + ")";
    ++tally[what];
    // The loader alone.
    try {
      auto shape = LoadMeshShape(mesh, mesh, Vector3::Ones(), false);
      EXPECT_GE(shape->hull.vertices.size(), 4u) << label;
      EXPECT_GT(shape->hull.volume, 0.0) << label;
      EXPECT_TRUE(std::isfinite(shape->hull.volume)) << label;
      for (const Vector3& v : shape->hull.vertices) {
        ASSERT_TRUE(v.allFinite()) << label;
      }
    } catch (const MeshError& e) {
      EXPECT_TRUE(StartsWith(e.what(), mesh)) << label << ": " << e.what();
    }
    // A scene with the mesh as a free body (centred: needs a closed mesh)
    // and as a fixed one; short runs.
    const bool free_body = c % 2 == 0;
    const std::string scene = dir.Write(
        "s" + std::to_string(c) + ".yaml",
        "time_step: 0.001\nduration: 0.01\nbodies:\n"
        "  - {name: ground, fixed: true, shape: {type: plane}}\n"
        "  - name: part\n" +
            std::string(free_body ? "    mass: 1\n" : "    fixed: true\n") +
            "    shape: {type: mesh, file: " +
            fs::path(mesh).filename().string() +
            "}\n    position: [0, 0, 0.2]\n");
    const fs::path out = dir.path() / ("out" + std::to_string(c));
    CheckRun({"run", scene, "--out", out.string(), "--quiet"},
             {scene + ":", fs::path(mesh).filename().string()}, out,
             label + " as a body", &tally);
    // A robot whose link holds the mesh, through package://.
    const std::string urdf = dir.Write(
        "r" + std::to_string(c) + ".urdf",
        "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <link name=\"a\">\n"
        "    <inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" "
        "ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>\n"
        "    <collision><geometry><mesh filename=\"package://parts/" +
            fs::path(mesh).filename().string() +
            "\" scale=\"1 1 1\"/></geometry></collision>\n  </link>\n"
            "</robot>\n");
    const std::string robot_scene = dir.Write(
        "rs" + std::to_string(c) + ".yaml",
        "time_step: 0.001\nduration: 0.01\nrobots:\n  - name: r\n    urdf: " +
            fs::path(urdf).filename().string() +
            "\n    base: {position: [0, 0, 0.3], fixed: false}\n"
            "    package_paths: {parts: .}\n"
            "bodies:\n  - {name: ground, fixed: true, shape: {type: plane}}\n");
    const fs::path robot_out = dir.path() / ("rout" + std::to_string(c));
    CheckRun({"run", robot_scene, "--out", robot_out.string(), "--quiet"},
             {fs::path(urdf).filename().string(),
              fs::path(mesh).filename().string()},
             robot_out, label + " in a URDF", &tally);
  }
  // URDF mesh elements themselves damaged: attributes, URIs, scales.
  const std::string elements[] = {
      "<mesh filename=\"package://\"/>",
      "<mesh filename=\"package:///x.stl\"/>",
      "<mesh filename=\"package://nosuch/x.stl\"/>",
      "<mesh filename=\"file://\"/>",
      "<mesh filename=\"\"/>",
      "<mesh/>",
      "<mesh filename=\"m0_box.stl\" scale=\"1 1\"/>",
      "<mesh filename=\"m0_box.stl\" scale=\"nan 1 1\"/>",
      "<mesh filename=\"m0_box.stl\" scale=\"0 1 1\"/>",
      "<mesh filename=\"m0_box.stl\" scale=\"1e300 1 1\"/>",
      "<mesh filename=\"" + std::string(300, 'x') + ".stl\"/>",
      "<mesh filename=\".\"/>",
      "<mesh filename=\"/dev/zero.stl\"/>",
  };
  int e = 0;
  for (const std::string& element : elements) {
    const std::string urdf = dir.Write(
        "bad" + std::to_string(e) + ".urdf",
        "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <link name=\"a\">\n"
        "    <collision><geometry>" +
            element + "</geometry></collision>\n  </link>\n</robot>\n");
    const std::string scene = dir.Write(
        "bad" + std::to_string(e) + ".yaml",
        "time_step: 0.001\nduration: 0.01\nrobots:\n  - {name: r, urdf: " +
            fs::path(urdf).filename().string() + "}\n");
    const fs::path out = dir.path() / ("bout" + std::to_string(e));
    CheckRun({"run", scene, "--out", out.string(), "--quiet"},
             {fs::path(urdf).filename().string()}, out,
             "URDF element " + element, &tally);
    ++e;
  }
  std::string summary;
  for (const auto& [k, v] : tally) {
    summary += (summary.empty() ? "" : ", ") + k + " " + std::to_string(v);
  }
  std::printf("[fuzz meshes] %d mutated files, %d URDF elements: %s\n", cases,
              e, summary.c_str());
}

}  // namespace
}  // namespace sapcontact
