// test_lmm.cpp: REML fits pinned to lme4 1.1-31 / lmerTest 3.1-3 (R 4.2.2) and statsmodels
// 0.13.5 on synthetic MIRA-like data. Data and expected values come from
//   /usr/bin/python3 tests/stats/reference/generate_lmm.py   (data, statsmodels fit)
//   Rscript tests/stats/reference/generate_lmer.R            (lme4/lmerTest fit, *.lme4.json)
// The exact R / Python calls are stored in each JSON's "call" field.
//
// Tolerances. Against lme4 (run with tightened BOBYQA tolerances, see generate_lmer.R):
// estimates and SEs 1e-6 relative, Satterthwaite df 1e-6 relative, variance components 1e-6
// relative, REML criterion 1e-9 relative; p-values 1e-8 absolute (a p-value is a probability:
// small ones matter only to their order of magnitude, and 1e-8 absolute is far below any
// reported precision, while relative agreement of a 1e-60 tail would test floating noise).
// statsmodels stops its optimiser earlier (its variance estimates differ from lme4's in the
// 4th digit on these data), so against statsmodels we check estimates at 1e-4 relative
// (absolute floor 1e-6) and SEs at 1e-3, documenting agreement rather than pinning it.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "runtime/stats/lmm.hpp"
#include "tests/stats/lmm_reference.hpp"
#include "tests/stats/reference_json.hpp"

using namespace mirac::stats;
using mirac::stats::testing::close_rel;
using mirac::stats::testing::lmm_case;
using mirac::stats::testing::read_json_file;
using mirac::stats::testing::reference_path;

namespace {

struct Loaded {
  nlohmann::json data, lme4;
  LmmFit fit;
};

Loaded fit_reference(const std::string& name) {
  Loaded l;
  l.data = read_json_file(reference_path("lmm_" + name + ".json"));
  l.lme4 = read_json_file(reference_path("lmm_" + name + ".lme4.json"));
  const auto c = lmm_case(l.data);
  l.fit = lmm_fit(c.data, c.spec);
  return l;
}

void check_against_lme4(const Loaded& l) {
  const auto& r = l.lme4;
  const auto names = r["names"].get<std::vector<std::string>>();
  REQUIRE(l.fit.fixed.size() == names.size());
  for (std::size_t j = 0; j < names.size(); ++j) {
    // match by name: our term order need not be lme4's
    const auto it = std::find_if(l.fit.fixed.begin(), l.fit.fixed.end(), [&](const FixedEffect& f) { return f.name == names[j]; });
    REQUIRE_MESSAGE(it != l.fit.fixed.end(), "missing coefficient " << names[j]);
    CAPTURE(names[j]);
    const double est = r["estimate"][j], se = r["se"][j];
    CHECK(std::fabs(it->estimate - est) <= 1e-6 * std::max(std::fabs(est), se));  // 1e-6 of max(|est|, se)
    CHECK(close_rel(it->se, se, 1e-6));
    CHECK(close_rel(it->df, r["df"][j].get<double>(), 1e-6));
    CHECK(std::fabs(it->p_t - r["p"][j].get<double>()) <= 1e-8);
    CHECK(std::fabs(it->z - r["t"][j].get<double>()) <= 1e-6 * std::max(1.0, std::fabs(r["t"][j].get<double>())));
    // statsmodels-style Wald p from lme4's own estimate / se: 2 * pnorm(-|t|) in R
    CHECK(std::fabs(it->p_normal - r["p_normal"][j].get<double>()) <= 1e-8);
  }
  const auto gv = r["group_variance"].get<std::vector<double>>();
  const auto ng = r["n_groups"].get<std::vector<std::size_t>>();
  REQUIRE(l.fit.random.size() == gv.size());
  for (std::size_t k = 0; k < gv.size(); ++k) {
    CHECK(l.fit.random[k].levels == ng[k]);
    if (gv[k] > 1e-8) {
      CHECK(close_rel(l.fit.random[k].variance, gv[k], 1e-6));
    } else {
      CHECK(l.fit.random[k].variance <= 1e-8);  // both at the boundary
    }
  }
  CHECK(close_rel(l.fit.residual_variance, r["residual_variance"].get<double>(), 1e-6));
  // Wald SEs of the variances, delta method on lmerTest's vcov_varpar: 1e-6 relative
  const auto gse = r["group_variance_se"].get<std::vector<double>>();
  for (std::size_t k = 0; k < gse.size(); ++k) {
    if (gv[k] > 1e-8) CHECK(close_rel(l.fit.random[k].se, gse[k], 1e-6));
    else CHECK(std::isnan(l.fit.random[k].se));  // no Wald SE at the boundary
  }
  CHECK(close_rel(l.fit.residual_variance_se, r["residual_variance_se"].get<double>(), 1e-6));
  CHECK(close_rel(l.fit.reml_criterion, r["reml_criterion"].get<double>(), 1e-9));
  CHECK(close_rel(l.fit.log_likelihood, r["logLik"].get<double>(), 1e-9));
  CHECK(l.fit.n_obs == r["nobs"].get<std::size_t>());
}

void check_against_statsmodels(const Loaded& l) {
  const auto& s = l.data["statsmodels"];
  const auto names = s["names"].get<std::vector<std::string>>();
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto it = std::find_if(l.fit.fixed.begin(), l.fit.fixed.end(), [&](const FixedEffect& f) { return f.name == names[j]; });
    REQUIRE(it != l.fit.fixed.end());
    CAPTURE(names[j]);
    const double est = s["estimate"][j];
    CHECK(std::fabs(it->estimate - est) <= 1e-4 * std::max(std::fabs(est), 1e-2));
    CHECK(close_rel(it->se, s["se"][j].get<double>(), 1e-3));
    CHECK(std::fabs(it->p_normal - s["p"][j].get<double>()) <= 1e-3);  // follows from the se gap
  }
  CHECK(close_rel(l.fit.log_likelihood, s["llf"].get<double>(), 1e-8));  // same constant as lme4
  // summary()'s "Group Var" Std.Err., computed by statsmodels at its own (slightly early)
  // optimum: 5e-3 relative (observed 1e-3 on mira, 3e-5 on small, 1e-8 at the boundary)
  CHECK(close_rel(l.fit.random[0].se_statsmodels, s["group_variance_se_printed"].get<double>(), 5e-3));
  CHECK(l.fit.n_obs == s["nobs"].get<std::size_t>());
}

}  // namespace

TEST_CASE("lmm_fit: small unbalanced MIRA-like data (seed intercept, missing responses)") {
  const auto l = fit_reference("small");
  check_against_lme4(l);
  check_against_statsmodels(l);
  CHECK(l.fit.convergence.status == ConvergenceStatus::converged);
  CHECK(l.fit.convergence.max_abs_gradient < 1e-6);
}

TEST_CASE("lmm_fit: 21,600-row MIRA design with a 3-way interaction") {
  const auto l = fit_reference("mira");
  CHECK(l.fit.fixed.size() == 22);
  check_against_lme4(l);
  check_against_statsmodels(l);
  CHECK(l.fit.convergence.status == ConvergenceStatus::converged);
}

TEST_CASE("lmm_fit: Newton resting at theta = 0 on a falling slope is restarted to the interior optimum") {
  // From lme4's start (theta = 1) Newton steps to theta = 0, where the gradient in theta
  // vanishes although REMLcrit falls in theta^2 (slope about -2e4): minimise() restarts
  // along theta and must end at lme4's interior optimum (theta ~ 0.131).
  const auto l = fit_reference("escape");
  check_against_lme4(l);
  CHECK_FALSE(l.lme4["is_singular"].get<bool>());
  CHECK(l.fit.convergence.status == ConvergenceStatus::converged);
  CHECK(close_rel(l.fit.random[0].theta, l.lme4["theta"][0].get<double>(), 1e-6));
}

TEST_CASE("lmm_fit: crossed random intercepts (seed x skeleton) against lme4") {
  const auto l = fit_reference("crossed");
  check_against_lme4(l);
  CHECK(l.fit.convergence.status == ConvergenceStatus::converged);
}

TEST_CASE("lmm_fit: zero seed variance is reported as a boundary fit, not as converged") {
  const auto l = fit_reference("boundary");
  check_against_lme4(l);
  check_against_statsmodels(l);
  CHECK(l.lme4["is_singular"].get<bool>());           // lme4: boundary (singular) fit
  CHECK(l.data["statsmodels"]["converged"].get<bool>());  // statsmodels claims convergence
  CHECK(l.fit.convergence.status == ConvergenceStatus::boundary);
  REQUIRE(l.fit.convergence.boundary_components.size() == 1);
  CHECK(l.fit.convergence.boundary_components[0] == "seed");
  // the one-sided slope in theta^2 is positive: zero variance is the constrained optimum,
  // and it equals generate_lmm.py's independent numpy computation at theta = 0
  CHECK(close_rel(l.fit.convergence.gradient_variance_ratio[0], l.data["reml_slope_at_zero"].get<double>(), 1e-6));
  CHECK(l.fit.convergence.message.find("boundary (singular) fit: variance of seed is ~0") == 0);
}

TEST_CASE("lmm_fit: crossed intercepts with one variance at zero report that component only") {
  const auto l = fit_reference("crossed_boundary");
  check_against_lme4(l);
  CHECK(l.lme4["is_singular"].get<bool>());
  CHECK(l.fit.convergence.status == ConvergenceStatus::boundary);
  REQUIRE(l.fit.convergence.boundary_components.size() == 1);
  CHECK(l.fit.convergence.boundary_components[0] == "skeleton");
  CHECK(l.fit.random[0].theta > 0.5);  // seed variance stays interior
  // slope in theta_skeleton^2 at 0; generate_lmm.py computed it at statsmodels' seed-only
  // optimum (good to ~1e-4), hence the loose 1e-3
  CHECK(close_rel(l.fit.convergence.gradient_variance_ratio[1], l.data["reml_slope_at_zero"].get<double>(), 1e-3));
  CHECK(std::fabs(l.fit.convergence.gradient[0]) < 1e-6);  // interior component is stationary
}
