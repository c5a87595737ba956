#!/usr/bin/python3
"""Reference values for runtime/stats/judge_correction: prediction-powered inference (PPI,
Angelopoulos et al. 2023) and its power-tuned form (PPI++), and the Rogan-Gladen correction
of a rate, each computed here straight from its formula with numpy (two-pass variances,
ddof=1) and scipy's normal quantile, independently of the C++ (which works from sums).

The judge scored N answers; people scored a sample of n of them (a subset of the N).
    theta(lambda) = lambda * mean_N(f) + mean_n(y - lambda f)
    var = lambda^2 var_N(f) / N + var_n(y - lambda f) / n + 2 lambda cov_n(f, y - lambda f) / N
    PPI: lambda = 1;  PPI++: lambda = cov_n(y, f) / var_n(f)
Rogan-Gladen: p = (p_obs + spec - 1) / (sens + spec - 1), clipped to [0, 1], delta-method
    var = [p_obs(1-p_obs)/N + p^2 sens(1-sens)/n_pos + (1-p)^2 spec(1-spec)/n_neg
           - 2 p sens(1-sens)/N - 2 (1-p) spec(1-spec)/N] / J^2
    (the last two terms: the sample's answers are among the N that p_obs is taken over).

Run from the repository root with Debian's Python (python3-numpy, python3-scipy from apt):
    /usr/bin/python3 tests/stats/reference/generate_judge_correction.py
"""
import json
import platform

import numpy as np
import scipy
from scipy.stats import norm

Z = norm.ppf(0.975)


def interval(estimate, se):
    return {"estimate": estimate, "se": se, "lower": estimate - Z * se, "upper": estimate + Z * se}


def ppi(judge, people, lam):
    """judge: every answer's judge score; people: NaN where people did not score."""
    f_all = np.asarray(judge, dtype=float)
    y_all = np.asarray(people, dtype=float)
    sample = ~np.isnan(y_all)
    f, y = f_all[sample], y_all[sample]
    N, n = len(f_all), len(f)
    estimate = lam * f_all.mean() + (y - lam * f).mean()
    r = y - lam * f
    var = lam**2 * f_all.var(ddof=1) / N + r.var(ddof=1) / n + 2 * lam * np.cov(f, r, ddof=1)[0, 1] / N
    return interval(estimate, np.sqrt(var))


def tuned_lambda(judge, people):
    y_all = np.asarray(people, dtype=float)
    sample = ~np.isnan(y_all)
    f, y = np.asarray(judge, dtype=float)[sample], y_all[sample]
    return np.cov(y, f, ddof=1)[0, 1] / f.var(ddof=1)


def ppi_case(name, judge, people):
    y_all = np.asarray(people, dtype=float)
    f_all = np.asarray(judge, dtype=float)
    y = y_all[~np.isnan(y_all)]
    lam = tuned_lambda(judge, people)
    return {
        "name": name,
        "judge": list(map(float, judge)),
        "people": [None if np.isnan(v) else float(v) for v in y_all],
        "N": len(f_all),
        "n": int(len(y)),
        "judge_only": interval(f_all.mean(), f_all.std(ddof=1) / np.sqrt(len(f_all))),
        "people_only": interval(y.mean(), y.std(ddof=1) / np.sqrt(len(y))),
        "ppi": ppi(judge, people, 1.0),
        "lambda": lam,
        "ppi_tuned": ppi(judge, people, lam),
    }


def rogan_gladen_case(name, N, flagged, tp, positives, fp, negatives):
    p_obs = flagged / N
    sens = tp / positives
    spec = 1 - fp / negatives
    J = sens + spec - 1
    p = (p_obs + spec - 1) / J
    var = (p_obs * (1 - p_obs) / N + p**2 * sens * (1 - sens) / positives
           + (1 - p)**2 * spec * (1 - spec) / negatives
           - 2 * p * sens * (1 - sens) / N - 2 * (1 - p) * spec * (1 - spec) / N) / J**2
    se = np.sqrt(var)
    clip = lambda x: min(1.0, max(0.0, x))
    return {"name": name, "N": N, "flagged": flagged, "true_positives": tp, "positives": positives,
            "false_positives": fp, "negatives": negatives, "observed": p_obs, "sensitivity": sens,
            "specificity": spec, "unclipped": p, "estimate": clip(p), "se": se,
            "lower": clip(p - Z * se), "upper": clip(p + Z * se)}


nan = float("nan")
cases = []
# Hand-checkable: mean_N(f) = 24/8 = 3, the sample's errors y - f are 1, 0, 0, 0, so PPI = 3.25.
cases.append(ppi_case("hand", [2, 3, 3, 4, 2, 5, 1, 4], [3, nan, 3, nan, nan, 5, nan, 4]))
# A judge that scores 0.4 high with noise, 200 answers, people on 40 of them.
rng = np.random.default_rng(20260528)
truth = np.clip(np.rint(rng.normal(3.0, 1.0, 200)), 1, 5)
judge = np.clip(np.rint(truth + 0.4 + rng.normal(0, 0.6, 200)), 1, 5)
people = np.full(200, nan)
sampled = rng.choice(200, 40, replace=False)
people[sampled] = truth[sampled]
cases.append(ppi_case("biased_judge", judge, people))
# Every answer scored by people: theta is people's mean and its variance var(y) / N.
cases.append(ppi_case("all_scored", [1, 2, 2, 4, 5], [2, 2, 3, 4, 4]))

# A flag as 0/1 scores: 1,000 answers, the judge flags 240; people scored 200, flag 40, of
# which the judge flags 32; of their 160 unflagged answers the judge flags 16.
rg = [rogan_gladen_case("flag", 1000, 240, 32, 40, 16, 160),
      rogan_gladen_case("clipped", 500, 40, 18, 20, 18, 180)]
flag_judge = [1.0] * 32 + [0.0] * 8 + [1.0] * 16 + [0.0] * 144 + [1.0] * (240 - 48) + [0.0] * (1000 - 200 - 192)
flag_people = [1.0] * 40 + [0.0] * 160 + [nan] * 800
flag_ppi = {"ppi": ppi(flag_judge, flag_people, 1.0), "lambda": tuned_lambda(flag_judge, flag_people),
            "ppi_tuned": ppi(flag_judge, flag_people, tuned_lambda(flag_judge, flag_people))}

a, b = cases[1]["ppi"], cases[0]["ppi"]
diff = interval(a["estimate"] - b["estimate"], np.sqrt(a["se"]**2 + b["se"]**2))

out = {
    "generator": "tests/stats/reference/generate_judge_correction.py",
    "command": "/usr/bin/python3 tests/stats/reference/generate_judge_correction.py",
    "versions": {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__},
    "z": Z,
    "ppi": cases,
    "rogan_gladen": rg,
    "flag_ppi": flag_ppi,
    "difference_biased_minus_hand": diff,
}
with open("tests/stats/reference/judge_correction.json", "w") as f:
    json.dump(out, f, indent=1, default=float)
    f.write("\n")
