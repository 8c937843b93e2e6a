#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Who depends on whom in kiw, and the circles among them (issue 18).

Usage: scripts/graph.py [--harness] [--edges] [--regex] [--build DIR]
                        [--top DIR] [--fail-on-cycle]

For the driver (drivers/infiniband/sw/kiw/*.c and *.h, compat/ left out)
it prints two graphs and their strongly connected components of more than
one file (the circles):

  includes  the headers' includes among themselves; and a .c (or .h)
            -> the kiw headers it includes, each header
            replaced by the one .c that defines the functions (and data)
            it declares, where exactly one does; a header of types and
            inlines only, or one whose declarations several .c files
            define, stays a node of its own (listed as such). Then the
            same with an edge from such a header to each .c that defines
            part of it: an upper bound (not counted as a circle), as a
            .c including kiw_qp.h may need only kiw_post.c's half of it.
  calls     a .c -> the .c files that define what it references. From
            the built objects when a fresh build exists
            (build/<release>/drivers/infiniband/sw/kiw/*.o, "nm": every
            undefined symbol of one object that another defines, calls
            through header inlines and macros included); otherwise, or
            with --regex, from the source: the non-static functions and
            variables each .c defines, and every other .c that names one.

--harness adds the harness (scripts/): Python imports (import statements
anywhere in a module, lazy ones included) and shell sourcing (". FILE").
--edges prints every edge, not only those inside a circle. The exit status
is 0, or with --fail-on-cycle 1 when any graph has a circle.
"""

import argparse
import ast
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRV = "drivers/infiniband/sw/kiw"

# ---------------------------------------------------------------------------
# C source, read cheaply: comments and literals out, top level split.

_C_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'
                      r"'(?:\\.|[^'\\\n])*'", re.S)
_PP_LINE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_FUNC_HEAD = re.compile(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)"
                        r"(?:\s*\w+(?:\s*\([^()]*\))?)*\s*$")
_AGGREGATE = re.compile(r"\b(?:struct|union|enum)(?:\s+\w+)?\s*$")
_DEFINE_VAR = re.compile(r"\s*(static\s+)?(?:LIST_HEAD|DEFINE_[A-Z_]+)\s*"
                         r"\(\s*(\w+)")
_TAG = re.compile(r"\b(?:struct|union|enum)\s+\w+")
_SKIP_NAMES = {"if", "for", "while", "switch", "return", "sizeof",
               "typeof", "__typeof__", "defined"}


def strip_c(text):
    """Comments and string/char literals blanked (newlines kept)."""
    def blank(m):
        s = m.group(0)
        if s[0] in "\"'":
            return s[0] * 2
        return " " + "\n" * s.count("\n")
    return _C_NOISE.sub(blank, text)


def top_level(code):
    """The text at brace depth 0, as (chunk, kind): kind "body" for what
    precedes a block (a function's head), "init" for an aggregate or an
    initializer ("struct x {...} y;", "y = {...};", the block as "{}"),
    ";" for a chunk a semicolon ends."""
    out, start, i, n = [], 0, 0, len(code)
    while i < n:
        ch = code[i]
        if ch == ";":
            out.append((code[start:i], ";"))
            start = i + 1
        elif ch == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if code[j] == "{":
                    depth += 1
                elif code[j] == "}":
                    depth -= 1
                j += 1
            head = code[start:i]
            if _AGGREGATE.search(head) or head.rstrip().endswith("="):
                # "struct x {...} name;" or "... = {...};": up to the ";"
                k = code.find(";", j)
                k = n if k < 0 else k
                out.append((head + " {} " + code[j:k], "init"))
                j = k + 1
            else:
                out.append((head, "body"))
            start = i = j
            continue
        i += 1
    return out


def _words(chunk):
    return _IDENT.findall(chunk)


def _var_name(chunk):
    """The variable a top-level definition or declaration names."""
    head = chunk.split("=", 1)[0]
    head = re.sub(r"\[[^\]]*\]", "", head)
    w = [x for x in _words(head) if not x.startswith("__")]
    return w[-1] if w else None


def c_definitions(code):
    """{name: is_static} for the functions and variables a .c defines."""
    defs = {}
    for chunk, kind in top_level(_PP_LINE.sub("", code)):
        words = _words(chunk)
        if not words or words[0] in ("typedef", "extern"):
            continue
        static = "static" in words
        if kind == "body":
            m = _FUNC_HEAD.search(chunk)
            if m and m.group(1) not in _SKIP_NAMES and "=" not in chunk:
                defs[m.group(1)] = static
            continue
        if kind == "init" and re.match(r"\s*(struct|union|enum)\s+\w*\s*\{",
                                     chunk) and "=" not in chunk:
            continue        # a type definition
        m = _DEFINE_VAR.match(chunk)
        if m:
            defs[m.group(2)] = bool(m.group(1))
            continue
        if "(" in chunk.split("=", 1)[0]:
            continue        # a prototype or a macro call
        name = _var_name(chunk)
        if name and name not in ("struct", "union", "enum"):
            defs[name] = static
    return defs


def h_declarations(code):
    """The functions and variables a header declares for some .c to
    define (prototypes, extern variables; static inlines left out)."""
    decls = set()
    for chunk, kind in top_level(_PP_LINE.sub("", code)):
        words = _words(chunk)
        if kind != ";" or not words or words[0] == "typedef":
            continue
        if "(" in chunk:
            for m in re.finditer(r"(\w+)\s*\(", chunk):
                name = m.group(1)
                if not name.startswith("__") and name not in _SKIP_NAMES:
                    decls.add(name)
                    break
        elif words[0] == "extern":
            name = _var_name(chunk)
            if name:
                decls.add(name)
    return decls


class Driver:
    def __init__(self, top):
        self.top = top
        self.dir = os.path.join(top, DRV)
        names = sorted(os.listdir(self.dir))
        self.c = [n for n in names if n.endswith(".c")]
        self.h = [n for n in names if n.endswith(".h")]
        self.raw, self.code = {}, {}
        for n in self.c + self.h:
            with open(os.path.join(self.dir, n), errors="replace") as f:
                self.raw[n] = f.read()
            self.code[n] = strip_c(self.raw[n])
        self.defs = {n: c_definitions(self.code[n]) for n in self.c}
        self.definer = {}
        for n in self.c:
            for name, static in self.defs[n].items():
                if not static:
                    self.definer.setdefault(name, set()).add(n)

    def includes(self, n):
        return [h for h in _INCLUDE.findall(self.raw[n]) if h in self.h]

    def owners(self):
        """{header: (owner .c or None, the .c files defining its
        declarations)}."""
        out = {}
        for h in self.h:
            by = set()
            for name in h_declarations(self.code[h]):
                by |= self.definer.get(name, set())
            out[h] = (next(iter(by)) if len(by) == 1 else None, by)
        return out

    def include_graph(self, wide=False):
        """With wide, a header several .c files define stays a node with
        an edge to each of them (an upper bound); otherwise it stays a
        node of its own only."""
        own = self.owners()
        node = {h: own[h][0] or h for h in self.h}
        g = {}
        if wide:
            for h in self.h:
                if not own[h][0]:
                    for d in own[h][1]:
                        g.setdefault(h, {})[d] = {"(declares)"}
        for n in self.c + self.h:
            src = node.get(n, n)
            for h in self.includes(n):
                dst = node[h]
                if dst != src:
                    g.setdefault(src, {}).setdefault(dst, set()).add(h)
                else:
                    g.setdefault(src, {})
        return g, own

    def header_graph(self):
        """The headers' own includes, unresolved."""
        return {h: {i: {"#include"} for i in self.includes(h) if i != h}
                for h in self.h}

    def regex_calls(self):
        g = {}
        for n in self.c:
            g.setdefault(n, {})
            for ident in set(_IDENT.findall(_TAG.sub(" ", self.code[n]))):
                for d in self.definer.get(ident, ()):
                    if d != n and not (ident in self.defs[n] and
                                       self.defs[n][ident]):
                        g[n].setdefault(d, set()).add(ident)
        return g

    def fresh_build(self, build):
        """The object directory of a build of this very source, or None
        and why not."""
        bdir = os.path.join(self.top, "build")
        cands = [build] if build else sorted(
            os.path.join(bdir, r, DRV)
            for r in (os.listdir(bdir) if os.path.isdir(bdir) else ())
            if os.path.isdir(os.path.join(bdir, r, DRV)))
        why = "no build/<release>/%s" % DRV
        for d in cands:
            bad = self._stale(d)
            if not bad:
                return d, None
            why = "%s: %s" % (os.path.relpath(d, self.top), bad)
        return None, why

    def _stale(self, d):
        for n in self.c + self.h:
            copy = os.path.join(d, n)
            if not os.path.exists(copy):
                return "no %s" % n
            with open(copy, errors="replace") as f:
                if f.read() != self.raw[n]:
                    return "%s differs from the source" % n
        for n in self.c:
            o = os.path.join(d, n[:-2] + ".o")
            if not os.path.exists(o):
                return "no %s" % os.path.basename(o)
            if os.path.getmtime(o) < os.path.getmtime(os.path.join(d, n)):
                return "%s older than its .c" % os.path.basename(o)
        return None

    def nm_calls(self, d):
        defined, undef = {}, {}
        for n in self.c:
            out = subprocess.run(["nm", "-P", os.path.join(d, n[:-2] + ".o")],
                                 capture_output=True, text=True,
                                 check=True).stdout
            undef[n] = set()
            for line in out.splitlines():
                w = line.split()
                if len(w) < 2:
                    continue
                if w[1] == "U":
                    undef[n].add(w[0])
                elif w[1] in "TDBRWVG":
                    defined.setdefault(w[0], set()).add(n)
        g = {}
        for n in self.c:
            g.setdefault(n, {})
            for sym in undef[n]:
                for d2 in defined.get(sym, ()):
                    if d2 != n:
                        g[n].setdefault(d2, set()).add(sym)
        return g


# ---------------------------------------------------------------------------
# The harness: Python imports and shell sourcing under scripts/.

_SOURCE = re.compile(r"^[ \t]*(?:\.|source)[ \t]+(.+?)[ \t]*$", re.M)
_DIRNAME = re.compile(r'^\$\(dirname "?\$0"?\)/')
_KIW_TOP = re.compile(r"^\\?\$(?:\{KIW_TOP\}|KIW_TOP)/scripts/")


def _sourced(p, arg):
    """The scripts/-relative file a ". ARG" in p names, or None when a
    variable chooses it."""
    if arg[:1] == '"' and arg[-1:] == '"':
        arg = arg[1:-1]
    if _DIRNAME.match(arg):
        return os.path.normpath(os.path.join(os.path.dirname(p),
                                             _DIRNAME.sub("", arg)))
    if _KIW_TOP.match(arg):
        return _KIW_TOP.sub("", arg)
    if "$" in arg:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(p), arg))


def harness_graphs(top):
    sdir = os.path.join(top, "scripts")
    py, sh = [], []
    for root, dirs, files in os.walk(sdir):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            p = os.path.relpath(os.path.join(root, f), sdir)
            if f.endswith(".py"):
                py.append(p)
            elif f.endswith(".sh"):
                sh.append(p)
    by_stem = {}
    for p in py:
        by_stem.setdefault(os.path.basename(p)[:-3], []).append(p)
    pg = {}
    for p in py:
        pg.setdefault(p, {})
        with open(os.path.join(sdir, p)) as f:
            tree = ast.parse(f.read(), p)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module]
            else:
                continue
            for m in mods:
                cands = by_stem.get(m.split(".")[-1], [])
                same = [c for c in cands
                        if os.path.dirname(c) == os.path.dirname(p)]
                dst = same or (cands if len(cands) == 1 else [])
                for d in dst:
                    if d != p:
                        pg[p].setdefault(d, set()).add("import " + m)
    shg, dynamic = {}, []
    for p in sh:
        shg.setdefault(p, {})
        with open(os.path.join(sdir, p), errors="replace") as f:
            text = f.read()
        for m in _SOURCE.finditer(text):
            t = _sourced(p, m.group(1))
            if t is None:
                dynamic.append("%s: . %s" % (p, m.group(1)))
            elif t in sh and t != p:
                shg[p].setdefault(t, set()).add(". " + t)
    return pg, shg, dynamic


# ---------------------------------------------------------------------------
# Strongly connected components (Tarjan, iterative).

def sccs(g):
    nodes = sorted(set(g) | {d for e in g.values() for d in e})
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(g.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return sorted(out, key=lambda c: (-len(c), c))


def _why(labels, n=6):
    s = sorted(labels)
    return " ".join(s[:n]) + (" +%d" % (len(s) - n) if len(s) > n else "")


def report(title, g, edges, detail=True):
    """Print a graph's circles, the edges inside them unless not detail
    (and with edges, all of it); return the number of circles."""
    n_edges = sum(len(e) for e in g.values())
    comps = sccs(g)
    print("== %s: %d nodes, %d edges, %d circle%s" % (
        title, len(set(g) | {d for e in g.values() for d in e}), n_edges,
        len(comps), "" if len(comps) == 1 else "s"))
    for i, comp in enumerate(comps, 1):
        inside = set(comp)
        print("circle %d (%d): %s" % (i, len(comp), " ".join(comp)))
        if not detail:
            continue
        for a in comp:
            for b in sorted(g.get(a, ())):
                if b in inside:
                    print("  %s -> %s: %s" % (a, b, _why(g[a][b])))
    if edges:
        print("all edges:")
        for a in sorted(g):
            for b in sorted(g[a]):
                print("  %s -> %s: %s" % (a, b, _why(g[a][b])))
    print()
    return len(comps)


def main():
    ap = argparse.ArgumentParser(
        description="kiw's include and call graphs and their circles")
    ap.add_argument("--harness", action="store_true",
                    help="also the harness's Python imports and shell "
                    "sourcing (scripts/)")
    ap.add_argument("--edges", action="store_true",
                    help="print every edge, not only those in a circle")
    ap.add_argument("--regex", action="store_true",
                    help="the call graph from the source even if a build "
                    "exists")
    ap.add_argument("--build", metavar="DIR",
                    help="the object directory to read with nm")
    ap.add_argument("--top", metavar="DIR", default=TOP,
                    help="the kiw tree to read (default: this script's)")
    ap.add_argument("--fail-on-cycle", action="store_true",
                    help="exit 1 when a graph has a circle")
    a = ap.parse_args()

    top = os.path.abspath(a.top)
    drv = Driver(top)
    print("kiw: %s: %d .c, %d .h (compat/ left out)\n" % (
        DRV, len(drv.c), len(drv.h)))
    circles = 0
    g, own = drv.include_graph()
    print("header owners (the .c defining what the header declares):")
    for h in sorted(own):
        o, by = own[h]
        print("  %-18s %s" % (h, o if o else "(several: %s)" % " ".join(
            sorted(by)) if by else "(none: types, inlines, macros)"))
    print()
    circles += report("includes among the headers", drv.header_graph(),
                      a.edges)
    circles += report("includes, a header resolved to its .c where one "
                      "defines what it declares", g, a.edges)
    # an upper bound: shown, not counted
    report("includes, a header several .c define -> each of them (an "
           "upper bound, not counted; --edges for its edges)",
           drv.include_graph(wide=True)[0], a.edges, a.edges)

    d, why = (None, "--regex") if a.regex else drv.fresh_build(a.build)
    calls = None
    if d:
        title = "calls and data references (nm on %s)" % os.path.relpath(
            d, top)
        try:
            calls = drv.nm_calls(d)
        except (OSError, subprocess.CalledProcessError) as e:
            why = "nm: %s" % e
    if calls is None:
        title = ("calls and references (source regex: %s; calls through "
                 "header inlines and macros not seen)" % why)
        calls = drv.regex_calls()
    circles += report(title, calls, a.edges)

    if a.harness:
        pg, shg, dynamic = harness_graphs(top)
        circles += report("harness: Python imports (scripts/)", pg, a.edges)
        circles += report("harness: shell sourcing (scripts/)", shg, a.edges)
        if dynamic:
            print("shell sourcing not followed (a variable names the file):")
            for x in dynamic:
                print("  " + x)
            print()
    print("circles: %d" % circles)
    return 1 if a.fail_on_cycle and circles else 0


if __name__ == "__main__":
    sys.exit(main())
