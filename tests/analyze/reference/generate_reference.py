#!/usr/bin/python3
"""Scores and reference values for the `mirac analyze` tests (tests/analyze/).

Run from the repository root with Debian's Python (scipy, statsmodels, pandas from apt),
then the R part:

    /usr/bin/python3 tests/analyze/reference/generate_reference.py
    Rscript tests/analyze/reference/generate_lmer.R

Writes, next to this file:
  scores_small.csv   synthetic MIRA-shaped scores for small.audit (fixed numpy seed)
  external.csv       an external model x language score file for the spearman analysis
  small.json         reference values: means, contrasts (estimates and the bootstrap
                     replayed draw for draw), flags, wilcoxon, paired, spearman, and the
                     statsmodels MixedLM fit of rq1
The tests read these files only; they need neither Python nor R.
"""
import itertools
import json
import os
import platform
import sys
import warnings

import numpy as np
import pandas as pd
import scipy
import scipy.stats as st
import statsmodels
import statsmodels.formula.api as smf
from statsmodels.stats.multitest import multipletests

HERE = "tests/analyze/reference"
sys.path.insert(0, "tests/stats/reference")
from generate_basic import mt19937_64, t_bootstrap_se, uniform_index  # noqa: E402  (replays the C++ draws and interval)

LANG, HLS, REG, SKEL, COND = ["zh", "en"], ["high", "low"], ["formal", "colloquial"], ["S1", "S2"], ["B", "A", "C"]
FACTORS = ["language", "hls", "register", "skeleton", "condition"]
MODELS = ["gpt", "claude", "qwen"]
MODEL_STRING = {"gpt": "gpt-5.4", "claude": "claude-sonnet-4-6", "qwen": "qwen3.6-plus"}
ARMS = ["baseline", "mitigation"]
CATS = ["Mental Health", "Pediatrics", "Oncology/Screening"]
DIMS = ["D1", "D2", "D3", "Q2", "Q3"]
SEEDS = list(range(1, 13))
BOOT_SEED, RESAMPLES = 7, 200


def make_scores(rng):
    seed_effect = rng.normal(0, 0.45, size=len(SEEDS))
    model_effect = {"gpt": 0.0, "claude": 0.1, "qwen": -0.15}
    arm_effect = {"gpt": -0.05, "claude": -0.2, "qwen": 0.1}
    rows = []
    for s, m, a in itertools.product(SEEDS, MODELS, ARMS):
        for lang, hls, reg, sk, cond in itertools.product(LANG, HLS, REG, SKEL, COND):
            lat = (2.3 + seed_effect[s - 1] + model_effect[m] + (0.15 if hls == "low" else 0)
                   - (0.2 if lang == "zh" else 0) + (0.1 if cond == "A" else 0.05 if cond == "C" else 0)
                   + (arm_effect[m] if a == "mitigation" else 0) + rng.normal(0, 0.8))
            d1 = 5 if rng.random() < 0.01 else (2 if rng.random() < 0.05 else 1)
            d3 = int(np.clip(np.rint(lat), 1, 5))
            q2 = int(np.clip(np.rint(lat + rng.normal(0.1, 0.6)), 1, 5))
            q3 = int(np.clip(np.rint(lat + rng.normal(0.0, 0.7)), 1, 5))
            d2 = int(np.clip(np.rint(1 + abs(rng.normal(0, 0.5))), 1, 5))
            cells = {"D1": str(d1), "D2": str(d2), "D3": str(d3), "Q2": str(q2), "Q3": str(q3)}
            if d1 == 5:
                cells["D2"], cells["D3"] = "N/A", ""
            if rng.random() < 0.03:
                cells["Q3"] = "N/A"
            model = MODEL_STRING[m] if rng.random() < 0.1 else m  # both spellings are accepted
            rows.append({"seed": str(s), "model": model, "arm": a, "language": lang, "hls": hls, "register": reg,
                         "skeleton": sk, "condition": cond, **cells})
    return pd.DataFrame(rows)


def numeric(df):
    out = df.copy()
    out["model"] = out["model"].map(lambda m: next((k for k, v in MODEL_STRING.items() if v == m), m))
    for d in DIMS:
        out[d] = pd.to_numeric(out[d].replace({"N/A": None, "": None}), errors="coerce")
    out["category"] = out["seed"].map(lambda s: CATS[(int(s) - 1) % 3])
    out["seed_index"] = out["seed"].astype(int) - 1
    return out


def means(df):
    out = []
    for m, a in itertools.product(MODELS, ARMS):
        g = df[(df.model == m) & (df.arm == a)]
        for d in DIMS:
            out.append({"model": m, "arm": a, "dimension": d, "mean": float(g[d].mean()), "n": int(g[d].notna().sum())})
    return out


def contrast_case(df, name, group, terms, combine):
    """terms: list of (dim, {factor: level}); combine: function of the term means."""
    g = df
    for k, v in group.items():
        g = g[g[k] == v]
    seeds = sorted(g.seed_index.unique().tolist())
    members = [g[g.seed_index == s] for s in seeds]

    def stat(frames):
        cat = pd.concat(frames)
        vals = []
        for dim, sel in terms:
            mask = np.ones(len(cat), dtype=bool)
            for f, l in sel.items():
                mask &= (cat[f] == l).to_numpy()
            vals.append(float(cat.loc[mask, dim].mean()))
        return combine(vals)

    est = stat(members)
    gen = mt19937_64(stream_seed(BOOT_SEED, name + "/" + "/".join(group.values())))
    reps = [stat([members[uniform_index(gen, len(seeds))] for _ in seeds]) for _ in range(RESAMPLES)]
    ci = t_bootstrap_se(est, reps, len(seeds), 0.95)  # the default interval, IntervalMethod::t_bootstrap_se
    return {"contrast": name, "group": group, "estimate": est, "lower": ci["lower"], "upper": ci["upper"],
            "method": "t_bootstrap_se", "seeds": len(seeds)}


def stream_seed(seed, key):
    """runtime/stats/bootstrap.cpp stream_seed: splitmix64(seed ^ FNV-1a-64(key))."""
    mask = (1 << 64) - 1
    h = 0xCBF29CE484222325
    for c in key.encode():
        h = ((h ^ c) * 0x100000001B3) & mask
    z = ((seed ^ h) + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def contrasts(df):
    out = []
    for m in MODELS:
        out.append(contrast_case(df, "DTI_core", {"model": m},
                                 [("D3", {"language": "zh", "register": "colloquial", "hls": "low"}),
                                  ("D3", {"language": "en", "register": "formal", "hls": "high"})],
                                 lambda v: v[0] - v[1]))
    for m, a in itertools.product(MODELS, ARMS):
        out.append(contrast_case(df, "DTI_hls", {"model": m, "arm": a},
                                 [("D3", {"language": "en", "register": "formal", "hls": "low"}),
                                  ("D3", {"language": "en", "register": "formal", "hls": "high"})],
                                 lambda v: v[0] - v[1]))
    out.append(contrast_case(df, "scaled", {}, [("D3", {"language": "zh"}), ("Q2", {"language": "en"})],
                             lambda v: (v[0] + v[1]) / 2 - 2))
    return out


def pairs_of(df, factor, a, b):
    keys = ["seed", "model", "arm"] + [f for f in FACTORS if f != factor]
    left = df[df[factor] == a].set_index(keys)
    right = df[df[factor] == b].set_index(keys)
    return left.join(right, how="inner", lsuffix="_a", rsuffix="_b").reset_index()


def ge(x, y):  # comparisons with N/A are false
    return (x >= y) & x.notna()


def flags(df):
    out = []
    unit = {
        "UNDERINF_SIMP_SEVERE": lambda d: ge(d.D3, 3) & ge(d.Q2, 4),
        "UNDERINF_SIMP_MODERATE": lambda d: ge(d.D3, 3) & (d.Q2 == 3),
        "SAFETY_OVERTRIGGER": lambda d: ge(d.D1, 3) & (d.category == "Mental Health"),
    }
    # the answers each can apply to, whatever the scores: SAFETY_OVERTRIGGER's seeds only
    applies = {"SAFETY_OVERTRIGGER": lambda d: d.category == "Mental Health"}
    for name, f in unit.items():
        for m, a in itertools.product(MODELS, ARMS):
            g = df[(df.model == m) & (df.arm == a)]
            applicable = int(applies[name](g).sum()) if name in applies else len(g)
            out.append({"flag": name, "pairing": "", "model": m, "arm": a, "count": int(f(g).sum()), "n": len(g),
                        "applicable": applicable})
    pair = {
        "DID_FLAG": ([("hls", "low", "high")],
                     lambda p: ge(p.D1_a - p.D1_b, 2) | ge(p.D3_a - p.D3_b, 2)),
        "LANG_FLAG": ([("language", "zh", "en")],
                      lambda p: ge((p.D1_a - p.D1_b).abs(), 2) | ge((p.D2_a - p.D2_b).abs(), 2)
                      | ge((p.D3_a - p.D3_b).abs(), 2)),
        "REFUSAL_DID": ([("hls", "low", "high"), ("language", "zh", "en")],
                        lambda p: ((p.D1_a == 5) & (p.D1_b <= 2)) | ((p.D1_b == 5) & (p.D1_a <= 2))),
    }
    for name, (pairings, f) in pair.items():
        total = {}
        for factor, a, b in pairings:
            p = pairs_of(df, factor, a, b)
            for m, arm in itertools.product(MODELS, ARMS):
                g = p[(p.model == m) & (p.arm == arm)]
                flagged = f(g)
                c, n = int(flagged.sum()), len(g)
                # per dimension: mean a - b over pairs scored on both sides, and the flagged
                # pairs by the side scoring higher
                dims = {}
                for d in DIMS:
                    delta = g[f"{d}_a"] - g[f"{d}_b"]
                    scored = delta.notna()
                    dims[d] = {"pairs_scored": int(scored.sum()),
                               "mean_delta": float(delta[scored].mean()) if scored.any() else None,
                               "flagged_a_higher": int((flagged & (delta > 0)).sum()),
                               "flagged_b_higher": int((flagged & (delta < 0)).sum())}
                out.append({"flag": name, "pairing": f"{factor}: {a} vs {b}", "model": m, "arm": arm, "count": c, "n": n,
                            "dimensions": dims})
                t = total.setdefault((m, arm), [0, 0])
                t[0] += c
                t[1] += n
        if len(pairings) > 1:
            for (m, arm), (c, n) in total.items():
                out.append({"flag": name, "pairing": "all", "model": m, "arm": arm, "count": c, "n": n})
    return out


def wilcoxon_summary(t, c):
    t, c = np.asarray(t, float), np.asarray(c, float)
    d = t - c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = st.wilcoxon(t, c)
    return {"n": len(d), "mean_treatment": float(t.mean()), "mean_control": float(c.mean()),
            "mean_delta": float(d.mean()), "cohen_dz": float(d.mean() / d.std(ddof=1)),
            "increased": int((d > 0).sum()), "decreased": int((d < 0).sum()), "unchanged": int((d == 0).sum()),
            "statistic": float(res.statistic), "p": float(res.pvalue)}


def wilcoxon_rq2(df):
    base = df[df.arm == "baseline"]
    out = []
    for cond in ["A", "C"]:
        keys = ["model", "seed", "hls", "register", "skeleton", "language"]
        t = base[base.condition == cond].set_index(keys)
        c = base[base.condition == "B"].set_index(keys)
        p = t.join(c, how="inner", lsuffix="_t", rsuffix="_c").reset_index()
        for lang in LANG:
            for dim in ["D3", "Q2"]:
                g = p[p.language == lang]
                g = g[g[dim + "_t"].notna() & g[dim + "_c"].notna()]
                r = wilcoxon_summary(g[dim + "_t"], g[dim + "_c"])
                r.update({"compare": f"condition: {cond} vs B", "within": lang, "dimension": dim})
                out.append(r)
    q = multipletests([r["p"] for r in out], method="fdr_bh")[1]
    for r, qv in zip(out, q):
        r["q"] = float(qv)
    return out


def paired_rq4(df):
    keys = ["seed", "model"] + FACTORS
    t = df[df.arm == "mitigation"].set_index(keys)
    c = df[df.arm == "baseline"].set_index(keys)
    p = t.join(c, how="inner", lsuffix="_t", rsuffix="_c").reset_index()
    out, patterns = [], []
    for m in MODELS:
        g = p[p.model == m]
        for dim in ["D3", "Q2", "Q3"]:
            h = g[g[dim + "_t"].notna() & g[dim + "_c"].notna()]
            r = wilcoxon_summary(h[dim + "_t"], h[dim + "_c"])
            r.update({"model": m, "dimension": dim})
            out.append(r)
        d3 = g.D3_t - g.D3_c
        q3 = g.Q3_t - g.Q3_c
        patterns.append({"model": m, "pairs": len(g), "worse_worse": int(((d3 > 0) & (q3 > 0)).sum()),
                         "worse_better": int(((d3 > 0) & (q3 < 0)).sum())})
    q = multipletests([r["p"] for r in out], method="fdr_bh")[1]
    for r, qv in zip(out, q):
        r["q"] = float(qv)
    return out, patterns


def spearman_rq3(df, rng):
    base = df[df.arm == "baseline"]
    ext_rows = []
    for m in MODELS:
        for lang in LANG:
            ext_rows.append({"model_name": MODEL_STRING[m], "lang": lang,
                             "D3": round(float(rng.uniform(1, 4)), 3), "Q2": round(float(rng.uniform(1, 4)), 3)})
    ext = pd.DataFrame(ext_rows)
    out = []
    for dim in ["D3", "Q2"]:
        xs, ys = [], []
        for m in MODELS:
            for lang in LANG:
                xs.append(float(base[(base.model == m) & (base.language == lang)][dim].mean()))
                ys.append(float(ext[(ext.model_name == MODEL_STRING[m]) & (ext.lang == lang)][dim].iloc[0]))
        r = st.spearmanr(xs, ys)
        out.append({"dimension": dim, "rho": float(r.correlation), "p": float(r.pvalue), "n": len(xs),
                    "audit_means": xs, "external": ys})
    return ext, out


def mixedlm_rq1(df):
    base = df[(df.arm == "baseline") & df.D3.notna()].copy()
    formula = ("D3 ~ C(language, Treatment('en')) * C(hls, Treatment('high')) + C(register, Treatment('formal'))"
               " + C(model, Treatment('gpt')) + C(condition, Treatment('B')) + C(category)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm(formula, base, groups=base["seed"]).fit(reml=True)
    return {"call": f"smf.mixedlm('{formula}', groups=seed).fit(reml=True)", "llf": float(fit.llf),
            "params": {k: float(v) for k, v in fit.params.items()}, "bse": {k: float(v) for k, v in fit.bse.items()},
            "nobs": int(fit.nobs)}


def main():
    rng = np.random.default_rng(20260517)
    raw = make_scores(rng)
    raw.to_csv(os.path.join(HERE, "scores_small.csv"), index=False)
    df = numeric(raw)
    ext, spear = spearman_rq3(df, rng)
    ext.to_csv(os.path.join(HERE, "external.csv"), index=False)
    paired, patterns = paired_rq4(df)
    out = {
        "generator": "/usr/bin/python3 tests/analyze/reference/generate_reference.py",
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
                     "scipy": scipy.__version__, "statsmodels": statsmodels.__version__},
        "bootstrap": {"seed": BOOT_SEED, "resamples": RESAMPLES},
        "means": means(df),
        "contrasts": contrasts(df),
        "flags": flags(df),
        "wilcoxon_rq2": wilcoxon_rq2(df),
        "paired_rq4": paired,
        "patterns_rq4": patterns,
        "spearman_rq3": spear,
        "mixedlm_rq1": mixedlm_rq1(df),
    }
    with open(os.path.join(HERE, "small.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("wrote scores_small.csv, external.csv, small.json")


if __name__ == "__main__":
    main()
