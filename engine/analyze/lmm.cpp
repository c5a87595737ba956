// lmm.cpp: `lmm(D3 ~ a * b + c + (1 | seed))`: builds the model frame from the score rows
// and fits it with runtime/stats (REML, treatment coding, random intercepts).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "engine/analyze/parts.hpp"
#include "runtime/stats/lmm.hpp"

namespace mirac::analyze {

namespace {

// `a*b*c` is every non-empty subset of {a, b, c}; `a:b` the interaction alone. Terms are
// ordered by degree, then as written, which is R's and patsy's order.
std::vector<stats::FixedTerm> expand_terms(const ast::Formula& f) {
  std::vector<stats::FixedTerm> terms;
  auto add = [&](stats::FixedTerm t) {
    auto same = [&](const stats::FixedTerm& u) {
      return std::is_permutation(u.begin(), u.end(), t.begin(), t.end());
    };
    if (std::none_of(terms.begin(), terms.end(), same)) terms.push_back(std::move(t));
  };
  for (const auto& t : f.terms) {
    if (t.group) continue;
    std::vector<std::string> vars;
    for (const auto& v : t.vars) vars.push_back(v.name);
    if (!t.crossed) {
      add(vars);
      continue;
    }
    for (std::size_t mask = 1; mask < (std::size_t{1} << vars.size()); ++mask) {
      stats::FixedTerm sub;
      for (std::size_t i = 0; i < vars.size(); ++i)
        if (mask & (std::size_t{1} << i)) sub.push_back(vars[i]);
      add(sub);
    }
  }
  std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  terms.insert(terms.begin(), stats::FixedTerm{});
  return terms;
}

// Declared level order of a variable (factor, model, arm), or empty for seed fields.
std::vector<std::string> declared_levels(const Spec& spec, const std::string& v) {
  std::vector<std::string> out;
  if (int f = spec.factor_index(v); f >= 0) return spec.factors[f].level_names();
  if (v == "model")
    for (const auto& m : spec.models) out.push_back(m.name);
  if (v == "arm")
    for (const auto& a : spec.arms) out.push_back(a.name);
  return out;
}

std::string formula_text(const ast::Formula& f) {
  std::string s = f.response.name + " ~ ";
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    const auto& t = f.terms[i];
    if (i) s += " + ";
    if (t.group) {
      s += "(1 | " + t.group->name + ")";
      continue;
    }
    for (std::size_t k = 0; k < t.vars.size(); ++k) s += (k ? (t.crossed ? " * " : ":") : "") + t.vars[k].name;
  }
  return s;
}

}  // namespace

nlohmann::ordered_json run_lmm(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  const ast::Formula& f = *a.formula;
  std::vector<std::size_t> rows = filter_rows(ctx, a.options);
  const int dim = ctx.scores.dim_index(f.response.name);
  stats::LmmSpec model;
  model.fixed = expand_terms(f);
  std::set<std::string> variables;
  for (const auto& t : model.fixed) variables.insert(t.begin(), t.end());
  for (const auto& t : f.terms)
    if (t.group) {
      model.random_intercepts.push_back(t.group->name);
      variables.insert(t.group->name);
    }
  stats::DataFrame frame;
  for (std::size_t i : rows) frame.response.push_back(ctx.scores.rows[i].scores[dim]);
  for (const auto& v : variables) {
    stats::CategoricalColumn col{v, {}};
    col.values.reserve(rows.size());
    for (std::size_t i : rows) col.values.push_back(variable_value(spec, ctx.scores.rows[i], v));
    frame.columns.push_back(std::move(col));
  }
  std::map<std::string, std::string> reference;
  if (const auto* o = find_option(a.options, "reference"))
    for (const auto& v : o->values)
      if (v.label) reference[v.label->name] = name_of(v.value);
  // Declared levels that occur in the fit (a level without rows would be an all-zero
  // column); the reference is the one named, else the first of them.
  for (const auto& c : frame.columns) {
    std::set<std::string> seen;
    for (std::size_t r = 0; r < c.values.size(); ++r)
      if (!is_na(frame.response[r])) seen.insert(c.values[r]);
    stats::LevelSpec ls;
    for (const auto& l : declared_levels(spec, c.name))
      if (seen.count(l)) ls.levels.push_back(l);
    if (auto it = reference.find(c.name); it != reference.end()) ls.reference = it->second;
    model.levels[c.name] = ls;
  }

  nlohmann::ordered_json j{{"name", a.name.name}, {"kind", "lmm"}, {"formula", formula_text(f)}};
  // The level each factor's coefficients are measured against, as the fit takes it.
  nlohmann::ordered_json references = nlohmann::ordered_json::object();
  for (const auto& [variable, levels] : model.levels)
    if (!levels.levels.empty()) references[variable] = levels.reference.empty() ? levels.levels.front() : levels.reference;
  j["reference"] = std::move(references);
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
