// stats_lmm.cpp: times lmm_fit on the 21,600-row MIRA-like reference data set
// (tests/stats/reference/lmm_mira.json). Build: cmake --build build --target bench_stats_lmm;
// run from the source root or with MIRAC_SOURCE_DIR set. Prints seconds; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "runtime/stats/lmm.hpp"
#include "tests/stats/lmm_reference.hpp"

namespace st = mirac::stats;

int main() {
  const auto ds = st::testing::read_json_file(st::testing::reference_path("lmm_mira.json"));
  const auto c = st::testing::lmm_case(ds);
  using clock = std::chrono::steady_clock;

  auto time_fit = [&](bool satterthwaite, int reps) {
    st::LmmOptions opt;
    opt.satterthwaite = satterthwaite;
    std::vector<double> secs;
    st::LmmFit fit;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = clock::now();
      fit = st::lmm_fit(c.data, c.spec, opt);
      secs.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    std::sort(secs.begin(), secs.end());
    std::printf("lmm_fit (satterthwaite=%s): n=%zu p=%zu groups=%zu  min %.4f s  median %.4f s  (%d runs, %s)\n",
                satterthwaite ? "on" : "off", fit.n_obs, fit.fixed.size(), fit.random[0].levels, secs.front(),
                secs[secs.size() / 2], reps, st::to_string(fit.convergence.status));
  };
  time_fit(true, 7);
  time_fit(false, 7);

  // Design construction alone (string columns -> X), the part that scales with n.
  const auto t0 = clock::now();
  const auto d = st::build_design(c.data, c.spec.fixed, c.spec.levels);
  std::printf("build_design alone: %.4f s (%ld x %ld)\n",
              std::chrono::duration<double>(clock::now() - t0).count(), static_cast<long>(d.X.rows()),
              static_cast<long>(d.X.cols()));
  if (ds.contains("statsmodels")) {
    std::printf("statsmodels MixedLM.fit(reml=True) on the same data, as timed by generate_lmm.py: %.4f s\n",
                ds["statsmodels"]["fit_seconds"].get<double>());
  }
  return 0;
}
