#!/usr/bin/python3
"""Synthetic MIRA-like data sets for the LMM tests, with statsmodels MixedLM reference fits.

Run from the repository root with Debian's Python (statsmodels from apt), then the R script:

    /usr/bin/python3 tests/stats/reference/generate_lmm.py
    Rscript tests/stats/reference/generate_lmer.R

For every data set NAME this writes tests/stats/reference/lmm_NAME.json holding the data
(integer level codes per column, levels reference-first, response with null = missing), the
model (fixed terms, random intercepts) and, for single random-intercept models, the
statsmodels fit. generate_lmer.R adds lmm_NAME.lme4.json with the lme4/lmerTest fit.
"""
import json
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd
import scipy
import statsmodels
import statsmodels.formula.api as smf

DIR = "tests/stats/reference/"

MODELS = ["gpt-5.4", "claude", "qwen", "deepseek", "llama"]
CATEGORIES = ["General Medicine", "Endocrinology/Metabolism", "Gynecology/Obstetrics",
              "Cardiovascular/Andrology", "Infectious Disease/Public Health", "Dermatology/Allergy",
              "Mental Health", "Oncology/Screening", "Orthopedics/Sports Medicine"]
# MIRA Table 17, D3 column: the coefficients the synthetic latent score is built from
BETA_D3 = {"(Intercept)": 2.360, "language=zh": -0.145, "hls=low": 0.117, "register=colloquial": -0.003,
           "model=claude": 0.028, "model=qwen": -0.050, "model=deepseek": -0.136, "model=llama": 0.652,
           "condition=A": 0.044, "condition=C": 0.035,
           "language=zh:hls=low": 0.004, "language=zh:register=colloquial": 0.027,
           "hls=low:register=colloquial": 0.011, "language=zh:hls=low:register=colloquial": -0.023}
CAT_EFFECT = [0.0, 0.154, -0.256, 0.035, 0.041, -0.312, -0.433, 0.057, 0.193]


def grid(**factors):
    """Full factorial, the first factor varying slowest."""
    names = list(factors)
    sizes = [len(factors[k]) for k in names]
    idx = np.indices(sizes).reshape(len(names), -1)
    return {k: idx[i] for i, k in enumerate(names)}


def latent(codes, levels, rng, seed_sd, resid_sd):
    n = len(codes["seed"])
    mu = np.full(n, BETA_D3["(Intercept)"])
    for name, beta in BETA_D3.items():
        if name == "(Intercept)":
            continue
        mask = np.ones(n, bool)
        for part in name.split(":"):
            var, lev = part.split("=")
            if var not in codes or lev not in levels[var]:
                mask[:] = False
                break
            mask &= codes[var] == levels[var].index(lev)
        mu += beta * mask
    if "category" in codes:
        mu += np.asarray(CAT_EFFECT)[codes["category"]]
    n_seed = len(levels["seed"])
    mu += rng.normal(0.0, seed_sd, n_seed)[codes["seed"]] if seed_sd > 0 else 0.0
    return mu + rng.normal(0.0, resid_sd, n)


def to_score(z):
    return np.clip(np.rint(z), 1, 5)


def frame(ds):
    cols = {}
    for var, levels in ds["levels"].items():
        cols[var] = pd.Categorical.from_codes(ds["codes"][var], categories=levels)
    cols["y"] = [np.nan if v is None else v for v in ds["response"]]
    return pd.DataFrame(cols)


def formula(ds):
    parts = []
    for term in ds["fixed"]:
        if term:
            parts.append(":".join(term))
    return "y ~ " + (" + ".join(parts) if parts else "1")


def sm_name(name):
    """statsmodels/patsy 'language[T.zh]:hls[T.low]' -> 'language=zh:hls=low'."""
    if name == "Intercept":
        return "(Intercept)"
    out = []
    for part in name.split(":"):
        var, rest = part.split("[T.", 1)
        out.append(var + "=" + rest[:-1])
    return ":".join(out)


def statsmodels_fit(ds):
    df = frame(ds)
    group = ds["random"][0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seconds = []
        for _ in range(3):  # best of 3 wall-clock times for the docs' performance note
            t0 = time.perf_counter()
            model = smf.mixedlm(formula(ds), df, groups=df[group], missing="drop")
            res = model.fit(reml=True)  # statsmodels defaults, as the MIRA authors ran it
            seconds.append(time.perf_counter() - t0)
        seconds = min(seconds)
    names = [sm_name(n) for n in res.fe_params.index]
    return {"call": f"smf.mixedlm('{formula(ds)}', df, groups=df['{group}'], missing='drop').fit(reml=True)",
            "names": names,
            "estimate": res.fe_params.tolist(), "se": res.bse_fe.tolist(),
            "z": res.tvalues[: len(names)].tolist(), "p": res.pvalues[: len(names)].tolist(),
            "group_variance": float(res.cov_re.iloc[0, 0]), "residual_variance": float(res.scale),
            # summary()'s "Group Var" Std.Err.: sqrt(scale) * bse of the variance parameter
            "group_variance_se_printed": float(np.sqrt(res.scale) * res.bse.iloc[len(names)]),
            "llf": float(res.llf), "converged": bool(res.converged), "nobs": int(res.nobs),
            "warnings": sorted({str(w.message) for w in caught}), "fit_seconds": seconds}


def dataset(name, codes, levels, response, fixed, random, note):
    resp = [None if np.isnan(v) else int(v) for v in response]
    return {"name": name, "note": note, "levels": levels,
            "codes": {k: np.asarray(v).astype(int).tolist() for k, v in codes.items()},
            "response": resp, "fixed": fixed, "random": random}


def mira_levels(n_seed, n_cat, models):
    return {"language": ["en", "zh"], "hls": ["high", "low"], "register": ["formal", "colloquial"],
            "model": models, "condition": ["B", "A", "C"], "category": CATEGORIES[:n_cat],
            "seed": [f"s{i + 1:02d}" for i in range(n_seed)], "format": ["S1", "S2", "S3"]}


THREE_WAY = [[], ["language"], ["hls"], ["register"], ["model"], ["condition"], ["category"],
             ["language", "hls"], ["language", "register"], ["hls", "register"],
             ["language", "hls", "register"]]


def make_mira(rng):
    levels = mira_levels(60, 9, MODELS)
    codes = grid(seed=levels["seed"], model=levels["model"], language=levels["language"],
                 hls=levels["hls"], register=levels["register"], format=levels["format"],
                 condition=levels["condition"])
    seed_category = np.concatenate([np.arange(9), rng.integers(0, 9, 51)])  # every category used
    codes["category"] = seed_category[codes["seed"]]
    y = to_score(latent(codes, levels, rng, seed_sd=0.64, resid_sd=0.75))
    return dataset("mira", codes, levels, y, THREE_WAY, ["seed"],
                   "60 seeds x 5 models x 2 x 2 x 2 x 3 formats x 3 conditions = 21,600 rows, MIRA "
                   "Table 17 D3 coefficients, seed sd 0.64, residual sd 0.75, rounded to 1..5")


def make_small(rng):
    levels = mira_levels(12, 3, ["gpt-5.4", "llama"])
    del levels["format"]
    codes = grid(seed=levels["seed"], model=levels["model"], language=levels["language"],
                 hls=levels["hls"], condition=levels["condition"])
    codes["category"] = np.arange(12) % 3
    codes["category"] = codes["category"][codes["seed"]]
    del levels["register"]
    y = to_score(latent(codes, levels, rng, seed_sd=0.5, resid_sd=0.8))
    y[rng.random(y.size) < 0.06] = np.nan  # missing responses: unbalanced groups
    fixed = [[], ["language"], ["hls"], ["language", "hls"], ["model"], ["condition"], ["category"]]
    return dataset("small", codes, levels, y, fixed, ["seed"],
                   "12 seeds x 2 models x 2 x 2 x 3 conditions = 288 rows, ~6% missing responses")


def boundary_slope(ds):
    """d REMLcrit / d(theta^2) at theta = 0 for a single random intercept: > 0 means the REML
    optimum is at zero variance. At theta = 0, P = M (OLS residual maker)."""
    df = frame(ds).dropna()
    import patsy
    X = np.asarray(patsy.dmatrix(formula(ds).split("~")[1], df))
    y = df["y"].to_numpy()
    g = df[ds["random"][0]].cat.codes.to_numpy()
    Z = np.eye(g.max() + 1)[g]
    Q, _ = np.linalg.qr(X)
    PZ = Z - Q @ (Q.T @ Z)
    r = y - Q @ (Q.T @ y)
    n, p = X.shape
    return float(np.trace(Z.T @ PZ) - (n - p) * np.sum((Z.T @ r) ** 2) / (r @ r))


def make_boundary(rng):
    levels = mira_levels(20, 2, ["gpt-5.4", "llama"])
    for k in ("format", "register", "condition"):
        del levels[k]
    codes = grid(seed=levels["seed"], model=levels["model"], language=levels["language"],
                 hls=levels["hls"])
    codes["category"] = (np.arange(20) % 2)[codes["seed"]]
    fixed = [[], ["language"], ["hls"], ["model"], ["category"]]
    for attempt in range(100):  # true seed variance 0; keep the first draw whose REML optimum is 0
        y = to_score(latent(codes, levels, rng, seed_sd=0.0, resid_sd=0.9))
        ds = dataset("boundary", codes, levels, y, fixed, ["seed"],
                     "true seed variance 0; 20 seeds x 2 models x 2 x 2 = 160 rows")
        if boundary_slope(ds) > 1.0:
            ds["note"] += f"; draw {attempt} (first whose REML slope at zero variance is > 1)"
            ds["reml_slope_at_zero"] = boundary_slope(ds)
            return ds
    raise RuntimeError("no boundary draw found")


def make_crossed(rng):
    levels = mira_levels(10, 1, ["gpt-5.4"])
    levels = {"language": levels["language"], "hls": levels["hls"], "seed": levels["seed"],
              "skeleton": [f"k{i + 1}" for i in range(6)]}
    codes = grid(seed=levels["seed"], skeleton=levels["skeleton"], language=levels["language"],
                 hls=levels["hls"])
    z = latent(codes, levels, rng, seed_sd=0.6, resid_sd=0.7)
    z += rng.normal(0.0, 0.35, 6)[codes["skeleton"]]
    y = to_score(z)
    y[rng.random(y.size) < 0.05] = np.nan
    fixed = [[], ["language"], ["hls"], ["language", "hls"]]
    return dataset("crossed", codes, levels, y, fixed, ["seed", "skeleton"],
                   "crossed random intercepts: 10 seeds x 6 skeletons x 2 x 2 = 240 rows, ~5% missing")


def crossed_boundary_slope(ds):
    """Slope of REMLcrit in theta_skeleton^2 at theta_skeleton = 0, theta_seed at the seed-only
    REML optimum (statsmodels): > 0 means zero skeleton variance is the constrained optimum."""
    import patsy
    df = frame(ds).dropna()
    X = np.asarray(patsy.dmatrix(formula(ds).split("~")[1], df))
    y = df["y"].to_numpy()
    res = smf.mixedlm(formula(ds), df, groups=df["seed"]).fit(reml=True)
    psi = float(res.cov_re.iloc[0, 0] / res.scale)
    Zs = np.eye(len(ds["levels"]["seed"]))[df["seed"].cat.codes.to_numpy()]
    Zk = np.eye(len(ds["levels"]["skeleton"]))[df["skeleton"].cat.codes.to_numpy()]
    Vinv = np.linalg.inv(np.eye(len(y)) + psi * Zs @ Zs.T)
    XtVX = X.T @ Vinv @ X
    P = Vinv - Vinv @ X @ np.linalg.solve(XtVX, X.T @ Vinv)
    n, p = X.shape
    return float(np.trace(Zk.T @ P @ Zk) - (n - p) * np.sum((Zk.T @ P @ y) ** 2) / (y @ P @ y))


def make_crossed_boundary(rng):
    levels = {"language": ["en", "zh"], "hls": ["high", "low"],
              "seed": [f"s{i + 1:02d}" for i in range(10)], "skeleton": [f"k{i + 1}" for i in range(6)]}
    codes = grid(seed=levels["seed"], skeleton=levels["skeleton"], language=levels["language"],
                 hls=levels["hls"])
    fixed = [[], ["language"], ["hls"]]
    for attempt in range(100):  # skeleton variance 0 in truth; keep the first boundary draw
        y = to_score(latent(codes, levels, rng, seed_sd=0.6, resid_sd=0.8))
        ds = dataset("crossed_boundary", codes, levels, y, fixed, ["seed", "skeleton"],
                     "crossed seed x skeleton, true skeleton variance 0; 240 rows")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            slope = crossed_boundary_slope(ds)
        if slope > 1.0:
            ds["note"] += f"; draw {attempt} (first whose REML slope in skeleton variance at 0 is > 1)"
            ds["reml_slope_at_zero"] = slope
            return ds
    raise RuntimeError("no crossed boundary draw found")


def main():
    rng = np.random.default_rng(20240607)
    versions = {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
                "scipy": scipy.__version__, "statsmodels": statsmodels.__version__}
    for make in (make_small, make_boundary, make_crossed, make_mira, make_crossed_boundary):
        ds = make(rng)
        ds["generator"] = "/usr/bin/python3 tests/stats/reference/generate_lmm.py"
        ds["versions"] = versions
        if len(ds["random"]) == 1:
            ds["statsmodels"] = statsmodels_fit(ds)
        path = DIR + f"lmm_{ds['name']}.json"
        with open(path, "w") as fh:
            json.dump(ds, fh, separators=(",", ":"))
        print("wrote", path, ds.get("statsmodels", {}).get("converged"), file=sys.stderr)


if __name__ == "__main__":
    main()
