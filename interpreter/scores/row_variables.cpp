// row_variables.cpp: a row's variables and a formula's fixed terms (row_variables.hpp).
#include "interpreter/scores/row_variables.hpp"

#include <algorithm>

namespace mirac::analyze {

std::string variable_value(const Spec& spec, const ScoreRow& row, const std::string& variable) {
  int f = spec.factor_index(variable);
  if (f >= 0) return spec.factors[f].levels[row.levels[f]].name.name;
  if (variable == "model") return spec.models[row.model].name;
  if (auto g = spec.models[row.model].groups.find(variable); g != spec.models[row.model].groups.end()) return g->second;
  if (variable == "arm") return spec.arms[row.arm].name;
  const Seed& seed = spec.seeds[row.seed];
  if (variable == "seed") return seed.id;
  if (variable == "cell") {
    std::string key;
    for (int d : spec.design) key += (key.empty() ? "" : ".") + spec.factors[d].levels[row.levels[d]].name.name;
    return key;
  }
  // Several answers per prompt: which one (from 1), and the prompt they answer (its seed and
  // cell), the group of a random intercept per prompt, `(1 | prompt)`.
  if (variable == "answer") return std::to_string(row.answer + 1);
  if (variable == "prompt") {
    std::string key = seed.id;
    for (std::size_t f = 0; f < row.levels.size(); ++f) key += "|" + spec.factors[f].levels[row.levels[f]].name.name;
    return key;
  }
  for (const auto& info : spec.seed_fields) {
    if (info.name != variable) continue;
    std::string key = info.index_factor >= 0
                          ? variable + "." + spec.factors[info.index_factor].levels[row.levels[info.index_factor]].name.name
                          : variable;
    auto it = seed.fields.find(key);
    return it == seed.fields.end() ? std::string() : it->second;
  }
  return std::string();
}

std::vector<std::string> declared_levels(const Spec& spec, const std::string& variable) {
  if (int f = spec.factor_index(variable); f >= 0) return spec.factors[f].level_names();
  std::vector<std::string> out;
  if (variable == "model")
    for (const auto& m : spec.models) out.push_back(m.name);
  if (variable == "arm")
    for (const auto& a : spec.arms) out.push_back(a.name);
  return out;
}

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
  return terms;
}

}  // namespace mirac::analyze
