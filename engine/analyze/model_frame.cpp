// model_frame.cpp: the model frame of a formula analysis (lmm, clmm) from the score rows.
#include "engine/analyze/model_frame.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/scores/row_variables.hpp"

namespace mirac::analyze {

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


ModelFrame model_frame(const Context& ctx, const ast::AnalysisDecl& a) {
  const Spec& spec = ctx.spec;
  const ast::Formula& f = *a.formula;
  ModelFrame mf;
  mf.formula = formula_text(f);
  std::vector<std::size_t> rows = filter_rows(ctx, a.options);
  const int dim = ctx.scores.dim_index(f.response.name);
  mf.fixed = expand_terms(f);
  std::set<std::string> variables;
  for (const auto& t : mf.fixed) variables.insert(t.begin(), t.end());
  for (const auto& t : f.terms)
    if (t.group) {
      mf.random_intercepts.push_back(t.group->name);
      variables.insert(t.group->name);
    }
  stats::DataFrame& frame = mf.frame;
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
    if (auto it = reference.find(c.name); it != reference.end()) {
      ls.reference = it->second;
      const auto declared = declared_levels(spec, c.name);
      if (mf.problem.empty() && std::find(ls.levels.begin(), ls.levels.end(), ls.reference) == ls.levels.end() &&
          std::find(declared.begin(), declared.end(), ls.reference) != declared.end())
        mf.problem = fmt::format("its reference level {} = {} has no scored answers here ({} has {}), so no "
                                 "coefficient can be measured against it",
                                 c.name, ls.reference, c.name,
                                 ls.levels.empty() ? std::string("none") : fmt::format("only {}", fmt::join(ls.levels, ", ")));
    }
    mf.levels[c.name] = ls;
  }
  // The level each factor's coefficients are measured against, as the fit takes it.
  mf.references = nlohmann::ordered_json::object();
  for (const auto& [variable, levels] : mf.levels)
    if (!levels.levels.empty()) mf.references[variable] = levels.reference.empty() ? levels.levels.front() : levels.reference;
  return mf;
}

}  // namespace mirac::analyze
