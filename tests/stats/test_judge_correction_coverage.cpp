// test_judge_correction_coverage.cpp: do the judge-corrected intervals hold the truth as
// often as they say? A planted truth (people's scores), a judge with a bias and noise, people
// scoring a random sample; over many replicates the 95% corrected intervals must cover the
// truth within three Monte Carlo standard errors of 0.95, and the judge's own interval,
// which is narrow around the wrong value, must not. docs/statistics.md, section 9, quotes
// the figures these print (doctest -s shows them). Draws come from the raw mt19937_64
// output (Box-Muller), so the figures are the same on every platform.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <span>

#include "runtime/stats/bootstrap.hpp"
#include "runtime/stats/judge_correction.hpp"

using namespace mirac::stats;

namespace {

struct Draws {
  std::mt19937_64 rng;
  explicit Draws(std::uint64_t seed) : rng(seed) {}
  double uniform() { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() { return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }
  bool bernoulli(double p) { return uniform() < p; }
  // `n` distinct indices of [0, N): the first n of a partial Fisher-Yates shuffle.
  std::vector<std::size_t> sample(std::size_t N, std::size_t n) {
    std::vector<std::size_t> all(N);
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t i = 0; i < n; ++i) std::swap(all[i], all[i + uniform_index(rng, N - i)]);
    all.resize(n);
    return all;
  }
};

// Share of replicates whose interval held the truth, and the Monte Carlo tolerance.
struct Coverage {
  std::size_t held = 0, replicates = 0;
  double width = 0;
  void add(double lower, double upper, double truth) {
    ++replicates;
    held += lower <= truth && truth <= upper ? 1 : 0;
    width += upper - lower;
  }
  double rate() const { return static_cast<double>(held) / static_cast<double>(replicates); }
  double mean_width() const { return width / static_cast<double>(replicates); }
};

double three_mc_se(std::size_t replicates) { return 3.0 * std::sqrt(0.95 * 0.05 / static_cast<double>(replicates)); }

void check_nominal(const Coverage& c, const char* what) {
  INFO(what << ": coverage " << c.rate() << " over " << c.replicates << " replicates");
  CHECK(std::fabs(c.rate() - 0.95) <= three_mc_se(c.replicates));
}

void check_misses(const Coverage& c, const char* what) {
  INFO(what << ": coverage " << c.rate());
  CHECK(c.rate() < 0.95 - three_mc_se(c.replicates));
}

constexpr std::size_t kReplicates = 2000;

}  // namespace

TEST_CASE("coverage of a mean: PPI and PPI++ hold the truth 95% of the time, the biased judge's interval does not") {
  // People's score y ~ N(3, 1); the judge says 0.8 y + 1 + N(0, 0.5^2), 0.4 high on average.
  // 2,000 answers, people score 200 of them at random. The truth is E y = 3.
  constexpr std::size_t N = 2000, n = 200;
  constexpr double truth = 3.0;
  Draws draws(20260528);
  Coverage ppi, tuned, judge, people;
  for (std::size_t r = 0; r < kReplicates; ++r) {
    std::vector<double> y(N), f(N), scored(N, std::nan(""));
    for (std::size_t i = 0; i < N; ++i) {
      y[i] = truth + draws.normal();
      f[i] = 0.8 * y[i] + 1.0 + 0.5 * draws.normal();
    }
    for (std::size_t i : draws.sample(N, n)) scored[i] = y[i];
    const PpiSums sums = ppi_sums(f, scored);
    const PpiEstimate plain = ppi_mean(sums, PpiMethod::ppi);
    const PpiEstimate power = ppi_mean(sums, PpiMethod::power_tuned);
    ppi.add(plain.corrected.lower, plain.corrected.upper, truth);
    tuned.add(power.corrected.lower, power.corrected.upper, truth);
    judge.add(plain.judge_only.lower, plain.judge_only.upper, truth);
    people.add(plain.people_only.lower, plain.people_only.upper, truth);
  }
  MESSAGE("mean: PPI " << ppi.rate() << " (width " << ppi.mean_width() << "), PPI++ " << tuned.rate() << " (width "
                       << tuned.mean_width() << "), people alone " << people.rate() << " (width " << people.mean_width()
                       << "), judge alone " << judge.rate());
  check_nominal(ppi, "PPI");
  check_nominal(tuned, "PPI++");
  check_nominal(people, "people's sample alone");
  check_misses(judge, "judge alone");
  // The point of the correction: narrower than people's sample alone (PPI++ at least).
  CHECK(tuned.mean_width() < people.mean_width());
}

TEST_CASE("coverage of a rate: Rogan-Gladen and PPI hold the truth 95% of the time, the judge's rate does not") {
  // 20% of answers truly flagged (people see the truth); the judge flags 80% of those and 10%
  // of the others, so it reports 24%. 2,000 answers, people score 300.
  constexpr std::size_t N = 2000, n = 300;
  constexpr double truth = 0.2;
  Draws draws(20260529);
  Coverage rogan, ppi, judge;
  for (std::size_t r = 0; r < kReplicates; ++r) {
    std::vector<bool> y(N), f(N), in_sample(N, false);
    for (std::size_t i = 0; i < N; ++i) {
      y[i] = draws.bernoulli(truth);
      f[i] = draws.bernoulli(y[i] ? 0.8 : 0.1);
    }
    for (std::size_t i : draws.sample(N, n)) in_sample[i] = true;
    FlagSums sums;
    for (std::size_t i = 0; i < N; ++i) {
      if (in_sample[i]) sums.add_scored_by_people(f[i], y[i]);
      else sums.add_judged(f[i]);
    }
    const RoganGladen rg = rogan_gladen(sums);
    const PpiEstimate p = ppi_mean(ppi_sums(sums), PpiMethod::ppi);
    rogan.add(rg.corrected.lower, rg.corrected.upper, truth);
    ppi.add(p.corrected.lower, p.corrected.upper, truth);
    judge.add(p.judge_only.lower, p.judge_only.upper, truth);
  }
  MESSAGE("rate: Rogan-Gladen " << rogan.rate() << " (width " << rogan.mean_width() << "), PPI " << ppi.rate() << " (width "
                                << ppi.mean_width() << "), judge alone " << judge.rate());
  check_nominal(rogan, "Rogan-Gladen");
  check_nominal(ppi, "PPI of the rate");
  check_misses(judge, "judge alone");
}

TEST_CASE("coverage of a contrast: the difference of two cells corrected on their own samples") {
  // Cell a: truth 3.2, the judge 0.5 high; cell b: truth 3.0, the judge 0.1 high. The judge's
  // contrast is 0.6, the true one 0.2. 1,000 answers a cell, people score 100 in each.
  constexpr std::size_t N = 1000, n = 100;
  constexpr double truth = 0.2;
  Draws draws(20260530);
  Coverage ppi, judge;
  auto cell = [&](double mean, double bias) {
    std::vector<double> y(N), f(N), scored(N, std::nan(""));
    for (std::size_t i = 0; i < N; ++i) {
      y[i] = mean + draws.normal();
      f[i] = y[i] + bias + 0.6 * draws.normal();
    }
    for (std::size_t i : draws.sample(N, n)) scored[i] = y[i];
    return ppi_mean(ppi_sums(f, scored), PpiMethod::ppi);
  };
  for (std::size_t r = 0; r < kReplicates; ++r) {
    const PpiEstimate a = cell(3.2, 0.5), b = cell(3.0, 0.1);
    const NormalEstimate corrected = difference(a.corrected, b.corrected);
    const NormalEstimate judged = difference(a.judge_only, b.judge_only);
    ppi.add(corrected.lower, corrected.upper, truth);
    judge.add(judged.lower, judged.upper, truth);
  }
  MESSAGE("contrast: PPI " << ppi.rate() << " (width " << ppi.mean_width() << "), judge alone " << judge.rate());
  check_nominal(ppi, "PPI contrast");
  check_misses(judge, "judge alone");
}

TEST_CASE("coverage with answers clustered by seed: the seed bootstrap of PPI holds, the i.i.d. formula does not") {
  // What `mirac analyze` faces: 40 seeds of 15 answers each, a seed effect (sd 0.6) shared by
  // a seed's answers, residual sd 0.5; the judge 0.4 high with noise sd 0.5. People score 120
  // answers at random. The truth is the mean over seeds, 3. The formula's variance takes the
  // answers as independent and is too small; resampling seeds, as the analysis does, is not.
  constexpr std::size_t seeds = 40, per_seed = 15, N = seeds * per_seed, n = 120, replicates = 400, resamples = 400;
  constexpr double truth = 3.0;
  Draws draws(20260531);
  Coverage bootstrap, formula, judge;
  std::vector<std::int64_t> cluster(seeds);
  std::iota(cluster.begin(), cluster.end(), 0);
  for (std::size_t r = 0; r < replicates; ++r) {
    std::vector<double> y(N), f(N), scored(N, std::nan(""));
    for (std::size_t s = 0; s < seeds; ++s) {
      const double effect = 0.6 * draws.normal();
      for (std::size_t k = 0; k < per_seed; ++k) {
        const std::size_t i = s * per_seed + k;
        y[i] = truth + effect + 0.5 * draws.normal();
        f[i] = y[i] + 0.4 + 0.5 * draws.normal();
      }
    }
    for (std::size_t i : draws.sample(N, n)) scored[i] = y[i];
    std::vector<PpiSums> per(seeds);
    for (std::size_t s = 0; s < seeds; ++s)
      per[s] = ppi_sums(std::span(f).subspan(s * per_seed, per_seed), std::span(scored).subspan(s * per_seed, per_seed));
    auto statistic = [&](std::span<const std::size_t> drawn) {
      PpiSums total;
      for (std::size_t s : drawn) total.add(per[s]);
      return ppi_point(total, PpiMethod::ppi);
    };
    std::mt19937_64 rng(stream_seed(20260531, std::to_string(r)));
    const BootstrapInterval ci = cluster_bootstrap(cluster, statistic, rng, resamples, 0.95, true);
    bootstrap.add(ci.lower, ci.upper, truth);
    const PpiEstimate e = ppi_mean(ppi_sums(f, scored), PpiMethod::ppi);
    formula.add(e.corrected.lower, e.corrected.upper, truth);
    judge.add(e.judge_only.lower, e.judge_only.upper, truth);
  }
  MESSAGE("clustered: seed bootstrap " << bootstrap.rate() << " (width " << bootstrap.mean_width() << "), i.i.d. formula "
                                       << formula.rate() << ", judge alone " << judge.rate());
  check_nominal(bootstrap, "seed bootstrap of PPI");
  check_misses(formula, "i.i.d. formula under clustering");
  check_misses(judge, "judge alone");
}
