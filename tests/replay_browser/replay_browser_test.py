#!/usr/bin/python3
"""The replay page (sapsim run --html, sapsim view) in headless Chromium.

The page is opened in headless Chromium (Debian chromium) from file://; the
tests check that there are no console errors, that the canvas is not blank,
and that the scene is drawn at the right frame. Python 3 standard library
only (run it with Debian's /usr/bin/python3); tests/replay_browser/
CMakeLists.txt registers one CTest test per group (label "browser"):

  dropped_box        a box dropped onto the ground, loaded paused at two
                     times: state, errors, frame, and the box's pixels in a
                     screenshot (higher at the early time; where the page's
                     own probe says)
  view_and_contacts  `sapsim view --max-frames` rewrites the page of an
                     earlier run; frame of the thinned page; the contacts
                     toggle shows as many contacts as contacts.csv holds
  demo_pile          scripts/demo_pile's page plays (the frame advances), its
                     contacts show; prints the page's size and load time
  console_errors     negative: broken copies of a page (an uncaught
                     exception; a console.error before the page's own error
                     hooks) must be caught by the same checks
  chromium_failures  negative, without Chromium: a missing binary, one that
                     exits with an error, one that prints no DOM and one
                     that hangs must fail with a message saying why
  instanced_families two families of four alike spheres (InstancedMesh):
                     each must be drawn in its colour where the probe says
                     (registered disabled: the page fails it, see
                     CMakeLists.txt)

Usage: replay_browser_test.py GROUP --sapsim PATH --source-dir DIR
Environment: SAPCONTACT_CHROMIUM (the Chromium binary; default chromium on
PATH), SAPCONTACT_CHROMIUM_TIMEOUT (seconds per Chromium start, default 60).
Each run works in a private temporary directory (removed after a pass, kept
and named after a failure) with a fresh Chromium profile per start.
"""

import argparse
import bisect
import colorsys
import csv
import html
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

WINDOW = (1000, 650)  # Chromium's window [CSS px]; device pixel ratio 1
BACKGROUND = (0xF2, 0xF2, 0xF2)  # the page's background (#f2f2f2)
PALETTE = {"blue": 0x4E79A7, "orange": 0xF28E2B, "red": 0xE15759}  # page's

# Flags that make three.js draw in a headless container (WebGL through
# SwiftShader; without them the canvas stays blank) and keep Chromium off
# the network.
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--hide-scrollbars", "--mute-audio",
    # The page's console messages on stderr, "...:CONSOLE:LINE] "MESSAGE",
    # source: URL (LINE)". This Chromium (156) logs every level (log, warn,
    # error, uncaught exceptions) alike as INFO, so the check below treats
    # every console message as a problem except Chromium's own WebGL
    # performance notes.
    "--enable-logging=stderr", "--v=0",
]

# Console messages that are not the page's: Chromium's WebGL driver
# performance notes, caused by the page's readPixels (its status checks).
BENIGN_CONSOLE = re.compile(
    r"^\[\.WebGL-0x[0-9a-fA-F]+\]GL Driver Message \(OpenGL, Performance, ")
CONSOLE_LINE = re.compile(
    r'^\[[^\]\n]*:(\w+):CONSOLE(?::\d+)?\] "(.*?)", source: (.*?) \((\d+)\)$',
    re.M | re.S)
# stderr lines left out of failure messages: a container without D-Bus.
STDERR_NOISE = re.compile(r"dbus|D-Bus|Floss|ScreenSaver|UPower|"
                          r"/usr/bin/chromium: \d+: \[")


class CheckFailure(Exception):
    """A check failed; the message says what and why."""


class ChromiumError(CheckFailure):
    """Chromium could not start, failed, hung or produced no page."""


def fail(message):
    raise CheckFailure(message)


def check(condition, message):
    if not condition:
        fail(message)


# --- Chromium -----------------------------------------------------------------

def stderr_tail(text, lines=12):
    if not text.strip():
        return "  (stderr empty)"
    kept = [l for l in text.splitlines() if l.strip() and
            not STDERR_NOISE.search(l)]
    if not kept:
        return "  (nothing on stderr but D-Bus noise)"
    return "\n".join("  " + l[:400] for l in kept[-lines:])


def chromium_binary():
    """(path, how it was chosen); fails with a message when there is none."""
    chosen = os.environ.get("SAPCONTACT_CHROMIUM")
    if chosen:
        found = shutil.which(chosen)
        if not found:
            raise ChromiumError(
                "cannot start Chromium: SAPCONTACT_CHROMIUM=%s is not an "
                "executable file (unset it to use Debian's chromium, which "
                "scripts/setup installs)" % chosen)
        return found, "SAPCONTACT_CHROMIUM=%s" % chosen
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)
    if not found:
        raise ChromiumError(
            "cannot start Chromium: no chromium on PATH nor /usr/bin/chromium "
            "(install the Debian package chromium: scripts/setup; or set "
            "SAPCONTACT_CHROMIUM to a Chromium binary)")
    return found, found


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Load:
    """What one Chromium start saw of a page."""

    def __init__(self, url, status, errors_text, console, wall, screenshot):
        self.url = url
        self.status = status            # #status's data-* attributes
        self.errors_text = errors_text  # #errors's text
        self.console = console          # [(level, message, source, line)]
        self.wall = wall                # [s] of the Chromium run
        self.screenshot = screenshot    # PNG path or None

    def get(self, key, default=None):
        return self.status.get(key, default)

    def number(self, key):
        value = self.status.get(key)
        try:
            return float(value)
        except (TypeError, ValueError):
            fail("%s: #status has %s=%r, not a number (status: %s)" %
                 (self.url, key, value, self.status))

    def problems(self):
        """Console messages that are not benign."""
        return [c for c in self.console if not BENIGN_CONSOLE.match(c[1])]


def parse_status(dom):
    match = re.search(r'<div id="status"([^>]*)>', dom)
    if not match:
        return None
    status = {}
    for key, value in re.findall(r'([\w-]+)="([^"]*)"', match.group(1)):
        if key.startswith("data-"):
            status[key[5:]] = html.unescape(value)
    return status


class Chromium:
    def __init__(self, work, binary=None, timeout=None):
        self.work = Path(work)
        if binary is None:
            self.binary, self.chosen = chromium_binary()
        else:
            self.binary, self.chosen = binary, binary
        if timeout is None:
            timeout = float(os.environ.get("SAPCONTACT_CHROMIUM_TIMEOUT", 60))
        self.timeout = timeout
        self.starts = 0
        self._dom_window = None

    def dom_window(self):
        """The --window-size under which a page whose DOM is dumped has a
        WINDOW-sized viewport. Headless Chromium 156 lays a page out 143 px
        shorter than --window-size (1000x650 gives 1000x507) until it takes
        a screenshot, which first resizes the page to the full window size;
        the page measures its probe once, when it loads. So the probe's
        pixels match a WINDOW screenshot only when the DOM is dumped under
        a larger window: measured here with a page that reports its
        viewport, then verified."""
        if self._dom_window:
            return self._dom_window
        page = self.work / "viewport.html"
        page.write_text(
            '<!DOCTYPE html><html><body><div id="status"></div><script>'
            'document.getElementById("status").dataset.viewport = '
            'window.innerWidth + "x" + window.innerHeight;</script></body>'
            '</html>\n')

        def viewport(window):
            size = self.load(page, window=window).get("viewport", "")
            match = re.fullmatch(r"(\d+)x(\d+)", size)
            check(match, "%s: viewport %r" % (page, size))
            return int(match.group(1)), int(match.group(2))
        w, h = viewport(WINDOW)
        window = (2 * WINDOW[0] - w, 2 * WINDOW[1] - h)
        got = viewport(window)
        check(got == WINDOW, "headless Chromium gives a %dx%d viewport under "
              "--window-size=%d,%d and %dx%d under %d,%d; cannot get a %dx%d "
              "viewport to match the screenshots" %
              ((w, h) + WINDOW + got + window + WINDOW))
        self._dom_window = window
        return window

    def load(self, page, fragment="", screenshot=False, budget_ms=1000,
             window=WINDOW):
        """Loads file://PAGE#FRAGMENT under --window-size=WINDOW and returns
        a Load (the DOM's #status, the console, the screenshot if asked
        for). Raises ChromiumError when Chromium cannot start, exits with an
        error, hangs or gives no replay DOM."""
        self.starts += 1
        url = Path(page).resolve().as_uri() + ("#" + fragment if fragment else "")
        run = Path(tempfile.mkdtemp(prefix="chromium-%02d-" % self.starts,
                                    dir=self.work))
        profile = run / "profile"
        profile.mkdir()
        png = run / "screenshot.png" if screenshot else None
        args = [self.binary] + CHROMIUM_FLAGS + [
            "--user-data-dir=%s" % profile, "--window-size=%d,%d" % window,
            "--virtual-time-budget=%d" % budget_ms]
        if png:
            args.append("--screenshot=%s" % png)
        args += ["--dump-dom", url]
        what = "Chromium (%s)" % self.chosen
        start = time.monotonic()
        # Output to files, not pipes: nothing can block on a full pipe, and
        # processes left behind cannot hold our reads open.
        with open(run / "stdout", "wb") as out, open(run / "stderr", "wb") as err:
            try:
                proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err,
                                        start_new_session=True)
            except OSError as e:
                raise ChromiumError("cannot start %s: %s" % (what, e))
            try:
                code = proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                kill_group(proc.pid)
                proc.wait()
                raise ChromiumError(
                    "%s did not finish loading %s within %g s "
                    "(SAPCONTACT_CHROMIUM_TIMEOUT); killed its process group. "
                    "Last stderr lines:\n%s" %
                    (what, url, self.timeout,
                     stderr_tail((run / "stderr").read_text(errors="replace"))))
        wall = time.monotonic() - start
        kill_group(proc.pid)  # anything of this Chromium still running
        stderr = (run / "stderr").read_text(errors="replace")
        if code != 0:
            how = ("killed by signal %d" % -code if code < 0
                   else "exited with status %d" % code)
            raise ChromiumError("%s %s loading %s. Last stderr lines:\n%s" %
                                (what, how, url, stderr_tail(stderr)))
        dom = (run / "stdout").read_text(errors="replace")
        if not dom.strip():
            raise ChromiumError(
                "%s exited normally but printed no DOM for %s (--dump-dom). "
                "Last stderr lines:\n%s" % (what, url, stderr_tail(stderr)))
        status = parse_status(dom)
        if status is None:
            raise ChromiumError(
                "%s printed a DOM for %s without the replay page's <div "
                "id=\"status\"> (%d characters, starting %r)" %
                (what, url, len(dom), dom[:200]))
        if png and (not png.exists() or
                    png.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n"):
            raise ChromiumError("%s wrote no PNG screenshot of %s to %s. Last "
                                "stderr lines:\n%s" %
                                (what, url, png, stderr_tail(stderr)))
        errors = re.search(r'<div id="errors">(.*?)</div>', dom, re.S)
        console = [(m.group(1), m.group(2), m.group(3), int(m.group(4)))
                   for m in CONSOLE_LINE.finditer(stderr)]
        return Load(url, status, html.unescape(errors.group(1)) if errors else "",
                    console, wall, png)


def check_page(load, state="ready"):
    """The page loaded without errors: data-state, the page's own error
    count (window errors, unhandled rejections, console.error after its
    hooks) and every console message Chromium logged for it."""
    problems = []
    if load.get("state") != state:
        problems.append("data-state is %r, expected %r" %
                        (load.get("state"), state))
    if load.get("errors") != "0":
        problems.append("the page counted data-errors=%s: %s" %
                        (load.get("errors"), load.errors_text.strip()))
    for level, message, source, line in load.problems():
        problems.append("console message (%s) from %s line %d: %s" %
                        (level, source, line, message))
    if problems:
        fail("%s:\n  %s" % (load.url, "\n  ".join(problems)))


# --- PNG (screenshots): zlib and the five PNG filters ----------------------------

class Image:
    def __init__(self, width, height, channels, rows):
        self.width, self.height, self.channels, self.rows = \
            width, height, channels, rows

    def pixel(self, x, y):
        row, i = self.rows[y], self.channels * x
        return row[i], row[i + 1], row[i + 2]


def read_png(path):
    data = Path(path).read_bytes()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "%s: not a PNG file" % path)
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    check(header is not None, "%s: PNG without IHDR" % path)
    width, height, depth, colour, _, _, interlace = header
    check(depth == 8 and colour in (2, 6) and interlace == 0,
          "%s: PNG bit depth %d, colour type %d, interlace %d: only 8-bit "
          "RGB or RGBA without interlace are read here" %
          (path, depth, colour, interlace))
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    check(len(raw) == height * (stride + 1),
          "%s: %d bytes of image data, expected %d" %
          (path, len(raw), height * (stride + 1)))
    rows, prev, n = [], bytearray(stride), channels
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for x in range(n, stride):
                line[x] = (line[x] + line[x - n]) & 255
        elif kind == 2:  # Up
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif kind == 3:  # Average
            for x in range(n):
                line[x] = (line[x] + (prev[x] >> 1)) & 255
            for x in range(n, stride):
                line[x] = (line[x] + ((line[x - n] + prev[x]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for x in range(n):
                line[x] = (line[x] + prev[x]) & 255
            for x in range(n, stride):
                a, b, c = line[x - n], prev[x], prev[x - n]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                if pa <= pb and pa <= pc:
                    p = a
                elif pb <= pc:
                    p = b
                else:
                    p = c
                line[x] = (line[x] + p) & 255
        elif kind != 0:
            fail("%s: row %d has PNG filter type %d" % (path, y, kind))
        rows.append(line)
        prev = line
    return Image(width, height, channels, rows)


def hsv(rgb):
    return colorsys.rgb_to_hsv(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255)


def colour_matcher(hex_colour):
    """Whether a pixel shows a Lambert-shaded surface of this colour: hue
    within 12 degrees, saturation within a factor 0.6 to 1.5 of the colour's
    (shading changes brightness, not hue; this leaves out the grey ground,
    the background, the white panels and the fully saturated blue of the
    slider), and not dark."""
    h0, s0, _ = hsv(((hex_colour >> 16) & 255, (hex_colour >> 8) & 255,
                     hex_colour & 255))

    def matches(rgb):
        h, s, v = hsv(rgb)
        dh = abs(h - h0) * 360
        return (min(dh, 360 - dh) < 12 and 0.6 * s0 <= s <= 1.5 * s0 and
                v > 0.2)
    return matches


class Blob:
    """A connected set of pixels (8-neighbours): count, centroid (x right,
    y down from the top), bounding box."""

    def __init__(self, pixels):
        self.count = len(pixels)
        self.x = sum(p[0] for p in pixels) / self.count
        self.y = sum(p[1] for p in pixels) / self.count
        self.left = min(p[0] for p in pixels)
        self.right = max(p[0] for p in pixels)
        self.top = min(p[1] for p in pixels)
        self.bottom = max(p[1] for p in pixels)
        self.height = self.bottom - self.top + 1

    def __str__(self):
        return ("%d px centred on (%.1f, %.1f), x %d to %d, y %d to %d" %
                (self.count, self.x, self.y, self.left, self.right, self.top,
                 self.bottom))


def blobs(image, matches):
    """The connected sets of the pixels that match, largest first."""
    width, height, n = image.width, image.height, image.channels
    mask = bytearray(width * height)
    cache = {}
    for y, row in enumerate(image.rows):
        base = y * width
        for x in range(width):
            rgb = bytes(row[n * x:n * x + 3])
            hit = cache.get(rgb)
            if hit is None:
                hit = cache[rgb] = matches(rgb)
            if hit:
                mask[base + x] = 1
    found = []
    for start in range(width * height):
        if mask[start] != 1:
            continue
        mask[start] = 2
        stack, pixels = [start], []
        while stack:
            i = stack.pop()
            y, x = divmod(i, width)
            pixels.append((x, y))
            for dy in (-1, 0, 1):
                yy = y + dy
                if yy < 0 or yy >= height:
                    continue
                for dx in (-1, 0, 1):
                    xx = x + dx
                    if 0 <= xx < width and mask[yy * width + xx] == 1:
                        mask[yy * width + xx] = 2
                        stack.append(yy * width + xx)
        found.append(Blob(pixels))
    found.sort(key=lambda b: -b.count)
    return found


def drawn_fraction(image):
    """The fraction of the image (every third column) that shows something
    drawn: neither the page's background #f2f2f2 (a canvas missing or
    transparent) nor black (a canvas never drawn into), each within 10."""
    bg = bytes(BACKGROUND)
    n = image.channels
    drawn = total = 0
    for row in image.rows:
        for x in range(0, image.width, 3):
            rgb = row[n * x:n * x + 3]
            total += 1
            if not (all(abs(rgb[i] - bg[i]) <= 10 for i in range(3)) or
                    max(rgb[0], rgb[1], rgb[2]) <= 10):
                drawn += 1
    return drawn / total


def check_drawn(load, image, least=0.5):
    fraction = drawn_fraction(image)
    check(fraction > least,
          "%s: only %.0f%% of the screenshot shows something drawn (the "
          "rest is the background #f2f2f2 or black): the canvas is blank" %
          (load.url, 100 * fraction))
    return fraction


# --- Runs -------------------------------------------------------------------------

def run_program(args, what, cwd=None, timeout=300):
    """Runs a program (sapsim, scripts/demo_pile) in its own process group;
    fails with its output when it fails or does not finish in time."""
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as e:
            fail("cannot run %s (%s): %s" % (what, args[0], e))
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            proc.wait()
            code = None
        out.seek(0)
        output = out.read().decode(errors="replace")
    check(code is not None, "%s did not finish within %d s (killed): %s\n%s" %
          (what, timeout, " ".join(args), output))
    check(code == 0, "%s failed (exit status %d): %s\n%s" %
          (what, code, " ".join(args), output))
    return output


def trajectory_times(run_dir):
    """The distinct times of trajectory.csv, in order."""
    times = []
    with open(Path(run_dir) / "trajectory.csv", newline="") as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            if not times or t != times[-1]:
                times.append(t)
    check(times == sorted(set(times)),
          "%s/trajectory.csv: times not increasing" % run_dir)
    return times


def contacts_per_time(run_dir):
    counts = {}
    with open(Path(run_dir) / "contacts.csv", newline="") as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            counts[t] = counts.get(t, 0) + 1
    return counts


def page_data(page):
    """The run data embedded in the page (its replay-data JSON)."""
    text = Path(page).read_text()
    match = re.search(r'<script type="application/json" id="replay-data">'
                      r'(.*?)</script>', text, re.S)
    check(match, "%s: no replay-data script" % page)
    return json.loads(match.group(1))


def nearest_frame(times, t):
    """The frame whose time is the nearest to t (the earlier on a tie)."""
    i = bisect.bisect_right(times, t) - 1
    if i < 0:
        return 0
    if i + 1 < len(times) and times[i + 1] - t < t - times[i]:
        return i + 1
    return i


def check_frame(load, times, t):
    expected = nearest_frame(times, t)
    check(load.get("frames") == str(len(times)),
          "%s: data-frames=%s, expected %d (the page's frames)" %
          (load.url, load.get("frames"), len(times)))
    check(load.get("frame") == str(expected),
          "%s: data-frame=%s, expected %d: the frame at %g s is the nearest "
          "to t=%g s (frames at %s)" %
          (load.url, load.get("frame"), expected, times[expected], t,
           ", ".join("%g" % x for x in times[max(0, expected - 2):expected + 3])))
    check(abs(load.number("time") - t) <= 1e-5 * max(1.0, t),
          "%s: data-time=%s, expected %g" % (load.url, load.get("time"), t))


def check_nonblank(load, least=0.5):
    check(load.number("nonblank") > least,
          "%s: data-nonblank=%s: at most %g of the sampled pixels differ from "
          "the background; the canvas is (nearly) blank" %
          (load.url, load.get("nonblank"), least))


def sapsim_run(sapsim, scene, out, *options):
    return run_program([sapsim, "run", str(scene), "--out", str(out), "-q"] +
                       list(options), "sapsim run %s" % scene)


# --- Groups --------------------------------------------------------------------------

def screenshot_image(load):
    image = read_png(load.screenshot)
    check((image.width, image.height) == WINDOW,
          "%s: the screenshot is %dx%d, expected %dx%d (--window-size; device "
          "pixel ratio 1)" % ((load.url, image.width, image.height) + WINDOW))
    return image


def group_dropped_box(args, work):
    """The box is drawn at the frame asked for: higher early than late."""
    chromium = Chromium(work)  # fails at once when there is none
    scene = Path(args.source_dir) / "tests/replay_browser/dropped_box.yaml"
    run = work / "box"
    sapsim_run(args.sapsim, scene, run, "--html")
    page = run / "replay.html"
    check(page.exists(), "sapsim run --html wrote no %s" % page)
    times = trajectory_times(run)
    check(len(times) == 61, "%s: %d frames, expected 61 (0 to 0.6 s every "
          "10 ms)" % (run / "trajectory.csv", len(times)))
    # 0.157 s: between frames 15 (0.15 s) and 16 (0.16 s), nearer 16; the
    # box falls (z = 0.38 m). 0.503 s: frame 50 (0.5 s), landed (z = 0.05 m).
    seen = {}
    for label, t in (("early", 0.157), ("late", 0.503)):
        fragment = "t=%g&paused=1" % t
        # The page's state and its probe (the box alone, flat red: where the
        # page draws it), with a viewport the size of the screenshot.
        load = chromium.load(page, fragment + "&probe=box",
                             window=chromium.dom_window())
        check_page(load)
        check_frame(load, times, t)
        check_nonblank(load)
        check(load.get("playing") == "0", "%s: data-playing=%s with paused=1" %
              (load.url, load.get("playing")))
        probe = (load.number("probe-x"), load.number("probe-y"),
                 load.number("probe-pixels"))
        # The picture, decoded here: the box is the largest connected set of
        # pixels of its blue (0x4e79a7, shaded).
        shot = chromium.load(page, fragment, screenshot=True)
        check_page(shot)
        check_frame(shot, times, t)
        image = screenshot_image(shot)
        drawn = check_drawn(shot, image)
        found = blobs(image, colour_matcher(PALETTE["blue"]))
        check(found and found[0].count >= 1000,
              "%s: the screenshot has %s pixels of the box's blue (0x4e79a7 "
              "shaded); the probe counts %d for the box" %
              (shot.url, found[0].count if found else "no", probe[2]))
        box = found[0]
        # Where the probe says, and as large: within 2 px and 5 % (the two
        # classify antialiased edge pixels differently; the box's outline
        # is about 3 % of its area).
        check(abs(box.x - probe[0]) <= 2 and abs(box.y - probe[1]) <= 2 and
              abs(box.count - probe[2]) <= 0.05 * probe[2],
              "%s: the box in the screenshot: %s; the page's probe: %d px "
              "centred on (%.1f, %.1f)" %
              (shot.url, box, probe[2], probe[0], probe[1]))
        seen[label] = (t, box, probe)
        print("dropped_box t=%g s: frame %s of %s, nonblank %s, load %s ms; "
              "probe: %d px centred on (%.1f, %.1f); screenshot: box %s, "
              "drawn %.0f%%; Chromium %.1f s + %.1f s" %
              (t, load.get("frame"), load.get("frames"), load.get("nonblank"),
               load.get("load-ms"), probe[2], probe[0], probe[1], box,
               100 * drawn, load.wall, shot.wall))
    (t0, early, probe0), (t1, late, probe1) = seen["early"], seen["late"]
    # Between the two times the box falls 0.33 m, 3.3 edge lengths: seen
    # from the page's camera (49 degrees above the horizon) about 1.5 times
    # the box's own image height. Require at least half of that: far above
    # pixel noise, and independent of the camera's framing.
    check(late.y - early.y > 0.5 * late.height and
          probe1[1] - probe0[1] > 0.5 * late.height,
          "the box's image centres on y=%.1f (probe %.1f) at %g s and y=%.1f "
          "(probe %.1f) at %g s, y down from the top: expected it higher at "
          "the early time by more than half its image height (%d px)" %
          (early.y, probe0[1], t0, late.y, probe1[1], t1, late.height))
    print("dropped_box: the box's image centroid moves down %.1f px from %g s "
          "to %g s (probe: %.1f px; its image height %d px)" %
          (late.y - early.y, t0, t1, probe1[1] - probe0[1], late.height))


def group_view_and_contacts(args, work):
    """sapsim view rewrites an earlier run's page (thinned); the contacts
    toggle."""
    chromium = Chromium(work)  # fails at once when there is none
    scene = Path(args.source_dir) / "tests/replay_browser/dropped_box.yaml"
    run = work / "box"
    sapsim_run(args.sapsim, scene, run, "--html")
    page = run / "replay.html"
    check(len(page_data(page)["t"]) == 61,
          "%s: the page of the run has %d frames, expected 61" %
          (page, len(page_data(page)["t"])))
    run_program([args.sapsim, "view", str(run), "--max-frames", "7", "-q"],
                "sapsim view")
    data = page_data(page)
    times, run_times = data["t"], trajectory_times(run)
    check(len(times) == 7 and set(times) <= set(run_times) and
          times[0] == run_times[0] and times[-1] == run_times[-1],
          "%s after sapsim view --max-frames 7: frame times %s, expected 7 of "
          "the run's, the first and last kept" % (page, times))
    check(data["info"]["contacts_dropped"] == 0,
          "%s: contacts dropped: %s" % (page, data["info"]))
    contacts = contacts_per_time(run)
    t = 0.503  # the box rests on the ground on its four corners
    shown = {}
    for toggle in ("contacts=1&", ""):
        load = chromium.load(page, "%st=%g&paused=1" % (toggle, t))
        check_page(load)
        check_frame(load, times, t)
        check_nonblank(load)
        shown[toggle] = load.get("contacts-shown")
        frame_time = times[nearest_frame(times, t)]
        print("view_and_contacts t=%g s (%s): frame %s of %s (at %g s), "
              "contacts shown %s, contacts.csv rows at that time %d" %
              (t, toggle.rstrip("&") or "contacts off", load.get("frame"),
               load.get("frames"), frame_time, shown[toggle],
               contacts.get(frame_time, 0)))
    expected = contacts.get(times[nearest_frame(times, t)], 0)
    check(expected > 0, "contacts.csv has no contacts at %g s: the box "
          "should rest on the ground" % times[nearest_frame(times, t)])
    check(shown["contacts=1&"] == str(expected),
          "contacts=1 at t=%g: data-contacts-shown=%s, expected %d (the "
          "rows of contacts.csv at the frame's time)" %
          (t, shown["contacts=1&"], expected))
    check(shown[""] == "0", "without contacts=1: data-contacts-shown=%s, "
          "expected 0 (the toggle is off)" % shown[""])


def group_demo_pile(args, work):
    """scripts/demo_pile's page plays in Chromium."""
    chromium = Chromium(work)  # fails at once when there is none
    run = work / "pile"
    script = Path(args.source_dir) / "scripts/demo_pile"
    run_program([str(script), args.sapsim, str(run), "-q"], "scripts/demo_pile")
    page = run / "replay.html"
    check(page.exists(), "scripts/demo_pile wrote no %s" % page)
    size = page.stat().st_size
    data = page_data(page)
    times = data["t"]
    run_times = trajectory_times(run)
    check(times == run_times,
          "%s: %d frames, expected the run's %d (fewer than the page's limit "
          "of 2000: not thinned)" % (page, len(times), len(run_times)))
    check(data["info"]["contacts_dropped"] == 0,
          "%s: contacts dropped: %s" % (page, data["info"]))
    # Playing (no paused=1) from t = 0 at 0.05x: the playback needs 30 s of
    # page time to wrap around to frame 0, longer than a Chromium run may
    # take, so a frame > 0 means it advanced.
    load = chromium.load(page, "speed=0.05")
    check_page(load)
    check_nonblank(load)
    check(load.get("frames") == str(len(times)), "%s: data-frames=%s, "
          "expected %d" % (load.url, load.get("frames"), len(times)))
    check(load.get("playing") == "1", "%s: data-playing=%s, expected 1 "
          "(playing by default)" % (load.url, load.get("playing")))
    check(load.number("frame") > 0 and load.number("time") > 0,
          "%s: data-frame=%s, data-time=%s after a virtual-time budget of 1 s "
          "while playing: the playback did not advance" %
          (load.url, load.get("frame"), load.get("time")))
    print("demo_pile: replay.html %d bytes (%.2f MB), %d frames, %d objects; "
          "playing: frame %s at t=%s s; page load %s ms (data-load-ms), "
          "Chromium run %.1f s wall" %
          (size, size / 1e6, len(times), len(data["objects"]),
           load.get("frame"), load.get("time"), load.get("load-ms"), load.wall))
    # At 1.4 s the pile rests: contacts shown as contacts.csv has them.
    t = 1.4
    load = chromium.load(page, "t=%g&paused=1&contacts=1" % t, screenshot=True)
    check_page(load)
    check_frame(load, times, t)
    check_nonblank(load)
    frame_time = times[nearest_frame(times, t)]
    expected = contacts_per_time(run).get(frame_time, 0)
    check(expected > 0 and load.get("contacts-shown") == str(expected),
          "%s: data-contacts-shown=%s, expected %d (the rows of contacts.csv "
          "at %g s)" % (load.url, load.get("contacts-shown"), expected,
                        frame_time))
    image = screenshot_image(load)
    check_drawn(load, image)
    families = {}
    for name in ("blue", "orange", "red"):
        found = blobs(image, colour_matcher(PALETTE[name]))
        families[name] = sum(b.count for b in found if b.count >= 100)
        check(families[name] >= 500,
              "%s: %d pixels of %s (0x%06x shaded) in the screenshot: the "
              "pile's spheres (blue, orange) and boxes (red) should show" %
              (load.url, families[name], name, PALETTE[name]))
    print("demo_pile t=%g s: frame %s, contacts shown %s (contacts.csv: %d), "
          "pixels blue %d, orange %d, red %d; load %s ms, Chromium %.1f s" %
          (t, load.get("frame"), load.get("contacts-shown"), expected,
           families["blue"], families["orange"], families["red"],
           load.get("load-ms"), load.wall))


def group_console_errors(args, work):
    """Negative: broken pages must fail check_page, with the reason."""
    chromium = Chromium(work)  # fails at once when there is none
    scene = Path(args.source_dir) / "tests/replay_browser/dropped_box.yaml"
    run = work / "box"
    sapsim_run(args.sapsim, scene, run, "--html")
    text = (run / "replay.html").read_text()
    check(text.count("<head>") == 1 and text.count("</body>") == 1,
          "%s: expected one <head> and one </body> to inject at" % run)
    cases = [
        # After the page's hooks: the page itself counts it, and Chromium
        # logs "Uncaught Error".
        ("uncaught", "</body>",
         "<script>throw new Error('injected-uncaught-error');</script></body>",
         "injected-uncaught-error", ["data-errors=1", "console message",
                                     "Uncaught Error"], "1"),
        # Before the page's hooks: only Chromium's console log shows it.
        ("console_error", "<head>",
         "<head><script>console.error('injected-console-error');</script>",
         "injected-console-error", ["console message"], "0"),
    ]
    for name, marker, replacement, token, reasons, page_errors in cases:
        broken = run / ("broken_%s.html" % name)
        broken.write_text(text.replace(marker, replacement, 1))
        load = chromium.load(broken, "t=0.5&paused=1")
        try:
            check_page(load)
        except CheckFailure as e:
            message = str(e)
        else:
            fail("%s: a page with an injected %s passed the checks (status "
                 "%s; console %s)" % (broken, name, load.status, load.console))
        for needle in [token] + reasons:
            check(needle in message,
                  "%s: the failure does not mention %r:\n%s" %
                  (broken, needle, message))
        check(load.get("errors") == page_errors,
              "%s: data-errors=%s, expected %s" %
              (broken, load.get("errors"), page_errors))
        print("console_errors: %s detected as expected:\n%s" %
              (name, "\n".join("    " + l for l in message.splitlines())))


def group_chromium_failures(args, work):
    """Negative, without Chromium: each way of not getting a page fails with
    a message that says why."""
    def expect(binary, needles, timeout=60):
        try:
            chromium = Chromium(work, binary=binary, timeout=timeout)
            chromium.load(work / "missing.html")
        except ChromiumError as e:
            message = str(e)
        else:
            fail("%s: no failure" % binary)
        for needle in needles:
            check(needle in message, "%s: the failure does not mention %r:\n%s"
                  % (binary, needle, message))
        print("chromium_failures: %s ->\n    %s" %
              (Path(binary).name, message.replace("\n", "\n    ")))

    def script(name, body):
        path = work / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
        return str(path)

    expect("/nonexistent/chromium", ["cannot start", "/nonexistent/chromium"])
    expect(script("fails", "echo 'fake: cannot open display' >&2\nexit 3\n"),
           ["exited with status 3", "fake: cannot open display"])
    expect(script("silent", "exit 0\n"), ["printed no DOM"])
    expect(script("not_replay", "echo '<html><body>hi</body></html>'\n"),
           ["without the replay page"])
    # A hang: the fake starts a child and waits; both must be killed.
    pid_file = work / "child.pid"
    expect(script("hangs", "sleep 300 &\necho $! > %s\nwait\n" % pid_file),
           ["did not finish", "killed its process group"], timeout=2)
    child = int(pid_file.read_text())
    for _ in range(100):  # the kill is immediate; reaping may take a moment
        state = Path("/proc/%d/stat" % child)
        if not state.exists() or state.read_text().split(") ")[1][0] == "Z":
            break
        time.sleep(0.05)
    else:
        kill_group(child)
        fail("the hanging fake Chromium's child (pid %d) survived the kill" % child)
    # Through the environment variable, as the other groups use it.
    os.environ["SAPCONTACT_CHROMIUM"] = "/nonexistent"
    try:
        Chromium(work)
    except ChromiumError as e:
        check("SAPCONTACT_CHROMIUM=/nonexistent" in str(e), str(e))
        print("chromium_failures: SAPCONTACT_CHROMIUM=/nonexistent ->\n    %s" % e)
    else:
        fail("SAPCONTACT_CHROMIUM=/nonexistent: no failure")
    finally:
        del os.environ["SAPCONTACT_CHROMIUM"]


def scene_page_shot(args, work, scene_name, run_name):
    """Runs tests/replay_browser/SCENE_NAME with --html; returns the Chromium,
    the page and its decoded screenshot at t = 0 (checked drawn)."""
    chromium = Chromium(work)  # fails at once when there is none
    scene = Path(args.source_dir) / "tests/replay_browser" / scene_name
    run = work / run_name
    sapsim_run(args.sapsim, scene, run, "--html")
    page = run / "replay.html"
    shot = chromium.load(page, "t=0&paused=1", screenshot=True)
    check_page(shot)
    image = screenshot_image(shot)
    check_drawn(shot, image)
    return chromium, page, shot, image


def probe_object(chromium, page, name, least):
    """The page's probe of object NAME at t = 0: (pixels, x, y, load), with
    more than LEAST pixels."""
    load = chromium.load(page, "t=0&paused=1&probe=%s" % name,
                         window=chromium.dom_window())
    check_page(load)
    pixels = load.number("probe-pixels")
    check(pixels > least, "%s: the probe finds %s pixels of %s" %
          (load.url, load.get("probe-pixels"), name))
    return pixels, load.number("probe-x"), load.number("probe-y"), load


def group_instanced_families(args, work):
    """Two families of four alike spheres (one InstancedMesh each, sharing a
    geometry): each drawn in its colour where the probe says."""
    chromium, page, shot, image = scene_page_shot(args, work,
                                                  "two_families.yaml",
                                                  "families")
    for name, colour in (("left_0_0_0", "blue"), ("right_0_0_0", "orange")):
        pixels, x, y, load = probe_object(chromium, page, name, 100)
        matches = colour_matcher(PALETTE[colour])
        found = [b for b in blobs(image, matches) if b.count >= 0.5 * pixels]
        # The family: four spheres of its colour, each about as large as the
        # probed one; the probed one where the probe says.
        check(len(found) == 4,
              "%s: %d spheres of %s (0x%06x shaded; at least %d px) in the "
              "screenshot, expected the 4 of %s's family: %s" %
              (shot.url, len(found), colour, PALETTE[colour], 0.5 * pixels,
               name, "; ".join(map(str, found)) or "none"))
        near = min(found, key=lambda b: (b.x - x) ** 2 + (b.y - y) ** 2)
        check(abs(near.x - x) <= 2 and abs(near.y - y) <= 2,
              "%s: the probe puts %s at (%.1f, %.1f); the nearest %s sphere "
              "in the screenshot: %s" % (load.url, name, x, y, colour, near))
        print("instanced_families: %s (probe %d px at (%.1f, %.1f)) drawn %s: "
              "%s" % (name, pixels, x, y, colour, near))


def group_mesh_shapes(args, work):
    """A mesh (its convex hull) and a cylinder: each drawn in its colour where
    the probe says, as large as the probe counts."""
    chromium, page, shot, image = scene_page_shot(args, work,
                                                  "mesh_shapes.yaml", "meshes")
    data = page_data(page)
    hulls = data.get("meshes", [])
    check(len(hulls) == 1 and len(hulls[0]["v"]) == 3 * 12 and
          len(hulls[0]["f"]) == 3 * 20,
          "%s: the page's meshes are %s, expected the hex prism's hull (12 "
          "vertices, 8 faces fanned into 20 triangles)" %
          (page, [(len(h["v"]) // 3, len(h["f"]) // 3) for h in hulls]))
    for name, colour in (("prism", "blue"), ("can", "orange")):
        pixels, x, y, load = probe_object(chromium, page, name, 500)
        found = blobs(image, colour_matcher(PALETTE[colour]))
        check(found, "%s: no pixels of %s's %s (0x%06x shaded)" %
              (shot.url, name, colour, PALETTE[colour]))
        shape = found[0]
        check(abs(shape.x - x) <= 2 and abs(shape.y - y) <= 2 and
              abs(shape.count - pixels) <= 0.05 * pixels,
              "%s: the probe: %d px centred on (%.1f, %.1f); the largest %s "
              "region of the screenshot: %s" %
              (load.url, pixels, x, y, colour, shape))
        print("mesh_shapes: %s (probe %d px at (%.1f, %.1f)) drawn %s: %s" %
              (name, pixels, x, y, colour, shape))


GROUPS = {
    "dropped_box": group_dropped_box,
    "view_and_contacts": group_view_and_contacts,
    "demo_pile": group_demo_pile,
    "console_errors": group_console_errors,
    "chromium_failures": group_chromium_failures,
    "instanced_families": group_instanced_families,
    "mesh_shapes": group_mesh_shapes,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--sapsim", required=True, help="the sapsim program")
    parser.add_argument("--source-dir", required=True,
                        help="the repository (scenes, scripts/demo_pile)")
    args = parser.parse_args()
    args.sapsim = os.path.abspath(args.sapsim)
    work = Path(tempfile.mkdtemp(prefix="replay_browser.%s." % args.group))
    start = time.monotonic()
    try:
        GROUPS[args.group](args, work)
    except CheckFailure as e:
        print("FAIL replay_browser.%s: %s" % (args.group, e))
        print("(files kept in %s)" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("PASS replay_browser.%s (%.1f s)" % (args.group, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
