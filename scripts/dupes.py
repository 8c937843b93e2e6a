#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Repeated code in kiw: pairs of places sharing a run of lines (issue 18).

Usage: scripts/dupes.py [--harness] [--shape] [--min N] [--top DIR]
                        [--max-pairs K]

Reads the driver (drivers/infiniband/sw/kiw/*.c and *.h, compat/ left
out), and with --harness also scripts/ (*.sh, *.py, *.c, recursively).
Each line is normalised: comments out, whitespace collapsed; blank lines,
#include and import lines, and trivia (lines of braces and brackets only,
"break;", "continue;", "return;", "return 0;"-like returns of one word,
"else", and the shell's "fi", "done", "esac", ";;", "then", "do") are
skipped. Two places sharing a run of --min (default 6) or more such lines,
as long as it goes, are one pair; runs within one file must not overlap.

With --shape, after the exact pairs come the runs that are equal once every
identifier, number and string is replaced by a placeholder (keywords
kept): the same code with other names (not those an exact pair already
shows).

Output: one line per pair, "fileA:l1-l2 ~ fileB:l1-l2 (N lines)" (N: the
normalised lines; "(N lines, shape)" for shape pairs), most lines first,
then "N pairs". The exit status is 0, or with --max-pairs K 1 when there
are more than K pairs.
"""

import argparse
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRV = "drivers/infiniband/sw/kiw"

# A string, or a comment: the comment is dropped, the string kept.
_C_NOISE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                      r'(//[^\n]*|/\*.*?\*/)', re.S)
_HASH_NOISE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|'
                         r'((?:^|(?<=\s))#[^\n]*)')
_TRIVIA = re.compile(r"[{}()\[\];,:\s]*|break;|continue;|return;|"
                     r"return -?\w+;|\}? ?else ?\{?|else:|pass|"
                     r"fi|done|esac|;;|then|do|"
                     r"#\s*include\b.*|(?:from \S+ )?import .*")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
_NUMBER = re.compile(r"\b\d[\w.]*")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
KEYWORDS = set("""
    if else for while do switch case default return break continue goto
    sizeof struct union enum static const volatile inline extern typedef
    void unsigned signed def class try except finally with as in not and
    or is lambda yield raise pass None True False elif then fi done esac
    local function""".split())


def strip_comments(text, c):
    """The text without comments, newlines kept."""
    def drop(m):
        s = m.group(1)
        if s is None:
            return m.group(0)
        return " " + "\n" * s.count("\n")
    return (_C_NOISE if c else _HASH_NOISE).sub(drop, text)


def shape(line):
    """The line with strings, numbers and identifiers as placeholders."""
    line = _NUMBER.sub("0", _STRING.sub("S", line))
    return _IDENT.sub(lambda m: m.group(0) if m.group(0) in KEYWORDS
                      else "I", line)


def normalise(text, c, by_shape=False):
    """[(line number, normalised line)] of the lines that count."""
    out = []
    for n, line in enumerate(strip_comments(text, c).split("\n"), 1):
        line = " ".join(line.split())
        if _TRIVIA.fullmatch(line):
            continue
        out.append((n, shape(line) if by_shape else line))
    return out


def files(top, harness):
    """The files to compare, relative to top."""
    out = sorted(glob.glob(os.path.join(top, DRV, "*.[ch]")))
    if harness:
        for ext in ("sh", "py", "c"):
            out += sorted(glob.glob(os.path.join(top, "scripts", "**",
                                                 "*." + ext),
                                    recursive=True))
    return [os.path.relpath(f, top) for f in out]


def runs(texts, minimum):
    """Maximal runs of at least minimum equal lines: [(length, (file, i),
    (file, j))], i and j indices into texts[file]."""
    seen = {}
    for f, lines in texts.items():
        for i in range(len(lines) - minimum + 1):
            key = tuple(x for _, x in lines[i:i + minimum])
            seen.setdefault(key, []).append((f, i))
    out = []
    for places in seen.values():
        for p, (fa, i) in enumerate(places):
            a = texts[fa]
            for fb, j in places[p + 1:]:
                b = texts[fb]
                if i and j and a[i - 1][1] == b[j - 1][1]:
                    continue        # inside a longer run, found at its start
                n = minimum
                while (i + n < len(a) and j + n < len(b)
                       and a[i + n][1] == b[j + n][1]):
                    n += 1
                if fa == fb and j < i + n:
                    continue        # one run overlapping itself
                if len({x for _, x in a[i:i + n]}) < (minimum + 1) // 2:
                    continue        # a list or table: a line or two again
                out.append((n, (fa, i), (fb, j)))
    return out


def where(texts, f, i, n):
    lines = texts[f]
    return "%s:%d-%d" % (f, lines[i][0], lines[i + n - 1][0])


def pairs(top, names, minimum, by_shape):
    """[(n, "fileA:l1-l2", "fileB:l1-l2")], most lines first."""
    texts = {}
    for f in names:
        with open(os.path.join(top, f), encoding="utf-8",
                  errors="replace") as fh:
            texts[f] = normalise(fh.read(), f.endswith((".c", ".h")),
                                 by_shape)
    out = [(n, where(texts, fa, i, n), where(texts, fb, j, n))
           for n, (fa, i), (fb, j) in runs(texts, minimum)]
    return sorted(out, key=lambda x: (-x[0], x[1], x[2]))


def main():
    ap = argparse.ArgumentParser(
        description="pairs of places in kiw sharing a run of lines")
    ap.add_argument("--harness", action="store_true",
                    help="also scripts/ (*.sh, *.py, *.c)")
    ap.add_argument("--shape", action="store_true",
                    help="also runs equal up to names, numbers, strings")
    ap.add_argument("--min", type=int, default=6, metavar="N",
                    help="the shortest run reported (default 6)")
    ap.add_argument("--top", metavar="DIR", default=TOP,
                    help="the kiw tree to read (default: this script's)")
    ap.add_argument("--max-pairs", type=int, metavar="K",
                    help="exit 1 when there are more than K pairs")
    a = ap.parse_args()

    top = os.path.abspath(a.top)
    names = files(top, a.harness)
    exact = pairs(top, names, a.min, False)
    for n, x, y in exact:
        print("%s ~ %s (%d lines)" % (x, y, n))
    total = len(exact)
    if a.shape:
        known = {(x, y) for _, x, y in exact}
        for n, x, y in pairs(top, names, a.min, True):
            if (x, y) not in known:
                print("%s ~ %s (%d lines, shape)" % (x, y, n))
                total += 1
    print("%d pairs" % total)
    return 1 if a.max_pairs is not None and total > a.max_pairs else 0


if __name__ == "__main__":
    sys.exit(main())
