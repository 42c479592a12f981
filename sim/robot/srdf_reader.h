// The collision filter of an SRDF file (MoveIt's Semantic Robot
// Description Format): its <disable_collisions link1="a" link2="b"/>
// elements (docs/robots.md, "Collision filters"). Groups, end effectors,
// virtual joints and the rest of the format are not read.
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

/// One <disable_collisions> element: two link names and its line.
struct SrdfDisabledPair {
  std::string link1, link2;
  int line{0};
};

/// Reads the SRDF file at `path`. @throws UrdfError (sim/robot/
/// urdf_loader.h) naming the file and line: unreadable file, XML syntax,
/// a root other than <robot>, a <disable_collisions> without link1 or
/// link2.
std::vector<SrdfDisabledPair> LoadSrdfDisabledCollisions(
    const std::string& path);

/// As LoadSrdfDisabledCollisions on SRDF text; `source` names it in
/// messages.
std::vector<SrdfDisabledPair> ParseSrdfDisabledCollisions(
    const std::string& xml, const std::string& source);

}  // namespace sapcontact
