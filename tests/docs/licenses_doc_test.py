#!/usr/bin/env python3
"""Checks docs/licenses.md against what the build's targets link.

Input: the file tests/docs/CMakeLists.txt has CMake write at configure time
(build/link_libraries_<config>.txt), with lines

    target<TAB>NAME<TAB>TYPE<TAB>ITEM;ITEM;...   one target of ours, its own
                                                 link line as the generator
                                                 evaluates it
    alias<TAB>ALIAS<TAB>NAME                     an alias named on them

Our targets are the executables and the static, shared, module and object
libraries of that file. Interface libraries (the component targets such as
sapcontact::solver) are not targets of their own here: the items they name
count as named by the target that links them. Paths on a link line count by
their file name (/usr/lib/x86_64-linux-gnu/libmujoco.so is libmujoco.so).

docs/licenses.md holds three tables, each after a marker line:

* <!-- licenses: direct -->, columns including "CMake item" and "linked
  directly by". For every row, the targets listed (in backquotes; * and ?
  globs allowed) must be exactly our targets whose own link line names one
  of the row's CMake items. Every item on any target's link line that is not
  one of our targets must be the CMake item of some row.
* <!-- licenses: transitive ITEM -->, columns "directly or through our
  libraries" and "targets", rows "yes" and "no": "yes" lists exactly our
  targets that link ITEM directly or through our targets (any depth), "no"
  every other target.
* <!-- licenses: optional -->, columns "target" and "built when": targets
  (globs allowed) that only some configurations build. A target the other
  tables list must exist in this build unless it is listed here.

Optional checks of the licence metadata (--license, --pkgconfig-dir,
--package-config): the LICENSE file is BSD-3-Clause, every generated .pc
file starts with the SPDX comment line and the package configuration file
holds it.

Exit status 0 when everything agrees, 1 on a disagreement (each printed),
2 on a malformed input.

Usage: licenses_doc_test.py --links LINK_LIBRARIES.txt --doc licenses.md
           [--license LICENSE] [--pkgconfig-dir DIR] [--package-config FILE]
"""

import argparse
import fnmatch
import os
import re
import sys

SPDX = "BSD-3-Clause"
SPDX_LINE = "# SPDX-License-Identifier: " + SPDX
MARKER = re.compile(r"^<!-- licenses: (direct|optional|transitive (\S+)) -->$")
BACKQUOTED = re.compile(r"`([^`]+)`")


class InputError(Exception):
    pass


def read_links(path):
    """Returns ({target: (type, [items])}, {alias: target})."""
    targets, aliases = {}, {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            if fields[0] == "target" and len(fields) == 4:
                items = [i for i in fields[3].split(";") if i]
                targets[fields[1]] = (fields[2], items)
            elif fields[0] == "alias" and len(fields) == 3:
                aliases[fields[1]] = fields[2]
            else:
                raise InputError(f"{path}:{number}: malformed line {line!r}")
    if not targets:
        raise InputError(f"{path}: no targets")
    return targets, aliases


class Graph:
    def __init__(self, targets, aliases):
        self.targets = targets
        self.aliases = aliases
        # Our targets: everything but interface libraries.
        self.ours = {t for t, (kind, _) in targets.items()
                     if kind != "INTERFACE_LIBRARY"}

    def _resolve(self, item):
        if "$<" in item:
            raise InputError(f"unevaluated generator expression {item!r}")
        item = self.aliases.get(item, item)
        if "/" in item:
            item = os.path.basename(item)
        return item

    def direct(self, target):
        """(external items, our targets) named by target's own link line,
        through the interface libraries of ours it names."""
        external, ours = set(), set()
        seen = set()
        stack = list(self.targets[target][1])
        while stack:
            item = self._resolve(stack.pop())
            if item in seen:
                continue
            seen.add(item)
            if item in self.targets:
                if self.targets[item][0] == "INTERFACE_LIBRARY":
                    stack.extend(self.targets[item][1])
                else:
                    ours.add(item)
            else:
                external.add(item)
        return external, ours

    def transitive(self, target):
        """External items target links directly or through our targets."""
        external = set()
        seen = {target}
        stack = [target]
        while stack:
            ext, ours = self.direct(stack.pop())
            external |= ext
            for t in ours - seen:
                seen.add(t)
                stack.append(t)
        return external


def split_row(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def read_tables(path):
    """Returns {marker: (header, [(line number, cells)])}."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    tables = {}
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        i += 1
        if not m:
            continue
        key = m.group(1)
        if key in tables:
            raise InputError(f"{path}:{i}: a second table {key!r}")
        if i + 1 >= len(lines) or not lines[i].startswith("|") or \
                not re.match(r"^\|[\s:|-]+\|$", lines[i + 1].strip()):
            raise InputError(f"{path}:{i + 1}: no table after the marker")
        header = [h.lower() for h in split_row(lines[i])]
        rows = []
        i += 2
        while i < len(lines) and lines[i].startswith("|"):
            cells = split_row(lines[i])
            if len(cells) != len(header):
                raise InputError(f"{path}:{i + 1}: {len(cells)} cells, "
                                 f"the header has {len(header)}")
            rows.append((i + 1, cells))
            i += 1
        tables[key] = (header, rows)
    for key in ("direct", "optional"):
        if key not in tables:
            raise InputError(f"{path}: no table <!-- licenses: {key} -->")
    return tables


def column(header, name, path):
    if name not in header:
        raise InputError(f"{path}: a table has no column {name!r} "
                         f"(columns: {header})")
    return header.index(name)


class Targets:
    """Expands the target names and globs of a table cell."""

    def __init__(self, ours, optional, where):
        self.ours = ours
        self.optional = optional
        self.where = where

    def _is_optional(self, name):
        return any(fnmatch.fnmatchcase(name, o) or name == o
                   for o in self.optional)

    def expand(self, cell, line, errors):
        names = set()
        for entry in BACKQUOTED.findall(cell):
            if any(c in entry for c in "*?["):
                matches = {t for t in self.ours
                           if fnmatch.fnmatchcase(t, entry)}
                if not matches and not self._is_optional(entry):
                    errors.append(f"{self.where}:{line}: `{entry}` matches "
                                  "no target of this build")
                names |= matches
            elif entry in self.ours:
                names.add(entry)
            elif not self._is_optional(entry):
                errors.append(f"{self.where}:{line}: `{entry}` is not a "
                              "target of this build (nor in the optional "
                              "table)")
        return names


def fmt(names):
    return ", ".join(sorted(names)) if names else "(none)"


def check_doc(graph, doc):
    errors = []
    tables = read_tables(doc)
    ours = graph.ours

    header, rows = tables["optional"]
    target_col = column(header, "target", doc)
    optional = set()
    for _, cells in rows:
        optional.update(BACKQUOTED.findall(cells[target_col]))
    expander = Targets(ours, optional, doc)

    # Direct links.
    direct = {t: graph.direct(t)[0] for t in sorted(ours)}
    header, rows = tables["direct"]
    item_col = column(header, "cmake item", doc)
    by_col = column(header, "linked directly by", doc)
    documented_items = set()
    for line, cells in rows:
        items = set(BACKQUOTED.findall(cells[item_col]))
        if not items:
            raise InputError(f"{doc}:{line}: no CMake item in backquotes")
        documented_items |= items
        listed = expander.expand(cells[by_col], line, errors)
        actual = {t for t in ours if direct[t] & items}
        if listed != actual:
            errors.append(
                f"{doc}:{line}: {cells[0]} ({fmt(items)}): the table says "
                f"linked directly by {fmt(listed)}; the build: "
                f"{fmt(actual)} (missing from the table: "
                f"{fmt(actual - listed)}; not linking it: "
                f"{fmt(listed - actual)})")
    for t in sorted(ours):
        for item in sorted(direct[t] - documented_items):
            errors.append(f"{doc}: {t} links {item}, which no row of the "
                          "direct table names as its CMake item")

    # Transitive links.
    for key, (header, rows) in sorted(tables.items()):
        if not key.startswith("transitive "):
            continue
        item = key.split(" ", 1)[1]
        answer_col = column(header, "directly or through our libraries", doc)
        targets_col = column(header, "targets", doc)
        listed = {}
        for line, cells in rows:
            answer = cells[answer_col].lower()
            if answer not in ("yes", "no") or answer in listed:
                raise InputError(f"{doc}:{line}: the transitive table's rows "
                                 "are one 'yes' and one 'no'")
            listed[answer] = (line, expander.expand(cells[targets_col], line,
                                                    errors))
        if set(listed) != {"yes", "no"}:
            raise InputError(f"{doc}: the transitive table of {item} needs "
                             "a 'yes' and a 'no' row")
        yes = {t for t in ours if item in graph.transitive(t)}
        for answer, actual in (("yes", yes), ("no", ours - yes)):
            line, names = listed[answer]
            if names != actual:
                errors.append(
                    f"{doc}:{line}: {item}, directly or through our "
                    f"libraries, '{answer}': missing from the table: "
                    f"{fmt(actual - names)}; wrongly listed: "
                    f"{fmt(names - actual)}")
    return errors


def check_metadata(args):
    errors = []
    if args.license:
        with open(args.license, encoding="utf-8") as f:
            text = f.read()
        if not text.startswith("BSD 3-Clause License") or \
                "Neither the name of the copyright holder" not in text:
            errors.append(f"{args.license}: not the BSD 3-Clause licence")
    if args.pkgconfig_dir:
        files = sorted(f for f in os.listdir(args.pkgconfig_dir)
                       if f.endswith(".pc"))
        if not files:
            errors.append(f"{args.pkgconfig_dir}: no .pc files")
        for name in files:
            with open(os.path.join(args.pkgconfig_dir, name),
                      encoding="utf-8") as f:
                first = f.readline().rstrip("\n")
            if first != SPDX_LINE:
                errors.append(f"{name}: first line {first!r}, not "
                              f"{SPDX_LINE!r}")
    if args.package_config:
        with open(args.package_config, encoding="utf-8") as f:
            if SPDX_LINE not in f.read().split("\n"):
                errors.append(f"{args.package_config}: no line {SPDX_LINE!r}")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--links", required=True)
    parser.add_argument("--doc", required=True)
    parser.add_argument("--license")
    parser.add_argument("--pkgconfig-dir")
    parser.add_argument("--package-config")
    args = parser.parse_args()
    try:
        targets, aliases = read_links(args.links)
        graph = Graph(targets, aliases)
        errors = check_doc(graph, args.doc) + check_metadata(args)
    except (InputError, OSError) as e:
        print(f"licenses_doc_test: {e}", file=sys.stderr)
        return 2
    for e in errors:
        print(e)
    if errors:
        print(f"licenses_doc_test: {len(errors)} disagreement(s) between "
              f"{args.doc} and the build")
        return 1
    print(f"licenses_doc_test: {args.doc} agrees with the link lines of "
          f"{len(graph.ours)} targets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
