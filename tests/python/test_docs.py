"""docs/python.md's numbers, re-measured: its first example runs as the
document shows it and prints what the document says it prints (numbers
compared to 1e-3 relative), and the numbers the text quotes from that
output and from examples/python/push_box_to_target.py are the runs' own.
"""

import re
import subprocess
import sys

NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def first_example(text):
    """The first ```python block and the ``` block after it."""
    code = re.search(r"```python\n(.*?)```", text, re.S)
    shown = re.search(r"```\n(.*?)```", text[code.end():], re.S)
    return code.group(1), shown.group(1)


def numbers(text):
    return [float(x) for x in NUMBER.findall(text)]


def close(a, b):
    return abs(a - b) <= 1e-3 * max(abs(a), abs(b)) + 1e-12


def test_the_first_example_prints_what_the_document_shows(source_dir):
    text = (source_dir / "docs" / "python.md").read_text()
    code, shown = first_example(text)
    r = subprocess.run([sys.executable, "-c", code], cwd=source_dir,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got, want = numbers(r.stdout), numbers(shown)
    assert len(got) == len(want), (r.stdout, shown)
    for g, w in zip(got, want):
        assert close(g, w), (g, w, r.stdout, shown)
    # The words match too (status, units).
    assert re.sub(NUMBER, "#", r.stdout.strip()).split() == \
        re.sub(NUMBER, "#", shown.strip()).split()
    # The prose quotes the same run.
    out = r.stdout
    assert "0.0401" in out and "0.6617 m/s^2" in out
    assert "incline the scene's box slides at 0.6617 m/s^2" in text
    # ... and with the sap model, as the text says.
    sap = subprocess.run(
        [sys.executable, "-c",
         "import sapcontact\n"
         "run = sapcontact.run_scene('config/scenes/incline.yaml', overrides="
         "{'gravity': [4.905, 0, -8.495709211], "
         "'solver.contact_model': 'sap'})\n"
         "print(f'{2 * run.positions[-1, 0, 0] / run.times[-1] ** 2:.4f}')"],
        cwd=source_dir, capture_output=True, text=True)
    assert sap.returncode == 0, sap.stderr
    assert f"slides at {sap.stdout.strip()} m/s^2" in text, sap.stdout


def test_the_controller_examples_numbers(source_dir):
    text = (source_dir / "docs" / "python.md").read_text()
    quoted = re.search(r"the box ends ([\d.]+) mm from the target\s+"
                       r"\(tolerance 20 mm\)\s+after ([\d.]+) s simulated",
                       text)
    assert quoted, "docs/python.md no longer quotes the controller example"
    r = subprocess.run(
        [sys.executable,
         str(source_dir / "examples" / "python" / "push_box_to_target.py")],
        capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    final = [line for line in r.stdout.splitlines()
             if line.startswith("final:")][0]
    millimetres = float(final.split(" mm from the target")[0].split()[-1])
    assert abs(millimetres - float(quoted.group(1))) <= 0.05, final
    seconds = re.search(r"([\d.]+) s", final)
    assert seconds and abs(float(seconds.group(1)) -
                           float(quoted.group(2))) <= 0.005, final
