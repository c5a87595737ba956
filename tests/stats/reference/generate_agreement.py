#!/usr/bin/python3
"""Reference values for runtime/stats/agreement: quadratic weighted kappa from sklearn, exact
and adjacent agreement and mean signed error from numpy, Krippendorff's alpha from the
definition (coincidence matrix, Krippendorff 2011), written out directly below.

Run from the repository root with Debian's Python (python3-sklearn from apt):

    /usr/bin/python3 tests/stats/reference/generate_agreement.py

Writes tests/stats/reference/agreement.json; every input is generated here from fixed seeds
and stored in the JSON, so the C++ tests need neither Python nor these packages.
"""
import json
import platform
import warnings

import numpy as np
import sklearn
from sklearn.metrics import cohen_kappa_score

OUT = "tests/stats/reference/agreement.json"
LABELS = [1, 2, 3, 4, 5]


def pair_case(name, a, b, labels=LABELS):
    a = [int(v) for v in a]
    b = [int(v) for v in b]
    d = np.array(a, dtype=float) - np.array(b, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant pair makes sklearn warn and return nan
        qwk = float(cohen_kappa_score(a, b, labels=labels, weights="quadratic"))
    return {"name": name, "a": a, "b": b, "labels": labels,
            "exact": float(np.mean(d == 0)), "adjacent": float(np.mean(np.abs(d) <= 1)),
            "mean_signed_error": float(np.mean(d)), "qwk": None if np.isnan(qwk) else qwk}


def alpha(units, metric):
    """Krippendorff's alpha from the pairable values of each unit, by brute force over pairs."""
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    pos = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for u in units:
        m = len(u)
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[pos[u[i]], pos[u[j]]] += 1.0 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()

    def delta(c, k):
        if c == k:
            return 0.0
        if metric == "nominal":
            return 1.0
        if metric == "interval":
            return (values[c] - values[k]) ** 2
        lo, hi = min(c, k), max(c, k)
        return (n_c[lo:hi + 1].sum() - (n_c[lo] + n_c[hi]) / 2.0) ** 2

    d_o = sum(o[c, k] * delta(c, k) for c in range(len(values)) for k in range(len(values)))
    d_e = sum(n_c[c] * n_c[k] * delta(c, k) for c in range(len(values)) for k in range(len(values)))
    return float(1.0 - (n - 1) * d_o / d_e)


def alpha_case(name, matrix):
    """`matrix`: raters x units, None for missing; stored as units of present values."""
    units = [[r[u] for r in matrix if r[u] is not None] for u in range(len(matrix[0]))]
    return {"name": name, "units": units,
            "alpha": {m: alpha(units, m) for m in ("nominal", "ordinal", "interval")}}


def correlated(rng, n, noise):
    truth = rng.integers(1, 6, size=n)
    other = np.clip(truth + rng.choice([-1, 0, 0, 1], size=n) * (rng.random(n) < noise), 1, 5)
    return truth, other


def main():
    rng = np.random.default_rng(20261201)
    pairs = []
    a, b = correlated(rng, 230, 0.3)
    pairs.append(pair_case("mira_sized_n230", a, b))
    a, b = correlated(rng, 10, 0.6)
    pairs.append(pair_case("small_n10", a, b))
    # Only 2..4 used, but the scale is 1..5: the labels that never occur still count.
    a = rng.integers(2, 5, size=60)
    b = np.clip(a + rng.choice([-1, 0, 1], size=60), 2, 4)
    pairs.append(pair_case("labels_unseen", a, b))
    pairs.append(pair_case("with_bias", a, np.clip(a - 1, 1, 5)))
    pairs.append(pair_case("independent_n100", rng.integers(1, 6, size=100), rng.integers(1, 6, size=100)))
    pairs.append(pair_case("constant", [3] * 12, [3] * 12))

    # Krippendorff (2011), section C: four observers, twelve units, values 1..5, missing blanks.
    published = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    alphas = [alpha_case("krippendorff_2011_example", published)]
    raters = []
    truth = rng.integers(1, 6, size=80)
    for _ in range(3):
        r = np.clip(truth + rng.choice([-1, 0, 0, 0, 1], size=80), 1, 5).astype(object)
        r[rng.random(80) < 0.15] = None
        raters.append([None if v is None else int(v) for v in r])
    alphas.append(alpha_case("three_raters_missing", raters))

    out = {
        "generator": "tests/stats/reference/generate_agreement.py",
        "command": "/usr/bin/python3 tests/stats/reference/generate_agreement.py",
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "sklearn": sklearn.__version__},
        "published": {"source": "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability, section C",
                      "nominal": 0.743, "ordinal": 0.815, "interval": 0.849},
        "pairs": pairs,
        "alpha": alphas,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
