// clmm.cpp: `clmm(D3 ~ a * b + c + (1 | seed))`: the ordinal (cumulative-logit) counterpart
// of lmm.cpp. The scores are taken as ordered categories, not as numbers: N/A is dropped, a
// score that is not a whole number is an error of the data, reported at the analysis.
#include <fmt/format.h>

#include "engine/analyze/model_frame.hpp"
#include "engine/analyze/parts.hpp"
#include "runtime/stats/clmm.hpp"

namespace mirac::analyze {

nlohmann::ordered_json run_clmm(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  ModelFrame mf = model_frame(ctx, a);
  nlohmann::ordered_json j{{"name", a.name.name}, {"kind", "clmm"}, {"formula", mf.formula}};
  j["reference"] = std::move(mf.references);
  stats::ClmmSpec model;
  model.fixed = std::move(mf.fixed);
  model.levels = std::move(mf.levels);
  model.random_intercept = mf.random_intercepts.empty() ? std::string() : mf.random_intercepts.front();
  if (!mf.problem.empty()) {
    report_unsupported(ctx, a, mf.problem, j);
    return j;
  }
  stats::ClmmFit fit;
  try {
    if (mf.random_intercepts.size() != 1)
      throw std::invalid_argument("clmm_fit: exactly one random intercept, e.g. (1 | seed), is supported");
    fit = stats::clmm_fit(mf.frame, model);
  } catch (const std::invalid_argument& e) {
    report_unsupported(ctx, a, e.what(), j);
    return j;
  }
  j["n"] = fit.n_obs;
  j["categories"] = fit.categories;
  Table table{"clmm_" + a.name.name, {"part", "term", "estimate", "se", "z", "p"}, {}};
  nlohmann::ordered_json fixed = nlohmann::ordered_json::array();
  for (const auto& fe : fit.fixed) {
    fixed.push_back({{"term", fe.name}, {"estimate", json_number(fe.estimate)}, {"se", json_number(fe.se)},
                     {"z", json_number(fe.z)}, {"p", json_number(fe.p)}});
    table.rows.push_back({"fixed", fe.name, csv_number(fe.estimate), csv_number(fe.se), csv_number(fe.z), csv_number(fe.p)});
  }
  j["fixed"] = std::move(fixed);
  nlohmann::ordered_json thresholds = nlohmann::ordered_json::array();
  for (const auto& t : fit.thresholds) {
    thresholds.push_back({{"name", t.name}, {"estimate", json_number(t.estimate)}, {"se", json_number(t.se)}});
    table.rows.push_back({"threshold", t.name, csv_number(t.estimate), csv_number(t.se), "", ""});
  }
  j["thresholds"] = std::move(thresholds);
  j["random"] = nlohmann::ordered_json::array(
      {{{"group", fit.group}, {"groups", fit.groups}, {"variance", json_number(fit.variance)}, {"sd", json_number(fit.sd)}}});
  j["log_likelihood"] = json_number(fit.log_likelihood);
  const auto& cv = fit.convergence;
  j["convergence"] = {{"status", stats::to_string(cv.status)}, {"converged", cv.status == stats::ClmmStatus::converged},
                      {"iterations", cv.iterations}, {"max_abs_gradient", json_number(cv.max_abs_gradient)},
                      {"newton_step", json_number(cv.newton_step)},
                      {"hessian_positive_definite", cv.hessian_positive_definite},
                      {"condition_number", json_number(cv.condition_number)}, {"message", cv.message}};
  if (cv.status != stats::ClmmStatus::converged)
    ctx.diags.warning(a.name.range, fmt::format("analysis {}: {}", a.name.name, cv.message));
  out.tables.push_back(std::move(table));
  return j;
}

}  // namespace mirac::analyze
