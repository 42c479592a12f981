"""The package as a package: version, docstrings that help() prints
readably, and type stubs that match the compiled module (names, keyword
arguments; mypy's stubtest when python3-mypy is installed)."""

import ast
import importlib.util
import inspect
import os
import pathlib
import pydoc
import re
import subprocess
import sys

import pytest

import sapcontact
from sapcontact import _sapcontact

STUB = pathlib.Path(_sapcontact.__file__).with_name("_sapcontact.pyi")


def test_version_is_the_projects(source_dir):
    text = (source_dir / "CMakeLists.txt").read_text()
    version = re.search(r"project\(sapcontact VERSION ([0-9.]+)", text)[1]
    assert sapcontact.__version__ == version


def test_every_public_name_is_exported_and_documented():
    for name in sapcontact.__all__:
        obj = getattr(sapcontact, name)
        if name == "__version__":
            continue
        doc = inspect.getdoc(obj) or ""
        # Beyond pybind11's signature line: a sentence of documentation.
        text = "\n".join(line for line in doc.splitlines()
                         if not line.startswith(name + "("))
        assert len(text.split()) >= 5, f"{name} has no docstring"
    public = {n for n in dir(_sapcontact) if not n.startswith("_")}
    assert public <= set(sapcontact.__all__)


def test_help_is_readable():
    text = pydoc.render_doc(sapcontact.SapSolver, renderer=pydoc.plaintext)
    assert "class SapSolver" in text and "in module sapcontact" in text
    assert "Keep one solver per simulation" in text
    assert "solve(self: sapcontact.SapSolver, problem: sapcontact.SapProblem" \
        in text
    assert "_sapcontact" not in text
    for obj in (sapcontact.SapSolver, sapcontact.SapProblem,
                sapcontact.SapResults, sapcontact.run_scene,
                sapcontact.Simulation, sapcontact.sweep):
        text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
        for line in text.splitlines():
            # Signature lines stay whole; prose is wrapped.
            if "(" in line and ") ->" in line:
                continue
            assert len(line) <= 90, f"{obj.__name__}: {line!r}"
    # Units and conventions are in the docstrings.
    assert "[N*s]" in sapcontact.SapResults.__doc__
    assert "n, t1, t2" in sapcontact.SapProblem.__doc__
    assert "dt [s]" in sapcontact.SapProblem.__doc__
    assert "[m]" in sapcontact.RunResult.__doc__
    assert "[rad/s]" in sapcontact.Simulation.state.__doc__


def signature_names(obj, name):
    """Parameter names of a pybind11 function from its docstring's
    signature line (pybind11 functions have no __signature__)."""
    doc = obj.__doc__ or ""
    match = re.search(rf"^(?:\d+\. )?{re.escape(name)}\((.*)\) ->", doc,
                      re.MULTILINE)
    assert match, f"{name}: no signature in its docstring"
    names = []
    depth, current = 0, ""
    for ch in match[1] + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            part = current.strip()
            if part:
                names.append(re.match(r"\**(\w+)", part)[1])
            current = ""
        else:
            current += ch
    return [n for n in names if n not in ("self", "kwargs", "args")]


def stub_functions(tree):
    """{name: [parameters]} of the stub's functions and {class: {member:
    [parameters] or None}} of its classes."""
    def params(node):
        a = node.args
        return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs
                if x.arg != "self"]

    functions, classes, assigned = {}, {}, set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = params(node)
        elif isinstance(node, ast.ClassDef):
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members[item.name] = params(item)
                elif isinstance(item, ast.AnnAssign):
                    members[item.target.id] = None
            classes[node.name] = members
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target]
            assigned.update(t.id for t in targets)
    return functions, classes, assigned


def test_the_stub_matches_the_compiled_module():
    functions, classes, assigned = stub_functions(ast.parse(STUB.read_text()))
    runtime = {n for n in dir(_sapcontact) if not n.startswith("__")}
    stubbed = set(functions) | set(classes) | assigned
    stubbed = {n for n in stubbed if not n.startswith("__")}
    stubbed -= {"_ArrayLike", "_FloatArray", "_PathLike", "_Overrides"}
    assert runtime == stubbed
    for name in functions:
        obj = getattr(_sapcontact, name)
        assert functions[name] == signature_names(obj, name), name
    for cls_name, members in classes.items():
        cls = getattr(_sapcontact, cls_name)
        public = {k for k in vars(cls) if not k.startswith("_")}
        if issubclass(cls, Exception):
            continue
        if "__members__" in vars(cls) or hasattr(cls, "__entries"):
            public -= set(cls.__members__)  # enum values: ClassVar below
            assert set(cls.__members__) <= set(members), cls_name
        assert public <= set(members), (cls_name, public - set(members))
        assert set(members) - {"__init__", "__eq__", "__ne__", "__hash__",
                               "__int__", "__index__", "__getitem__",
                               "__members__"} <= public | set(
                                   getattr(cls, "__members__", {})), cls_name
        for member, stub_params in members.items():
            if stub_params is None or member in ("__eq__", "__ne__",
                                                 "__hash__", "__int__",
                                                 "__index__"):
                continue
            obj = getattr(cls, member)
            if isinstance(obj, property):
                continue
            if member == "__init__" and "__init__" not in vars(cls):
                continue
            assert stub_params == signature_names(obj, member), \
                f"{cls_name}.{member}"


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy's stubtest needs python3-mypy")
def test_stubtest_and_mypy_strict_accept_the_package(source_dir):
    package_dir = str(pathlib.Path(sapcontact.__file__).parents[1])
    env = {"PYTHONPATH": package_dir, "MYPYPATH": package_dir,
           "PATH": "/usr/bin:/bin"}
    # A sanitizer build's module needs the runtime preloaded
    # (docs/testing.md): pass its settings on.
    for key in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS",
                "LSAN_OPTIONS", "TSAN_OPTIONS"):
        if key in os.environ:
            env[key] = os.environ[key]
    allowlist = pathlib.Path(__file__).with_name("stubtest_allowlist.txt")
    stubtest = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "sapcontact._sapcontact",
         "--allowlist", str(allowlist)],
        capture_output=True, text=True, env=env, cwd=package_dir)
    assert stubtest.returncode == 0, stubtest.stdout + stubtest.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", "/dev/null", "-p", "sapcontact"],
        capture_output=True, text=True, env=env, cwd=package_dir)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    # The examples type-check against the stubs (matplotlib has none).
    examples = sorted(str(p) for p in
                      (source_dir / "examples" / "python").glob("*.py"))
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", "/dev/null", "--ignore-missing-imports", *examples],
        capture_output=True, text=True, env=env, cwd=package_dir)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
