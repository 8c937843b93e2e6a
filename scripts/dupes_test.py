#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Tests of dupes.py (the repeated-code check), on small made-up trees:
a shared run of the minimum length is a pair, a shorter one is not,
comments and trivia do not count, --shape sees renamed code, --max-pairs
fails above its limit. No VM needed.

Usage: python3 scripts/dupes_test.py [-v]
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dupes  # noqa: E402

# Seven distinct statements, as a function body.
BODY = ["\tint a = f(1);", "\tint b = g(a, 2);", "\tif (a > b)",
        "\t\ta = h(b);", "\tb += a * 3;", "\tk(a, b);", "\tm(\"%d\", b);"]


def renamed(lines):
    return [x.replace("a", "x").replace("b", "y").replace("3", "7")
            for x in lines]


class Tree(unittest.TestCase):
    """A temporary top directory with a driver directory."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        os.makedirs(os.path.join(self.top, dupes.DRV))

    def tearDown(self):
        self.tmp.cleanup()

    def c(self, name, body):
        """A .c file of one function: its head differs per file (line 4),
        its body begins on line 6."""
        head = "int fn(void)" if "a" in name else "static int other(int z)"
        path = os.path.join(self.top, dupes.DRV, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("// SPDX\n#include \"kiw.h\"\n\n%s\n{\n%s\n\treturn 0;"
                    "\n}\n" % (head, "\n".join(body)))

    def run_main(self, *args):
        out = io.StringIO()
        argv = ["dupes.py", "--top", self.top] + list(args)
        with contextlib.redirect_stdout(out), \
                unittest.mock.patch.object(sys, "argv", argv):
            rc = dupes.main()
        return rc, out.getvalue().splitlines()

    def test_seven_shared_lines_are_one_pair(self):
        self.c("kiw_a.c", BODY)
        self.c("kiw_b.c", BODY)
        rc, out = self.run_main()
        self.assertEqual(rc, 0)
        self.assertEqual(out, [
            "%s/kiw_a.c:6-12 ~ %s/kiw_b.c:6-12 (7 lines)" % (
                dupes.DRV, dupes.DRV), "1 pairs"])

    def test_five_shared_lines_are_none(self):
        self.c("kiw_a.c", BODY[:5])
        self.c("kiw_b.c", BODY[:5])
        self.assertEqual(self.run_main(), (0, ["0 pairs"]))

    def test_comments_and_trivia_do_not_count(self):
        self.c("kiw_a.c", BODY)
        noisy = []
        for x in BODY:
            noisy += [x + "  /* why */", "\t// more", "", "\t{", "\t}",
                      "\tbreak;", "/* a\n * block\n */"]
        self.c("kiw_b.c", noisy)
        rc, out = self.run_main()
        self.assertEqual(len(out), 2, out)
        self.assertRegex(out[0], r"kiw_a\.c:6-12 ~ .*kiw_b\.c:6-.*"
                         r"\(7 lines\)$")

    def test_shape_sees_renamed_code(self):
        self.c("kiw_a.c", BODY)
        self.c("kiw_b.c", renamed(BODY))
        self.assertEqual(self.run_main(), (0, ["0 pairs"]))
        rc, out = self.run_main("--shape")
        self.assertEqual(out[-1], "1 pairs")
        self.assertTrue(out[0].endswith("(7 lines, shape)"), out)

    def test_shape_does_not_repeat_exact_pairs(self):
        self.c("kiw_a.c", BODY)
        self.c("kiw_b.c", BODY)
        rc, out = self.run_main("--shape")
        self.assertEqual(out[-1], "1 pairs")
        self.assertTrue(out[0].endswith("(7 lines)"), out)

    def test_a_list_is_no_pair(self):
        self.c("kiw_a.c", ["\tx%d," % i for i in range(12)])
        self.c("kiw_b.c", ["\ty%d," % i for i in range(12)])
        self.assertEqual(self.run_main("--shape"), (0, ["0 pairs"]))

    def test_max_pairs(self):
        self.c("kiw_a.c", BODY)
        self.c("kiw_b.c", BODY)
        self.assertEqual(self.run_main("--max-pairs", "1")[0], 0)
        self.assertEqual(self.run_main("--max-pairs", "0")[0], 1)

    def test_harness_shell_comments(self):
        self.c("kiw_a.c", [])
        d = os.path.join(self.top, "scripts", "tests")
        os.makedirs(d)
        sh = ["x=$(f 1)", "y=\"$x # not a comment\"", "g \"$x\" \"$y\"",
              "h $# ${#x}", "k 3", "m 4", "n 5"]
        for name, lines in (("a.sh", sh),
                            ("b.sh", [x + "  # why" for x in sh])):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write("#!/bin/bash\n# head\n%s\n" % "\n".join(lines))
        self.assertEqual(self.run_main(), (0, ["0 pairs"]))
        rc, out = self.run_main("--harness")
        self.assertEqual(out, ["scripts/tests/a.sh:3-9 ~ "
                               "scripts/tests/b.sh:3-9 (7 lines)",
                               "1 pairs"])


if __name__ == "__main__":
    unittest.main()
