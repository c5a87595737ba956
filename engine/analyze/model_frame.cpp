// model_frame.cpp: the model frame of a formula analysis (lmm, clmm) from the score rows.
#include "engine/analyze/model_frame.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

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

namespace {

// Which index of a row determines `variable`'s value: a factor's level, the model, the arm
// or the seed, or for a seed field the seed (and the level of the factor it is indexed by);
// or none (cell, prompt), when only its text does. Decided once per variable, in
// variable_value's order.
struct ValueIndex {
  enum class Kind { factor, model, arm, seed, seed_field, text } kind = Kind::text;
  std::size_t factor = 0;
  int field_factor = -1;          ///< seed_field: the factor it is indexed by, if any
  std::size_t field_levels = 1;   ///< seed_field: that factor's level count

  int of(const ScoreRow& row) const {
    switch (kind) {
      case Kind::factor: return row.levels[factor];
      case Kind::model: return row.model;
      case Kind::arm: return row.arm;
      case Kind::seed: return row.seed;
      case Kind::seed_field:
        if (row.seed < 0) return -1;
        return field_factor < 0 ? row.seed
                                : row.seed * static_cast<int>(field_levels) + row.levels[static_cast<std::size_t>(field_factor)];
      case Kind::text: break;
    }
    return -1;
  }
};

ValueIndex value_index(const Spec& spec, const std::string& variable) {
  using Kind = ValueIndex::Kind;
  if (int f = spec.factor_index(variable); f >= 0) return {Kind::factor, static_cast<std::size_t>(f)};
  if (variable == "model") return {Kind::model, 0};
  const auto grouped = [&](const auto& m) { return m.groups.count(variable) > 0; };
  if (!spec.models.empty() && std::all_of(spec.models.begin(), spec.models.end(), grouped)) return {Kind::model, 0};
  // a group of some models only: the others' rows fall through to what follows
  if (std::any_of(spec.models.begin(), spec.models.end(), grouped)) return {};
  if (variable == "arm") return {Kind::arm, 0};
  if (variable == "seed") return {Kind::seed, 0};
  if (variable == "cell" || variable == "answer" || variable == "prompt") return {};
  for (const auto& info : spec.seed_fields) {
    if (info.name != variable) continue;
    ValueIndex v{Kind::seed_field, 0, info.index_factor, 1};
    if (info.index_factor >= 0) v.field_levels = std::max<std::size_t>(spec.factors[static_cast<std::size_t>(info.index_factor)].levels.size(), 1);
    return v;
  }
  return {};
}

// `variable` over `rows`, coded: a label per distinct value and an index per row, the text
// of each value made once per index rather than once per row (issue 29: a string per row
// and variable was 24 times its 1x time at ten times MIRA). Labels may repeat (two models
// of one group); stats::code_factor maps them by their text.
stats::CategoricalColumn coded_column(const Spec& spec, const ScoreTable& scores, const std::vector<std::size_t>& rows,
                                      const std::string& variable) {
  stats::CategoricalColumn col{variable};
  col.codes.reserve(rows.size());
  std::vector<int> code_of_index;
  std::unordered_map<std::string, int> code_of_text;
  const ValueIndex indexed = value_index(spec, variable);
  for (std::size_t i : rows) {
    const ScoreRow& row = scores.rows[i];
    const int index = indexed.of(row);
    int code = -1;
    if (index >= 0) {
      const auto at = static_cast<std::size_t>(index);
      if (at >= code_of_index.size()) code_of_index.resize(at + 1, -1);
      if (code_of_index[at] < 0) {
        code_of_index[at] = static_cast<int>(col.labels.size());
        col.labels.push_back(variable_value(spec, row, variable));
      }
      code = code_of_index[at];
    } else {
      std::string text = variable_value(spec, row, variable);
      auto [it, added] = code_of_text.emplace(std::move(text), static_cast<int>(col.labels.size()));
      if (added) col.labels.push_back(it->first);
      code = it->second;
    }
    col.codes.push_back(code);
  }
  return col;
}

}  // namespace

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
  for (const auto& v : variables) frame.columns.push_back(coded_column(spec, ctx.scores, rows, v));
  std::map<std::string, std::string> reference;
  if (const auto* o = find_option(a.options, "reference"))
    for (const auto& v : o->values)
      if (v.label) reference[v.label->name] = name_of(v.value);
  // Declared levels that occur in the fit (a level without rows would be an all-zero
  // column); the reference is the one named, else the first of them.
  for (const auto& c : frame.columns) {
    std::vector<char> label_seen(c.labels.size(), 0);
    for (std::size_t r = 0; r < c.codes.size(); ++r)
      if (!is_na(frame.response[r])) label_seen[static_cast<std::size_t>(c.codes[r])] = 1;
    std::set<std::string> seen;
    for (std::size_t k = 0; k < c.labels.size(); ++k)
      if (label_seen[k]) seen.insert(c.labels[k]);
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
