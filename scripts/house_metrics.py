#!/usr/bin/env python3
"""House metrics of ladle's sources (issue 28): what a maintainer pays for each change.

  scripts/house_metrics.py [--root DIR]            print every metric
  scripts/house_metrics.py --check-modules         exit 1 when an include goes against the module graph

Metrics:
  - functions over 100 lines: function bodies in src/ladle/**/*.{cpp,hpp}, found by matching braces
    on the text with comments, strings and character literals blanked (namespace, class, struct and
    extern blocks are looked into; initialisers, enums and lambdas are not counted as functions);
  - signatures with six or more parameters: declarations and definitions whose parameter list has six
    or more top-level entries, counted once per name and parameter count;
  - the module graph: `#include "ladle/<module>/...` lines of src/ladle/<module>/ as edges, against
    the link graph CMakeLists.txt states with `ladle_module(NAME DEPS...)` (transitively; cli links
    every module). An include whose module is not in the includer's link closure, or an include
    cycle between modules, is flagged: that is an include against the module order. ALLOWED lists
    the few header-only data includes the order tolerates, each with its reason;
  - files a new priced knob touches: the newest commit that adds exactly one row to the knob table
    (src/ladle/layout/knobs.hpp) and changes a cost file of src/ladle/plan/, with its files by kind.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

SRC = "src/ladle"


def blank_comments_and_strings(text):
    """The text with comments, string and character literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_files(root):
    for dirpath, _, names in os.walk(os.path.join(root, SRC)):
        for name in sorted(names):
            if name.endswith((".cpp", ".hpp")):
                yield os.path.join(dirpath, name)


def split_params(params):
    """Top-level comma-separated entries of a parameter list."""
    depth, items, cur = 0, [], []
    for ch in params:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last:
        items.append(last)
    return items


SIGNATURE = re.compile(r"([A-Za-z_][\w:~]*|operator\s*\S+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*"
                       r"(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:->\s*[\w:<>,\s&*]+)?\s*$")
CONTROL = {"if", "for", "while", "switch", "return", "catch", "sizeof", "decltype", "static_assert",
           "alignof", "defined", "requires", "co_return"}


def looks_like_parameter(p):
    """A declared parameter (`T name`, `const T&`, `T*`, `...`), not a call's argument expression."""
    p = p.split("=")[0].strip()
    return p == "..." or bool(re.search(r"[\w>&*\]]\s+[&*]*\w+(\[\])?$|[&*]$|^[\w:<>]+$", p)) and \
        not re.match(r"^[\d\"'.-]", p)


def scan(path):
    """(functions: [(name, first line, lines)], signatures: [(name, params)]) of one file."""
    raw = open(path, encoding="utf-8", errors="replace").read()
    text = blank_comments_and_strings(raw)
    # Preprocessor lines (with continuations) are not code for this scan.
    text = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    functions, signatures = [], []
    stack = []  # per open brace: "scope" (looked into) or "body" (skipped)
    stmt_start = 0
    line = 1
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch in ";}" and (not stack or stack[-1] == "scope"):
            if ch == ";":
                head = text[stmt_start:i].strip()
                m = SIGNATURE.search(head) if "(" in head else None
                if m and "=" not in head.split("(")[0] and m.group(1).split("::")[-1] not in CONTROL:
                    params = split_params(m.group(2))
                    if len(params) >= 6 and all(looks_like_parameter(p) for p in params):
                        signatures.append((m.group(1), len(params)))
            if ch == "}":
                stack.pop()
            stmt_start = i + 1
        elif ch == "}" and stack:
            stack.pop()
            if stack and stack[-1] == "scope":
                stmt_start = i + 1
        elif ch == "{":
            if stack and stack[-1] != "scope":
                stack.append("inner")
            else:
                head = text[stmt_start:i]
                flat = " ".join(head.split())
                kind = "inner"
                if re.search(r"\b(namespace|extern)\b[^()]*$", flat) or \
                        re.search(r"\b(class|struct|union)\b[^()=]*$", flat):
                    kind = "scope"
                elif re.search(r"\benum\b", flat) or not flat:
                    kind = "inner"
                else:
                    before_params = flat.split("(")[0]
                    m = SIGNATURE.search(re.sub(r"\s*:\s*[\w:]+\s*[({].*$", "", flat)) if "(" in flat else None
                    if m is None and "(" in flat and ")" in flat:
                        m = SIGNATURE.search(flat[:flat.rfind(")") + 1])
                    if "(" in flat and "=" not in before_params and m is not None and \
                            m.group(1).split("::")[-1] not in CONTROL:
                        kind = "body"
                        params = split_params(m.group(2))
                        if len(params) >= 6 and all(looks_like_parameter(p) for p in params):
                            signatures.append((m.group(1), len(params)))
                        first = line - text[stmt_start:i].count("\n")
                        # find the matching brace
                        depth, j, end_line = 1, i + 1, line
                        while j < n and depth:
                            if text[j] == "{":
                                depth += 1
                            elif text[j] == "}":
                                depth -= 1
                            elif text[j] == "\n":
                                end_line += 1
                            j += 1
                        first = max(first, 1)
                        while first < line and not raw.splitlines()[first - 1].strip():
                            first += 1
                        functions.append((m.group(1), first, end_line - first + 1))
                stack.append(kind)
                if kind == "scope":
                    stmt_start = i + 1
                i += 1
                continue
        i += 1
    return functions, signatures


# --- module graph -------------------------------------------------------------------------------

def cmake_modules(root):
    """{module: [direct ladle_ deps]} from ladle_module(...) lines, in file order."""
    text = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
    mods = collections.OrderedDict()
    for m in re.finditer(r"(?m)^\s*ladle_module\((\w+)([^)]*)\)", text):
        mods[m.group(1)] = [d[len("ladle_"):] for d in m.group(2).split() if d.startswith("ladle_")]
    return mods


def closure(mods, name):
    seen, todo = set(), list(mods.get(name, []))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(mods.get(d, []))
    return seen


# Includes below the includer's module that the graph allows, each with why: constexpr data read
# from a header, which needs no link and holds no code of the module above.
ALLOWED = {
    ("src/ladle/recipe/recipe_fields.hpp", "ladle/layout/knobs.hpp"):
        "the knob table's recipe column (constexpr rows) the recipe's layout block is read and written through",
    ("src/ladle/args/bridge_args.cpp", "ladle/layout/knobs.hpp"):
        "the knob table's bridge column (constexpr rows) the Hydra reader maps overrides with",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"ladle/(\w+)/([^"]+)"', re.M)


def include_edges(root):
    """{(from, to): [(file, line, header)]} for includes across module folders (ALLOWED apart)."""
    edges = collections.defaultdict(list)
    for path in source_files(root):
        rel = os.path.relpath(path, root)
        module = rel.split("/")[2]
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            if m.group(1) != module and (rel, f"ladle/{m.group(1)}/{m.group(2)}") not in ALLOWED:
                lineno = text.count("\n", 0, m.start()) + 1
                edges[(module, m.group(1))].append((rel, lineno, f"ladle/{m.group(1)}/{m.group(2)}"))
    return edges


def module_graph_problems(root):
    mods = cmake_modules(root)
    edges = include_edges(root)
    problems = []
    for (a, b), sites in sorted(edges.items()):
        if a == "cli":
            continue  # ladle_cli links every module
        if a not in mods:
            problems.append((sites[0], f"module {a} has no ladle_module() line in CMakeLists.txt"))
            continue
        if b not in closure(mods, a):
            for s in sites:
                problems.append((s, f"{a} includes {b}, which ladle_{a} does not link"))
    # cycles among the include edges (cli excluded)
    graph = collections.defaultdict(set)
    for (a, b) in edges:
        if a != "cli":
            graph[a].add(b)
    for (a, b), sites in sorted(edges.items()):
        if a != "cli" and reaches(graph, b, a):
            problems.append((sites[0], f"include cycle: {a} -> {b} -> ... -> {a}"))
    return mods, edges, problems


def reaches(graph, start, goal):
    seen, todo = set(), [start]
    while todo:
        x = todo.pop()
        if x == goal:
            return True
        if x not in seen:
            seen.add(x)
            todo.extend(graph.get(x, ()))
    return False


# --- priced knob --------------------------------------------------------------------------------

def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True, text=True).stdout


PRICING = re.compile(r"^src/ladle/plan/(memory_\w+|time_\w+|cost_\w+|model_costs)\.(cpp|hpp)$")


def last_priced_knob(root):
    log = git(root, "log", "--format=%H", "--", f"{SRC}/layout/knobs.hpp")
    for commit in log.split():
        diff = git(root, "show", "--format=", "-U0", commit, "--", f"{SRC}/layout/knobs.hpp")
        added = [l for l in diff.splitlines() if l.startswith("+") and re.search(r'\{\s*\.key\s*=\s*"', l)]
        removed = [l for l in diff.splitlines() if l.startswith("-") and re.search(r'\{\s*\.key\s*=\s*"', l)]
        if len(added) - len(removed) != 1:
            continue
        files = git(root, "show", "--format=", "--name-only", commit).split()
        if not any(PRICING.match(f) for f in files):
            continue
        key = re.search(r'\.key\s*=\s*"([^"]+)"', added[0]).group(1)
        subject = git(root, "show", "-s", "--format=%h %s", commit).strip()
        return key, subject, files
    return None


def file_kind(path):
    if path.startswith("src/"):
        return "source"
    if path.startswith("tests/"):
        return "test"
    return "data/docs"


# --- main ---------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--check-modules", action="store_true",
                    help="only check the module graph; exit 1 with one line per include against it")
    ap.add_argument("--git", default=None, help="the repository whose history gives the priced knob "
                    "(default: --root)")
    ap.add_argument("--long", type=int, default=100, help="a function is long above this many lines")
    args = ap.parse_args()
    root = os.path.normpath(args.root)
    args.git = args.git or root

    mods, edges, problems = module_graph_problems(root)
    if args.check_modules:
        for (file, line, header), what in problems:
            print(f"{file}:{line}:1: error: include \"{header}\": {what}")
        return 1 if problems else 0

    long_functions, wide = [], {}
    for path in source_files(root):
        functions, signatures = scan(path)
        rel = os.path.relpath(path, root)
        for name, first, lines in functions:
            if lines > args.long:
                long_functions.append((lines, rel, first, name))
        for name, count in signatures:
            wide.setdefault((name.split("::")[-1], count), rel.rsplit(".", 1)[0])  # declared and defined: once

    print(f"functions over {args.long} lines: {len(long_functions)}")
    for lines, rel, first, name in sorted(long_functions, reverse=True):
        print(f"  {lines:5d}  {rel}:{first}  {name}")
    print(f"signatures with six or more parameters: {len(wide)}")
    for (name, count), stem in sorted(wide.items(), key=lambda kv: (kv[1], kv[0])):
        print(f"  {count:3d}  {stem}.*  {name}")

    print("module graph (includes across modules; * = not in CMake's link closure):")
    by_module = collections.defaultdict(list)
    for (a, b) in edges:
        by_module[a].append(b)
    for a in sorted(by_module):
        closed = closure(mods, a)
        targets = [b + ("" if a == "cli" or b in closed else "*") for b in sorted(by_module[a])]
        print(f"  {a} -> {' '.join(targets)}")
    print(f"includes allowed below their module: {len(ALLOWED)}")
    for (file, header), why in sorted(ALLOWED.items()):
        print(f"  {file}: {header}: {why}")
    print(f"includes against the module graph: {len(problems)}")
    for (file, line, header), what in problems:
        print(f"  {file}:{line}: {header}: {what}")

    knob = last_priced_knob(args.git)
    if knob:
        key, subject, files = knob
        kinds = collections.Counter(file_kind(f) for f in files)
        print(f"files the last priced knob touched: {len(files)} ({key}: {subject[:80]})")
        print("  " + ", ".join(f"{kinds[k]} {k}" for k in ("source", "test", "data/docs")))
        for f in files:
            print(f"    {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
