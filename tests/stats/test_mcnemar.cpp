// test_mcnemar.cpp: the exact McNemar test, pinned to scipy 1.10.1's binomtest. Expected
// values come from mcnemar.json, produced by
//   /usr/bin/python3 tests/stats/reference/generate_mcnemar.py
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/stats/mcnemar.hpp"
#include "tests/stats/reference_json.hpp"

using mirac::stats::mcnemar_exact;
using mirac::stats::testing::close_rel;
using mirac::stats::testing::load_reference;

// Both sides sum the same binomial probabilities; only the last bits can differ.
constexpr double kTol = 1e-12;

TEST_CASE("mcnemar_exact matches scipy.stats.binomtest(b, b + c, 0.5).pvalue") {
  const auto ref = load_reference("mcnemar.json");
  for (const auto& c : ref["cases"]) {
    const std::size_t b = c["b"], n = c["c"];
    CAPTURE(b);
    CAPTURE(n);
    CHECK(close_rel(mcnemar_exact(b, n), c["p"].get<double>(), kTol));
  }
}

TEST_CASE("mcnemar_exact: no discordant pairs give no test") {
  CHECK(std::isnan(mcnemar_exact(0, 0)));
  CHECK(mcnemar_exact(4, 4) == doctest::Approx(1.0));
}
