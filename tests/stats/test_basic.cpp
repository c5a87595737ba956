// test_basic.cpp: Wilcoxon, Spearman, BH, paired effect sizes and the cluster bootstrap,
// pinned to scipy 1.10.1 / statsmodels 0.13.5 / numpy 1.24.2 values.
// Every expected value below comes from basic.json, produced by
//   /usr/bin/python3 tests/stats/reference/generate_basic.py
// (the exact scipy/statsmodels call is named at each test).
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "runtime/stats/bootstrap.hpp"
#include "runtime/stats/multiple_testing.hpp"
#include "runtime/stats/nonparametric.hpp"
#include "runtime/stats/paired.hpp"
#include "runtime/stats/p_value.hpp"
#include "tests/stats/reference_json.hpp"

using namespace mirac::stats;
using mirac::stats::testing::close_rel;
using mirac::stats::testing::doubles;
using mirac::stats::testing::load_reference;

// Tolerances: statistics are sums of ranks (exact in binary) or ratios of them, compared at
// 1e-12 relative. P-values at 1e-12 relative too: both sides evaluate the same closed form
// (normal/t tail, or an exact count divided by 2^n), so only the last bits can differ.
constexpr double kTol = 1e-12;

TEST_CASE("wilcoxon_signed_rank matches scipy.stats.wilcoxon(d) defaults") {
  // scipy.stats.wilcoxon(d) and, for the z, scipy.stats.wilcoxon(d, method='approx').zstatistic
  const auto ref = load_reference("basic.json");
  for (const auto& c : ref["wilcoxon"]) {
    CAPTURE(c["name"].get<std::string>());
    const auto d = doubles(c["d"]);
    const auto r = wilcoxon_signed_rank(d);
    CHECK(close_rel(r.statistic, c["statistic"].get<double>(), kTol));
    CHECK(close_rel(r.p_value, c["pvalue"].get<double>(), kTol));
    CHECK(r.n_used == c["n_used"].get<std::size_t>());
    CHECK((r.method == WilcoxonMethod::exact) == c["exact"].get<bool>());
    if (!c["zstatistic"].is_null()) CHECK(close_rel(r.z, c["zstatistic"].get<double>(), kTol));
  }
}

TEST_CASE("wilcoxon_signed_rank: two-sample form and errors") {
  const std::vector<double> x{3, 4, 5, 6, 9}, y{1, 1, 1, 1, 1};
  const auto r = wilcoxon_signed_rank(x, y);  // all differences positive: p = 2 / 2^5
  CHECK(r.statistic == 0.0);
  CHECK(r.p_value == doctest::Approx(0.0625).epsilon(1e-15));
  CHECK_THROWS_AS(wilcoxon_signed_rank(std::vector<double>{0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(wilcoxon_signed_rank(x, std::vector<double>{1}), std::invalid_argument);
}

TEST_CASE("spearman matches scipy.stats.spearmanr(x, y)") {
  const auto ref = load_reference("basic.json");
  for (const auto& c : ref["spearman"]) {
    CAPTURE(c["name"].get<std::string>());
    const auto r = spearman(doubles(c["x"]), doubles(c["y"]));
    CHECK(close_rel(r.rho, c["rho"].get<double>(), kTol));
    if (c["name"] == "perfect_n10") {
      // numpy.corrcoef rounds rho to 1 - 1.1e-16, giving scipy p = 6.6e-64 instead of the exact
      // 0 that we return for rho = 1: agreement here is absolute, at 1e-60.
      CHECK(r.rho == 1.0);
      CHECK(std::fabs(r.p_value - c["pvalue"].get<double>()) < 1e-60);
      continue;
    }
    CHECK(close_rel(r.p_value, c["pvalue"].get<double>(), 1e-12));
  }
  CHECK(std::isnan(spearman(std::vector<double>{1, 1, 1}, std::vector<double>{1, 2, 3}).rho));
}

TEST_CASE("spearman_p_value reproduces the MIRA paper's Table 6 at n = 10") {
  // p = 2 * scipy.stats.t.sf(|t|, 8), t = rho sqrt(8 / (1 - rho^2)). The paper prints rho to
  // two decimals, so its p must lie between the p-values at rho +- 0.005.
  const auto ref = load_reference("basic.json");
  for (const auto& c : ref["spearman_table6"]) {
    const double rho = c["rho"].get<double>(), reported = c["reported_p"].get<double>();
    CAPTURE(rho);
    CHECK(close_rel(spearman_p_value(rho, 10), c["p"].get<double>(), 1e-12));
    CHECK(spearman_p_value(rho + 0.005, 10) <= reported);
    CHECK(spearman_p_value(rho - 0.005, 10) >= reported);
  }
  CHECK(spearman_p_value(0.71, 10) == doctest::Approx(0.022).epsilon(0.05));
  CHECK(spearman_p_value(0.87, 10) == doctest::Approx(0.0012).epsilon(0.15));
}

TEST_CASE("benjamini_hochberg matches statsmodels multipletests(p, method='fdr_bh')[1]") {
  const auto ref = load_reference("basic.json");
  for (const auto& c : ref["benjamini_hochberg"]) {
    CAPTURE(c["name"].get<std::string>());
    const auto q = benjamini_hochberg(doubles(c["p"]));
    const auto expected = doubles(c["q"]);
    REQUIRE(q.size() == expected.size());
    for (std::size_t i = 0; i < q.size(); ++i) CHECK(close_rel(q[i], expected[i], kTol));
  }
  CHECK_THROWS_AS(benjamini_hochberg(std::vector<double>{0.1, 1.5}), std::invalid_argument);
}

TEST_CASE("paired summary, Cohen's d_z and joint change counts match numpy / scipy") {
  // mean(d), mean(d) / d.std(ddof=1), sign counts, scipy.stats.wilcoxon(mit, base)
  const auto ref = load_reference("basic.json");
  for (const auto& c : ref["paired"]) {
    CAPTURE(c["name"].get<std::string>());
    const auto t = doubles(c["treatment"]), b = doubles(c["control"]);
    const auto s = paired_summary(t, b);
    CHECK(close_rel(s.mean_delta, c["mean_delta"].get<double>(), kTol));
    CHECK(close_rel(mean_difference(t, b), c["mean_delta"].get<double>(), kTol));
    CHECK(close_rel(s.cohen_dz, c["cohen_dz"].get<double>(), kTol));
    // scipy.stats.ttest_rel(mit, base).confidence_interval(0.95). Relative 1e-8, not 1e-12:
    // scipy 1.10's t quantile (cephes stdtrit) is off by 4e-9 relative at df = 39, where
    // Boost agrees with mpmath at 30 digits to 1 ulp (t(0.975, 39) = 2.0226909200367611).
    CHECK(close_rel(s.delta_lower, c["delta_ci"][0].get<double>(), 1e-8));
    CHECK(close_rel(s.delta_upper, c["delta_ci"][1].get<double>(), 1e-8));
    CHECK(s.n_increased == c["n_increased"].get<std::size_t>());
    CHECK(s.n_decreased == c["n_decreased"].get<std::size_t>());
    CHECK(s.n_unchanged == c["n_unchanged"].get<std::size_t>());
    REQUIRE(s.wilcoxon_defined);
    CHECK(close_rel(s.wilcoxon.p_value, c["wilcoxon_p"].get<double>(), kTol));
    CHECK(close_rel(s.wilcoxon.statistic, c["wilcoxon_statistic"].get<double>(), kTol));
    const auto joint = joint_changes(t, b, doubles(c["treatment_b"]), doubles(c["control_b"]));
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < 3; ++j) CHECK(joint.counts[i][j] == c["joint"][i][j].get<std::size_t>());
    }
  }
  const std::vector<double> same{2, 3, 4};
  const auto s = paired_summary(same, same);
  CHECK_FALSE(s.wilcoxon_defined);
  CHECK(s.n_unchanged == 3);
  CHECK(std::isnan(s.cohen_dz));
}

TEST_CASE("paired_comparisons: BH over a family of Wilcoxon tests (MIRA Table 5 shape)") {
  // per comparison scipy.stats.wilcoxon(t, base).pvalue, then
  // statsmodels multipletests(ps, method='fdr_bh')[1] over the family
  const auto ref = load_reference("basic.json");
  std::vector<PairedInput> family;
  for (const auto& c : ref["paired_family"]) {
    family.push_back({c["label"].get<std::string>(), doubles(c["treatment"]), doubles(c["control"])});
  }
  family.push_back({"all equal", {1, 2, 3}, {1, 2, 3}});  // undefined test: outside the family
  const auto out = paired_comparisons(family);
  REQUIRE(out.size() == 5);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& c = ref["paired_family"][i];
    CAPTURE(out[i].label);
    CHECK(out[i].label == c["label"].get<std::string>());
    CHECK(close_rel(out[i].summary.wilcoxon.p_value, c["p"].get<double>(), kTol));
    CHECK(close_rel(out[i].q_value, c["q"].get<double>(), kTol));
    CHECK(close_rel(out[i].summary.mean_delta, c["mean_delta"].get<double>(), kTol));
    CHECK(close_rel(out[i].summary.cohen_dz, c["cohen_dz"].get<double>(), kTol));
  }
  CHECK(std::isnan(out[4].q_value));
}

TEST_CASE("quantile_type7 matches numpy.quantile (method='linear')") {
  const auto ref = load_reference("basic.json");
  const auto& c = ref["quantile"];
  const auto v = doubles(c["values"]), q = doubles(c["q"]), e = doubles(c["expected"]);
  for (std::size_t i = 0; i < q.size(); ++i) CHECK(close_rel(quantile_type7(v, q[i]), e[i], kTol));
}

TEST_CASE("cluster_bootstrap replays the Python mt19937_64 reimplementation draw for draw") {
  // generate_basic.py re-implements std::mt19937_64 and uniform_index in Python, draws the
  // same resamples, and takes numpy.quantile(reps, [0.025, 0.975]) for the percentile
  // interval and, for the default t interval, numpy's std(reps, ddof=1) with Student's t
  // quantile solved in mpmath (t_bootstrap_se() there).
  const auto ref = load_reference("basic.json");
  const auto& c = ref["cluster_bootstrap"];
  std::mt19937_64 check(5489);
  check.discard(9999);
  CHECK(std::to_string(check()) == c["mt19937_64_seed_5489_10000th"].get<std::string>());

  const auto cluster = c["cluster"].get<std::vector<std::int64_t>>();
  const auto value = doubles(c["value"]);
  const RowStatistic mean = [&](std::span<const std::size_t> rows) {
    double s = 0.0;
    for (std::size_t r : rows) s += value[r];
    return s / static_cast<double>(rows.size());
  };
  std::mt19937_64 rng(c["seed"].get<std::uint64_t>());
  const auto b = cluster_bootstrap(cluster, mean, rng, c["resamples"].get<std::size_t>(), c["level"].get<double>(),
                                   false, IntervalMethod::percentile);
  CHECK(b.clusters == 12);
  CHECK(b.method == IntervalMethod::percentile);
  CHECK(close_rel(b.estimate, c["estimate"].get<double>(), kTol));
  const auto first = doubles(c["first_replicates"]);
  for (std::size_t i = 0; i < first.size(); ++i) CHECK(close_rel(b.replicates[i], first[i], kTol));
  CHECK(close_rel(b.lower, c["lower"].get<double>(), kTol));
  CHECK(close_rel(b.upper, c["upper"].get<double>(), kTol));

  // The default, from the same draws: only the reading of the replicates differs.
  std::mt19937_64 again(c["seed"].get<std::uint64_t>());
  const auto t = cluster_bootstrap(cluster, mean, again, c["resamples"].get<std::size_t>());
  CHECK(t.method == IntervalMethod::t_bootstrap_se);
  CHECK(t.replicates == b.replicates);
  const auto& expected = c["t_bootstrap_se"];
  CHECK(close_rel(t.standard_error, expected["standard_error"].get<double>(), kTol));
  CHECK(close_rel(t.lower, expected["lower"].get<double>(), kTol));
  CHECK(close_rel(t.upper, expected["upper"].get<double>(), kTol));

  std::mt19937_64 once_more(c["seed"].get<std::uint64_t>());  // same seed, same interval
  const auto t2 = cluster_bootstrap(cluster, mean, once_more, c["resamples"].get<std::size_t>());
  CHECK(t2.lower == t.lower);
  CHECK(t2.upper == t.upper);
  CHECK_THROWS_AS(cluster_bootstrap(cluster, mean, rng, 0), std::invalid_argument);
}

TEST_CASE("the t interval stays within the replicates, and one cluster gives the estimate") {
  // A share met by every answer of eleven seeds and by none of the twelfth: estimate 11/12,
  // and estimate + t SE would pass 1, which no resample reaches.
  std::vector<std::int64_t> cluster;
  std::vector<double> met;
  for (int seed = 0; seed < 12; ++seed)
    for (int answer = 0; answer < 4; ++answer) cluster.push_back(seed), met.push_back(seed == 11 ? 0.0 : 1.0);
  const RowStatistic share = [&](std::span<const std::size_t> rows) {
    double s = 0.0;
    for (std::size_t r : rows) s += met[r];
    return s / static_cast<double>(rows.size());
  };
  std::mt19937_64 rng(20260601);
  const auto b = cluster_bootstrap(cluster, share, rng, 500);
  CHECK(b.estimate == doctest::Approx(11.0 / 12.0).epsilon(1e-15));
  CHECK(b.upper == 1.0);
  // t_{11, 0.975} = 2.2009851600916392 (mpmath, as generate_basic.py solves it)
  const double half_width = 2.2009851600916392 * b.standard_error * std::sqrt(12.0 / 11.0);
  CHECK(b.estimate + half_width > 1.0);
  CHECK(b.lower == doctest::Approx(b.estimate - half_width).epsilon(1e-12));

  const std::vector<std::int64_t> one(5, 7);
  std::mt19937_64 rng1(1);
  const auto single = cluster_bootstrap(one, share, rng1, 50);
  CHECK(single.clusters == 1);
  CHECK(single.lower == single.estimate);
  CHECK(single.upper == single.estimate);

  CHECK(method_name(IntervalMethod::t_bootstrap_se) == "t_bootstrap_se");
  CHECK(method_name(IntervalMethod::percentile) == "percentile");
}

TEST_CASE("a p-value too small for a double is the floor, never 0") {
  // 3000 positive differences: z ~ 47, and 2 Phi(-47) underflows below the smallest double.
  std::vector<double> d(3000);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = 1.0 + static_cast<double>(i);
  const auto w = wilcoxon_signed_rank(d);
  CHECK(w.p_value == kSmallestP);
  CHECK(floor_p(0.0) == kSmallestP);
  CHECK(floor_p(0.5) == 0.5);
  CHECK(std::isnan(floor_p(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("each interval's stream: a seed per key, the same in the Python reference") {
  // stream_seed of tests/analyze/reference/generate_reference.py, written apart in Python.
  CHECK(stream_seed(7, "DTI_core/gpt") == 17503380338715793292ULL);
  CHECK(stream_seed(7, "DTI_core/claude") == 8642954744850723446ULL);
  CHECK(stream_seed(0, "") == 14087677454934409008ULL);
  CHECK(stream_seed(7, "DTI_lang/gpt") != stream_seed(7, "DTI_hls/gpt"));
  CHECK(stream_seed(8, "DTI_core/gpt") != stream_seed(7, "DTI_core/gpt"));
}
