#!/usr/bin/python3
"""Coverage of four cluster-bootstrap intervals for a mean over G clusters, the comparison
behind the choice of mirac's default interval (docs/statistics.md, section 6). Not a test:
tests/simulate/interval_coverage_test.cpp checks mirac's own interval through its own code.

    /usr/bin/python3 tests/simulate/interval_methods.py [REPLICATES]

Each scenario gives one value per cluster (seed), and the statistic is their mean, as a
contrast of cell means is when every seed has the same number of answers in each cell:

  dti      the difference of two cells' mean scores, two answers per seed in each: latent
           2.3 (+0.3 in the first cell) + seed intercept N(0, 0.6^2) + N(0, 0.8^2) noise,
           rounded and clipped to 1..5 (tests/simulate/fixtures/intervals.audit)
  skewed   the same with three answers per cell, latent 1.5 (+0.5): more clipping at 1
  share90  the share of 10 criteria met per seed, logit of the seed's chance N(logit 0.9, 0.8^2)

Intervals, all from the same resamples (B = 1000):
  percentile      quantiles alpha/2, 1 - alpha/2 (mirac before issue 28)
  expanded        Hesterberg's expanded percentile: quantiles at Phi(-sqrt(G/(G-1)) t_{G-1})
  t_bootstrap_se  estimate +- t_{G-1} sd(replicates) sqrt(G/(G-1)), within the replicates'
                  range (mirac's default, runtime/stats/bootstrap.cpp)
  studentized     bootstrap-t with the jackknife SE (for a mean: sd / sqrt(G))
The truth is exact (numerical integration over the seed effect). Needs numpy and scipy
(apt-get install python3-numpy python3-scipy). About a minute with 10,000 replicates.
"""
import sys

import numpy as np
import scipy.stats as st

RESAMPLES = 1000


def latent_scenario(rng, intercept, effect, answers, seed_sd=0.6, residual_sd=0.8):
    def cell(r, g, shift, b):
        y = np.rint(intercept + shift + b + rng.normal(0, residual_sd, size=(r, g, answers)))
        return np.clip(y, 1, 5).mean(2)

    def draw(r, g):
        b = rng.normal(0, seed_sd, size=(r, g, 1))
        return cell(r, g, effect, b) - cell(r, g, 0.0, b)

    def expected(shift):  # E[clip(round(latent))], the seed effect integrated out
        b = np.linspace(-8 * seed_sd, 8 * seed_sd, 4001)
        w = st.norm.pdf(b, 0, seed_sd)
        w /= w.sum()
        m = intercept + shift + b
        value = np.zeros_like(b)
        for s in range(1, 6):
            lo = -np.inf if s == 1 else s - 0.5
            hi = np.inf if s == 5 else s + 0.5
            value += s * (st.norm.cdf(hi, m, residual_sd) - st.norm.cdf(lo, m, residual_sd))
        return float((value * w).sum())

    return draw, expected(effect) - expected(0.0)


def share_scenario(rng, share, logit_sd, criteria):
    centre = np.log(share / (1 - share))

    def draw(r, g):
        p = 1 / (1 + np.exp(-(centre + rng.normal(0, logit_sd, size=(r, g)))))
        return rng.binomial(criteria, p) / criteria

    x = np.linspace(-8 * logit_sd, 8 * logit_sd, 4001)
    w = st.norm.pdf(x, 0, logit_sd)
    w /= w.sum()
    return draw, float((w / (1 + np.exp(-(centre + x)))).sum())


def coverage(draw, truth, g, replicates, rng):
    t = st.t.ppf(0.975, g - 1)
    tail = st.norm.cdf(-np.sqrt(g / (g - 1)) * t)
    held = dict.fromkeys(["percentile", "expanded", "t_bootstrap_se", "studentized"], 0)
    done = 0
    while done < replicates:
        r = min(500, replicates - done)
        d = draw(r, g)
        estimate = d.mean(1)
        boots = d[np.arange(r)[:, None, None], rng.integers(0, g, size=(r, RESAMPLES, g))]
        reps = boots.mean(2)
        q = np.quantile(reps, [0.025, 0.975, tail, 1 - tail], axis=1)
        half = t * reps.std(1, ddof=1) * np.sqrt(g / (g - 1))
        se = d.std(1, ddof=1) / np.sqrt(g)
        # a resample whose values are all equal has no SE: its t is +-inf (or 0 if it is the estimate)
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = np.nan_to_num((reps - estimate[:, None]) / (boots.std(2, ddof=1) / np.sqrt(g)), nan=0.0)
        qt = np.quantile(tstar, [0.975, 0.025], axis=1)
        intervals = {
            "percentile": (q[0], q[1]),
            "expanded": (q[2], q[3]),
            "t_bootstrap_se": (np.minimum(np.maximum(estimate - half, reps.min(1)), estimate),
                               np.maximum(np.minimum(estimate + half, reps.max(1)), estimate)),
            "studentized": (estimate - qt[0] * se, estimate - qt[1] * se),
        }
        for name, (lo, hi) in intervals.items():
            held[name] += int(np.sum((lo <= truth) & (truth <= hi)))
        done += r
    return {name: k / replicates for name, k in held.items()}


def main():
    replicates = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    rng = np.random.default_rng(20260601)
    scenarios = {
        "dti": latent_scenario(rng, 2.3, 0.3, 2),
        "skewed": latent_scenario(rng, 1.5, 0.5, 3),
        "share90": share_scenario(rng, 0.9, 0.8, 10),
    }
    print(f"{replicates} replicates, {RESAMPLES} resamples; Monte Carlo SE at 0.95: "
          f"{np.sqrt(0.95 * 0.05 / replicates):.4f}")
    print(f"{'scenario':9} {'truth':>7} {'G':>3}  {'percentile':>10} {'expanded':>9} {'t_boot_se':>9} {'studentized':>11}")
    for name, (draw, truth) in scenarios.items():
        for g in (6, 12, 24):
            c = coverage(draw, truth, g, replicates, rng)
            print(f"{name:9} {truth:7.4f} {g:3d}  {c['percentile']:10.4f} {c['expanded']:9.4f} "
                  f"{c['t_bootstrap_se']:9.4f} {c['studentized']:11.4f}", flush=True)


if __name__ == "__main__":
    main()
