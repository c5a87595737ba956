"""Data set lmm_escape.json: scores on which Newton from lme4's start (theta = 1) comes to
rest at theta = 0 although REMLcrit falls away from zero (the case minimise() escapes).

The scores are those of an offline MIRA run (simulated answers, heuristic judge), so they
carry no real model's behaviour; only the baseline arm's Q3 of two models is kept, with
the design of analysis rq1_q3 less its category term. Made with

    build/mirac run specs/mira.audit --data ../shared/mira-release --offline --store /tmp/esc
    /usr/bin/python3 tests/stats/reference/generate_escape.py /tmp/esc/results/scores.csv
    Rscript tests/stats/reference/generate_lmer.R escape
"""
import csv
import json
import sys

VARS = ["language", "hls", "register", "model", "condition", "seed"]
REFERENCE = {"language": "en", "hls": "high", "register": "formal", "condition": "B", "model": "gpt"}
MODELS = {"gpt", "claude"}


def main(path):
    rows = [r for r in csv.DictReader(open(path, encoding="utf-8"))
            if r["arm"] == "baseline" and r["model"] in MODELS]
    levels = {}
    for v in VARS:
        seen = list(dict.fromkeys(r[v] for r in rows))
        if v in REFERENCE:
            seen.remove(REFERENCE[v])
            seen.insert(0, REFERENCE[v])
        levels[v] = seen
    codes = {v: [levels[v].index(r[v]) for r in rows] for v in levels}
    response = [None if r["Q3"] in ("", "N/A") else int(r["Q3"]) for r in rows]
    fixed = [[], ["language"], ["hls"], ["register"], ["model"], ["condition"],
             ["language", "hls"], ["language", "register"], ["hls", "register"],
             ["language", "hls", "register"]]
    out = {"name": "escape",
           "note": "offline MIRA run, baseline arm, gpt and claude, Q3: Newton stalls at theta = 0 from theta = 1",
           "levels": levels, "codes": codes, "response": response, "fixed": fixed, "random": ["seed"],
           "generator": "/usr/bin/python3 tests/stats/reference/generate_escape.py SCORES.csv",
           "versions": {"python": sys.version.split()[0]}}
    json.dump(out, open("tests/stats/reference/lmm_escape.json", "w"), separators=(",", ":"))


main(sys.argv[1])
