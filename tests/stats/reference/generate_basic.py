#!/usr/bin/python3
"""Reference values for the rank tests, BH, paired effect sizes and the cluster bootstrap.

Run from the repository root with Debian's Python (it has scipy/statsmodels from apt):

    /usr/bin/python3 tests/stats/reference/generate_basic.py

Writes tests/stats/reference/basic.json. Every input is generated here from fixed seeds and
stored in the JSON, so the C++ tests need neither Python nor these packages.
"""
import json
import platform
import sys
import warnings

import numpy as np
import scipy
import scipy.stats as st
import statsmodels
from statsmodels.stats.multitest import multipletests

OUT = "tests/stats/reference/basic.json"


def wilcoxon_case(name, d):
    d = [float(v) for v in d]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = st.wilcoxon(d)  # defaults: zero_method='wilcox', correction=False, mode='auto'
        nz = sum(1 for v in d if v != 0)
        uses_exact = len(d) <= 50 and nz == len(d)  # scipy 1.10.1 'auto' rule
        z = None
        if not uses_exact:
            z = float(st.wilcoxon(d, method="approx").zstatistic)
    return {"name": name, "d": d, "statistic": float(res.statistic), "pvalue": float(res.pvalue),
            "exact": uses_exact, "n_used": nz, "zstatistic": z}


def mt19937_64(seed):
    """Pure-Python std::mt19937_64 (C++11 [rand.eng.mers] parameters), to replay C++ draws."""
    w, n, m, r = 64, 312, 156, 31
    a, u, d, s, b, t, c, l, f = (0xB5026F5AA96619E9, 29, 0x5555555555555555, 17,
                                 0x71D67FFFEDA60000, 37, 0xFFF7EEE000000000, 43,
                                 6364136223846793005)
    mask = (1 << w) - 1
    mt = [0] * n
    mt[0] = seed & mask
    for i in range(1, n):
        mt[i] = (f * (mt[i - 1] ^ (mt[i - 1] >> (w - 2))) + i) & mask
    idx = n
    lower, upper = (1 << r) - 1, (~((1 << r) - 1)) & mask
    while True:
        if idx >= n:
            for i in range(n):
                x = (mt[i] & upper) | (mt[(i + 1) % n] & lower)
                xa = x >> 1
                if x & 1:
                    xa ^= a
                mt[i] = mt[(i + m) % n] ^ xa
            idx = 0
        y = mt[idx]
        idx += 1
        y ^= (y >> u) & d
        y ^= (y << s) & b
        y ^= (y << t) & c
        y ^= y >> l
        yield y & mask


def uniform_index(gen, bound):
    """Same rejection rule as runtime/stats/bootstrap.cpp uniform_index."""
    top = (1 << 64) - 1
    limit = top - top % bound
    u = next(gen)
    while u >= limit:
        u = next(gen)
    return u % bound


def bootstrap_case(rng):
    clusters = 12
    sizes = rng.integers(2, 7, size=clusters)
    cluster = np.repeat(np.arange(clusters) * 7 + 3, sizes)  # ids not 0..G-1 on purpose
    value = rng.integers(1, 6, size=cluster.size).astype(float)
    seed, resamples = 20240611, 500
    gen = mt19937_64(seed)
    ids = sorted(set(cluster.tolist()))
    members = [np.flatnonzero(cluster == g) for g in ids]
    reps = []
    for _ in range(resamples):
        rows = np.concatenate([members[uniform_index(gen, len(ids))] for _ in ids])
        reps.append(float(value[rows].mean()))
    lo, hi = np.quantile(reps, [0.025, 0.975])  # numpy default 'linear' = type 7
    return {"cluster": cluster.tolist(), "value": value.tolist(), "seed": seed,
            "resamples": resamples, "level": 0.95, "estimate": float(value.mean()),
            "first_replicates": reps[:5], "lower": float(lo), "upper": float(hi),
            "t_bootstrap_se": t_bootstrap_se(float(value.mean()), reps, len(ids), 0.95)}


def t_quantile(p, df):
    """Student's t quantile to ~30 digits (mpmath), where scipy 1.10's stdtrit is off by up to
    ~4e-9 relative: the t CDF written as a regularized incomplete beta and solved for t."""
    import mpmath
    mpmath.mp.dps = 40
    df = mpmath.mpf(df)

    def cdf(t):
        tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
        return 1 - tail if t > 0 else tail

    start = mpmath.mpf(float(st.t.ppf(p, float(df))))
    return float(mpmath.findroot(lambda t: cdf(t) - p, start))


def t_bootstrap_se(estimate, reps, clusters, level):
    """runtime/stats/bootstrap.cpp IntervalMethod::t_bootstrap_se: estimate +- t_{G-1} SE
    sqrt(G / (G - 1)), SE the SD of the replicates, kept within the replicates' range and
    never leaving out the estimate."""
    reps = np.asarray(reps)
    se = float(reps.std(ddof=1))
    t = t_quantile(0.5 + level / 2, clusters - 1)
    half = t * se * np.sqrt(clusters / (clusters - 1))
    lower = min(max(estimate - half, float(reps.min())), estimate)
    upper = max(min(estimate + half, float(reps.max())), estimate)
    return {"standard_error": se, "t_quantile": t, "lower": float(lower), "upper": float(upper)}


def main():
    rng = np.random.default_rng(20240601)
    out = {"generator": "tests/stats/reference/generate_basic.py",
           "command": "/usr/bin/python3 tests/stats/reference/generate_basic.py",
           "versions": {"python": platform.python_version(), "numpy": np.__version__,
                        "scipy": scipy.__version__, "statsmodels": statsmodels.__version__}}

    w = []
    w.append(wilcoxon_case("exact_no_ties_n20", np.round(rng.normal(0.4, 1.0, 20), 4)))
    w.append(wilcoxon_case("exact_all_positive_n5", [0.5, 1.5, 2.0, 3.25, 4.0]))
    w.append(wilcoxon_case("exact_ties_no_zero_n15", rng.choice([-3, -2, -1, 1, 2, 3], 15)))
    w.append(wilcoxon_case("exact_center_n4", [1.0, -2.0, -3.0, 4.0]))
    w.append(wilcoxon_case("zeros_force_approx_n30", rng.integers(-1, 4, 30)))
    w.append(wilcoxon_case("approx_no_ties_n60", np.round(rng.normal(-0.2, 1.0, 60), 5)))
    w.append(wilcoxon_case("approx_mira_like_n720", rng.integers(-3, 4, 720)
                           + (rng.random(720) < 0.1)))
    w.append(wilcoxon_case("exact_n50_boundary", np.round(rng.normal(0.3, 1.0, 50), 4)))
    w.append(wilcoxon_case("approx_n51_no_ties", np.round(rng.normal(0.3, 1.0, 51), 4)))
    out["wilcoxon"] = w

    bh = []
    for name, p in [("uniform_20", rng.random(20)),
                    ("with_ties_and_ones", np.array([0.01, 0.04, 0.04, 0.03, 0.5, 1.0, 0.2, 0.01])),
                    ("small_p", np.concatenate([10 ** -rng.uniform(3, 12, 6), rng.random(6)])),
                    ("single", np.array([0.3]))]:
        q = multipletests(p, method="fdr_bh")[1]
        bh.append({"name": name, "p": p.tolist(), "q": q.tolist()})
    out["benjamini_hochberg"] = bh

    sp = []
    x = rng.normal(size=25)
    for name, a, b in [("continuous_n25", x, x + rng.normal(size=25)),
                       ("ties_n30", rng.integers(1, 6, 30), rng.integers(1, 6, 30)),
                       ("negative_n12", np.arange(12.0), -np.arange(12.0) ** 2 + rng.normal(size=12)),
                       ("perfect_n10", np.arange(10.0), np.arange(10.0) * 3)]:
        r = st.spearmanr(a, b)
        sp.append({"name": name, "x": np.asarray(a, float).tolist(), "y": np.asarray(b, float).tolist(),
                   "rho": float(r.correlation), "pvalue": float(r.pvalue)})
    out["spearman"] = sp
    # MIRA Table 6: (rho, n, reported p). p from the t approximation at the rounded rho.
    table6 = []
    for rho, p_rep in [(0.71, 0.022), (0.72, 0.020), (0.81, 0.0049), (0.87, 0.0012)]:
        t = rho * np.sqrt(8 / ((1 + rho) * (1 - rho)))
        table6.append({"rho": rho, "n": 10, "reported_p": p_rep, "p": float(2 * st.t.sf(abs(t), 8))})
    out["spearman_table6"] = table6

    paired = []
    for name, n in [("scores_n40", 40), ("scores_n720", 720)]:
        base = rng.integers(1, 6, n).astype(float)
        mit = np.clip(base + rng.integers(-1, 2, n) * (rng.random(n) < 0.5), 1, 5)
        base_q = rng.integers(1, 6, n).astype(float)
        mit_q = np.clip(base_q + rng.integers(-1, 2, n), 1, 5)
        d, dq = mit - base, mit_q - base_q
        sgn = lambda v: np.sign(v).astype(int) + 1  # 0 decreased, 1 unchanged, 2 increased
        table = np.zeros((3, 3), int)
        for i, j in zip(sgn(d), sgn(dq)):
            table[i, j] += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wres = st.wilcoxon(mit, base)
        ci = st.ttest_rel(mit, base).confidence_interval(0.95)
        paired.append({"name": name, "treatment": mit.tolist(), "control": base.tolist(),
                       "treatment_b": mit_q.tolist(), "control_b": base_q.tolist(),
                       "mean_delta": float(d.mean()), "cohen_dz": float(d.mean() / d.std(ddof=1)),
                       "n_increased": int((d > 0).sum()), "n_decreased": int((d < 0).sum()),
                       "n_unchanged": int((d == 0).sum()), "wilcoxon_p": float(wres.pvalue),
                       "wilcoxon_statistic": float(wres.statistic), "joint": table.tolist(),
                       "delta_ci": [float(ci.low), float(ci.high)]})
    out["paired"] = paired

    # MIRA Table 5 shape: condition A and C against B, per language, 720 matched prompts each
    family = []
    for lang, shift in (("en", 0.12), ("zh", -0.03)):
        base = rng.integers(1, 6, 720).astype(float)
        for cond, extra in (("A", shift), ("C", shift / 2)):
            t = np.clip(base + rng.integers(-1, 2, 720) * (rng.random(720) < 0.4)
                        + (rng.random(720) < abs(extra)) * np.sign(extra), 1, 5)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pv = float(st.wilcoxon(t, base).pvalue)
            d = t - base
            family.append({"label": f"{lang} {cond} vs B", "treatment": t.tolist(), "control": base.tolist(),
                           "p": pv, "mean_delta": float(d.mean()), "cohen_dz": float(d.mean() / d.std(ddof=1))})
    qs = multipletests([f["p"] for f in family], method="fdr_bh")[1]
    for f, q in zip(family, qs):
        f["q"] = float(q)
    out["paired_family"] = family

    qv = rng.normal(size=37)
    out["quantile"] = {"values": qv.tolist(), "q": [0.0, 0.025, 0.5, 0.975, 1.0],
                       "expected": np.quantile(qv, [0.0, 0.025, 0.5, 0.975, 1.0]).tolist()}
    boot = bootstrap_case(rng)
    gen = mt19937_64(5489)
    for _ in range(9999):
        next(gen)
    boot["mt19937_64_seed_5489_10000th"] = str(next(gen))  # C++ standard: 9981545732273789042
    out["cluster_bootstrap"] = boot

    with open(OUT, "w") as fh:
        json.dump(out, fh, indent=1)
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
