#!/usr/bin/python3
"""Reference values for runtime/stats/mcnemar: the exact McNemar test of discordant pairs
(b one way, c the other) is the two-sided binomial test of b successes in b + c trials at
p = 1/2, as scipy.stats.binomtest computes it.

Run from the repository root with Debian's Python (python3-scipy from apt):
    /usr/bin/python3 tests/stats/reference/generate_mcnemar.py
"""
import json
import platform

import scipy
from scipy.stats import binomtest

CASES = [(7, 1), (1, 7), (0, 5), (12, 12), (30, 14), (1, 0), (3, 9), (0, 1), (150, 120), (2, 40)]

out = {
    "generator": "tests/stats/reference/generate_mcnemar.py",
    "command": "/usr/bin/python3 tests/stats/reference/generate_mcnemar.py",
    "versions": {"python": platform.python_version(), "scipy": scipy.__version__},
    "cases": [{"b": b, "c": c, "p": binomtest(b, b + c, 0.5).pvalue} for b, c in CASES],
}
with open("tests/stats/reference/mcnemar.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
