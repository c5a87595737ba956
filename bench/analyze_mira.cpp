// analyze_mira.cpp: a whole `mirac analyze` of specs/mira.audit on 43,200 synthetic rows
// (60 seeds x 72 cells x 5 models x 2 arms), phase by phase, and the same rq1_d3 LMM in
// statsmodels when /usr/bin/python3 has it. Run from the source root:
//   cmake --build build --target bench_analyze_mira && build/bench/bench_analyze_mira [RELEASE_DIR]
// Prints timings only; nothing is asserted (docs/performance.md records the figures).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "engine/audit.hpp"
#include "tests/analyze/synthetic_scores.hpp"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path release = argc > 1 ? argv[1] : "../shared/mira-release";
  if (!std::filesystem::exists(release / "seedfinal.csv")) {
    std::cerr << "bench_analyze_mira: no release at " << release << " (pass its directory)\n";
    return 1;
  }
  mirac::CheckOptions options;
  options.data_root = release;
  auto t0 = std::chrono::steady_clock::now();
  auto c = mirac::compile("specs/mira.audit", options);
  if (!c->ok()) {
    c->diags.print(std::cerr, c->sources);
    return 1;
  }
  std::cout << "compile specs/mira.audit           " << seconds_since(t0) << " s\n";
  const auto dir = std::filesystem::temp_directory_path() / "mirac_bench_analyze";
  std::filesystem::create_directories(dir);
  const auto scores = dir / "scores.csv";
  std::ofstream(scores, std::ios::binary) << analyze_test::synthetic_scores_csv(c->spec, 42);

  t0 = std::chrono::steady_clock::now();
  auto table = mirac::analyze::load_scores(c->spec, scores, c->sources, c->diags);
  std::cout << "load 43,200 score rows             " << seconds_since(t0) << " s\n";
  if (!table) return 1;
  for (std::size_t resamples : {std::size_t{200}, std::size_t{2000}}) {
    mirac::analyze::AnalyzeOptions ao;
    ao.resamples = resamples;
    t0 = std::chrono::steady_clock::now();
    auto out = mirac::analyze::analyze_scores(c->spec, *table, ao, c->sources, c->diags);
    std::cout << "analyze_scores (" << resamples << " resamples)     " << seconds_since(t0) << " s\n";
  }
  // The LMM alone: a spec holding only rq1_d3.
  mirac::Spec lmm_only = c->spec;
  lmm_only.analyses.resize(1);
  lmm_only.flags.clear();
  lmm_only.contrasts.clear();
  t0 = std::chrono::steady_clock::now();
  mirac::analyze::analyze_scores(lmm_only, *table, {}, c->sources, c->diags);
  std::cout << "rq1_d3 lmm (21,600 rows, 22 terms)  " << seconds_since(t0) << " s (with means)\n";

  t0 = std::chrono::steady_clock::now();
  mirac::AuditOptions whole;
  whole.spec = "specs/mira.audit", whole.data = release.string(), whole.scores = scores.string();
  whole.out_dir = (dir / "out").string(), whole.seed = 1;
  mirac::AuditEvents quiet;
  int code = mirac::analyze_only(whole, quiet).code;
  std::cout << "analyze_only, whole command        " << seconds_since(t0) << " s (exit " << code << ")\n";

  std::cout.flush();
  if (std::system("/usr/bin/python3 -c 'import statsmodels' 2>/dev/null") == 0) {
    const auto py = dir / "statsmodels_lmm.py";
    std::ofstream(py) << R"PY(import sys, time, warnings
import pandas as pd, statsmodels.formula.api as smf
df = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
seeds = pd.read_csv(sys.argv[2], dtype=str)
df = df.merge(seeds[["seed_id", "category"]].rename(columns={"seed_id": "seed"}), on="seed")
df = df[(df.arm == "baseline") & (df.D3 != "")].copy()
df["D3"] = df.D3.astype(float)
f = ("D3 ~ C(language, Treatment('en')) * C(hls, Treatment('high')) * C(register, Treatment('formal'))"
     " + C(model, Treatment('gpt')) + C(condition, Treatment('B')) + C(category)")
best = 1e9
for _ in range(3):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        smf.mixedlm(f, df, groups=df["seed"]).fit(reml=True)
    best = min(best, time.perf_counter() - t0)
print(f"statsmodels MixedLM, same model     {best:.3f} s (best of 3, {len(df)} rows)")
)PY";
    std::string cmd = "/usr/bin/python3 " + py.string() + " " + scores.string() + " " + (release / "seedfinal.csv").string();
    if (std::system(cmd.c_str()) != 0) std::cout << "statsmodels run failed\n";
  } else {
    std::cout << "statsmodels not installed: no comparison\n";
  }
  return 0;
}
