// lmm.cpp: `lmm(D3 ~ a * b + c + (1 | seed))`: fits the model frame (model_frame.cpp) with
// runtime/stats (REML, treatment coding, random intercepts).
#include <cmath>

#include <fmt/format.h>

#include "engine/analyze/model_frame.hpp"
#include "engine/analyze/parts.hpp"
#include "runtime/stats/lmm.hpp"

namespace mirac::analyze {

nlohmann::ordered_json run_lmm(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  ModelFrame mf = model_frame(ctx, a);
  stats::LmmSpec model;
  model.fixed = std::move(mf.fixed);
  model.fixed.insert(model.fixed.begin(), stats::FixedTerm{});  // the intercept
  model.random_intercepts = std::move(mf.random_intercepts);
  model.levels = std::move(mf.levels);
  const stats::DataFrame& frame = mf.frame;
  nlohmann::ordered_json j{{"name", a.name.name}, {"kind", "lmm"}, {"formula", mf.formula}};
  j["reference"] = std::move(mf.references);
  if (!mf.problem.empty()) {
    report_unsupported(ctx, a, mf.problem, j);
    return j;
  }
  stats::LmmFit fit;
  try {
    fit = stats::lmm_fit(frame, model);
  } catch (const std::invalid_argument& e) {
    report_unsupported(ctx, a, e.what(), j);
    return j;
  }
  j["n"] = fit.n_obs;
  nlohmann::ordered_json fixed = nlohmann::ordered_json::array();
  Table table{"lmm_" + a.name.name, {"term", "estimate", "se", "z", "p_normal", "df", "p_satterthwaite"}, {}};
  for (const auto& fe : fit.fixed) {
    fixed.push_back({{"term", fe.name}, {"estimate", json_number(fe.estimate)}, {"se", json_number(fe.se)},
                     {"z", json_number(fe.z)}, {"p_normal", json_number(fe.p_normal)}, {"df", json_number(fe.df)},
                     {"p_satterthwaite", json_number(fe.p_t)}});
    table.rows.push_back({fe.name, csv_number(fe.estimate), csv_number(fe.se), csv_number(fe.z), csv_number(fe.p_normal),
                          csv_number(fe.df), csv_number(fe.p_t)});
  }
  j["fixed"] = std::move(fixed);
  nlohmann::ordered_json random = nlohmann::ordered_json::array();
  for (const auto& vc : fit.random)
    random.push_back({{"group", vc.group}, {"groups", vc.levels}, {"variance", json_number(vc.variance)},
                      {"theta", json_number(vc.theta)}, {"se", json_number(vc.se)},
                      {"se_statsmodels", json_number(vc.se_statsmodels)}});
  j["random"] = std::move(random);
  j["residual_variance"] = json_number(fit.residual_variance);
  j["residual_variance_se"] = json_number(fit.residual_variance_se);
  // Each level's share of the variance the fixed terms leave: with (1 | seed) + (1 | prompt)
  // over several answers per prompt, the split into seed, prompt and answer parts.
  double total = fit.residual_variance;
  for (const auto& vc : fit.random) total += vc.variance;
  nlohmann::ordered_json shares = nlohmann::ordered_json::object();
  for (const auto& vc : fit.random) shares[vc.group] = json_number(total > 0 ? vc.variance / total : std::nan(""));
  shares["residual"] = json_number(total > 0 ? fit.residual_variance / total : std::nan(""));
  j["variance_shares"] = std::move(shares);
  j["reml_criterion"] = json_number(fit.reml_criterion);
  j["log_likelihood"] = json_number(fit.log_likelihood);
  const auto& cv = fit.convergence;
  j["convergence"] = {{"status", stats::to_string(cv.status)}, {"converged", cv.status == stats::ConvergenceStatus::converged},
                      {"iterations", cv.iterations}, {"max_abs_gradient", json_number(cv.max_abs_gradient)},
                      {"newton_step", json_number(cv.newton_step)}, {"boundary_components", cv.boundary_components},
                      {"message", cv.message}};
  if (cv.status != stats::ConvergenceStatus::converged)
    ctx.diags.warning(a.name.range, fmt::format("analysis {}: {}", a.name.name, cv.message));
  out.tables.push_back(std::move(table));
  return j;
}

}  // namespace mirac::analyze
