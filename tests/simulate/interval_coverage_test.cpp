// interval_coverage_test.cpp: the contrasts' 95% cluster-bootstrap intervals hold the truth
// 95% of the time at 12 and 24 seeds, and a contrast whose truth is zero is declared
// non-zero 5% of the time. Driven through `mirac simulate`'s power study on
// tests/simulate/fixtures/intervals.audit: a DTI-type contrast (a difference of two cell
// means, two answers per seed in each cell, a seed random intercept and per-answer noise,
// scores rounded and clipped to 1..5), and a contrast of two cells no effect separates.
// Every replicate is analysed by the code `mirac analyze` runs (add_contrasts, hence
// cluster_bootstrap with its default interval, t_bootstrap_se), and the truth is computed
// from the exact expected scores, so the only slack is Monte Carlo error: each check allows
// three Monte Carlo standard errors of a share at its nominal value, sqrt(p (1 - p) / R).
// This study gives DTI coverage 0.9425 and 0.95 at 12 and 24 seeds, NULL's 0.9505 and
// 0.9575 (rejected 4.95% and 4.25% of the time); the same figures as
//   mirac simulate tests/simulate/fixtures/intervals.audit --seeds 12,24 --replicates 2000 --resamples 500
//
// The test can fail: with the percentile interval (IntervalMethod::percentile as the
// default) the same study gives DTI coverage 0.8995 at 12 seeds and 0.926 at 24, NULL's
// 0.925 and 0.943, NULL rejected 7.5% and 5.7% of the time: four checks fail, at 12 seeds
// and at 24 (docs/statistics.md, section 6, has the figures over 20,000 replicates).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "engine/audit.hpp"
#include "engine/simulate/power.hpp"
#include "runtime/stats/bootstrap.hpp"

#include "tests/simulate/simulate_support.hpp"

using simulate_test::fixture;

namespace {

const mirac::QuantitySummary* find(const mirac::PowerStudy& s, const std::string& source, std::size_t seeds) {
  for (const auto& q : s.quantities)
    if (q.source == source && q.seeds == seeds) return &q;
  return nullptr;
}

// Three Monte Carlo standard errors of a share whose true value is `p`, over `replicates`.
double three_mcse(double p, std::size_t replicates) {
  return 3 * std::sqrt(p * (1 - p) / static_cast<double>(replicates));
}

}  // namespace

TEST_CASE("contrast intervals cover at their level and reject a true zero at alpha, from 12 seeds up") {
  mirac::AuditOptions o;
  o.spec = fixture("intervals.audit");
  o.offline = true;
  mirac::Audit audit = mirac::open_audit(o);
  REQUIRE(audit.ok());

  constexpr std::size_t kReplicates = 2000;
  mirac::PowerOptions options;
  options.replicates = kReplicates;
  // The smallest design whose coverage the analysis vouches for, and twice it.
  options.seeds = {mirac::stats::kSmallestVerifiedClusters, 2 * mirac::stats::kSmallestVerifiedClusters};
  options.resamples = 500;
  std::atomic<bool> cancel{false};
  const mirac::PowerStudy study = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  REQUIRE(study.replicates == kReplicates);

  for (std::size_t seeds : options.seeds) {
    CAPTURE(seeds);
    const auto* dti = find(study, "DTI", seeds);
    const auto* null = find(study, "NULL", seeds);
    REQUIRE(dti != nullptr);
    REQUIRE(null != nullptr);
    CHECK_FALSE(dti->null);
    CHECK(dti->truth > 0.2);  // hls == low: +0.3 on the latent scale, less after clipping
    REQUIRE(null->null);

    REQUIRE(dti->with_interval == kReplicates);
    REQUIRE(null->with_interval == kReplicates);
    CAPTURE(dti->coverage);
    CAPTURE(null->coverage);
    CAPTURE(null->rejection);
    CHECK(std::abs(dti->coverage - 0.95) < three_mcse(0.95, kReplicates));
    CHECK(std::abs(null->coverage - 0.95) < three_mcse(0.95, kReplicates));
    // The type I error rate: NULL's interval without zero.
    REQUIRE(null->tested == kReplicates);
    CHECK(std::abs(null->rejection - 0.05) < three_mcse(0.05, kReplicates));
  }
}
