#!/usr/bin/python3
"""Robots on the replay page in headless Chromium: their URDF visuals.

Uses the Chromium harness, PNG reader and checks of replay_browser_test.py
(same folder). tests/replay_browser/CMakeLists.txt registers one CTest test
per group (label "browser"):

  atlas_visuals  config/scenes/atlas_stand.yaml (Collada visuals, STL
                 collision meshes) run 0.05 s with --html: the page draws
                 every visual in the page's data (data-visuals,
                 data-visual-triangles), no errors; the visuals alone cover
                 a large part of the picture (the camera frames the robot:
                 more than 70 % of its height, more than 5 % of its pixels);
                 the screenshot is drawn; with #hulls=1 the collision hulls
                 are drawn too (more triangles), without it they are not

Usage: robot_visuals_test.py GROUP --sapsim PATH --source-dir DIR
Environment: as replay_browser_test.py, and SAPCONTACT_ATLAS_SCREENSHOT (a
path: the screenshot is copied there).
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import replay_browser_test as rb  # noqa: E402

ATLAS_URDF = "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf"


def group_atlas_visuals(args, work):
    chromium = rb.Chromium(work)  # fails at once when there is none
    rb.check(Path(ATLAS_URDF).exists(),
             "%s is missing (the Debian package dart-doc, installed by "
             "scripts/setup)" % ATLAS_URDF)
    run = work / "atlas"
    scene = Path(args.source_dir) / "config/scenes/atlas_stand.yaml"
    rb.sapsim_run(args.sapsim, scene, run, "--html", "--set", "duration=0.05")
    page = run / "replay.html"
    size = page.stat().st_size
    data = rb.page_data(page)
    visuals = sum(len(l["v"]) for l in data["links"])
    triangles = sum(len(m["f"]) // 3 for m in data["vmeshes"])
    rb.check(visuals == 32 and len(data["vmeshes"]) == 29,
             "%s: %d visuals and %d visual meshes in the page, expected "
             "Atlas's 32 visuals (29 Collada meshes, 3 camera boxes)" %
             (page, visuals, len(data["vmeshes"])))
    shot = chromium.load(page, "t=0&paused=1", screenshot=True)
    rb.check_page(shot)
    image = rb.screenshot_image(shot)
    drawn = rb.check_drawn(shot, image)
    rb.check(shot.get("visuals") == str(visuals),
             "%s: data-visuals=%s, expected the page's %d visuals" %
             (shot.url, shot.get("visuals"), visuals))
    # Box visuals count 12 triangles each, the meshes theirs.
    rb.check(shot.number("visual-triangles") == triangles + 3 * 12,
             "%s: data-visual-triangles=%s, expected %d (the visual meshes' "
             "%d and three boxes)" % (shot.url, shot.get("visual-triangles"),
                                      triangles + 36, triangles))
    coverage = shot.number("visual-coverage")
    height = shot.number("visual-height")
    width = shot.number("visual-width")
    rb.check(height > 0.7 and coverage > 0.05,
             "%s: the visuals cover %.1f %% of the picture, %.0f %% of its "
             "height and %.0f %% of its width: the camera should frame the "
             "robot (more than 70 %% of the height, 5 %% of the pixels)" %
             (shot.url, 100 * coverage, 100 * height, 100 * width))
    hidden = shot.number("triangles")
    hulls = chromium.load(page, "t=0&paused=1&hulls=1")
    rb.check_page(hulls)
    rb.check(hulls.number("triangles") > hidden,
             "%s: %s triangles drawn with the hulls shown, %s without: the "
             "hulls toggle draws nothing" %
             (hulls.url, hulls.get("triangles"), shot.get("triangles")))
    copy = os.environ.get("SAPCONTACT_ATLAS_SCREENSHOT")
    if copy:
        shutil.copyfile(shot.screenshot, copy)
    print("atlas_visuals: replay.html %d bytes (%.2f MB), %d visuals, %d "
          "visual triangles; visuals cover %.1f %% of the picture, %.0f %% of "
          "its height, %.0f %% of its width; screenshot drawn %.0f %%; "
          "triangles drawn %s, with hulls %s; load %s ms%s" %
          (size, size / 1e6, visuals, shot.number("visual-triangles"),
           100 * coverage, 100 * height, 100 * width, 100 * drawn,
           shot.get("triangles"), hulls.get("triangles"), shot.get("load-ms"),
           "; screenshot copied to %s" % copy if copy else ""))


GROUPS = {"atlas_visuals": group_atlas_visuals}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--sapsim", required=True, help="the sapsim program")
    parser.add_argument("--source-dir", required=True,
                        help="the repository (config/scenes)")
    args = parser.parse_args()
    args.sapsim = os.path.abspath(args.sapsim)
    work = Path(tempfile.mkdtemp(prefix="robot_visuals.%s." % args.group))
    start = time.monotonic()
    try:
        GROUPS[args.group](args, work)
    except rb.CheckFailure as e:
        print("FAIL replay_browser.%s: %s" % (args.group, e))
        print("(files kept in %s)" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("PASS replay_browser.%s (%.1f s)" % (args.group,
                                               time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
