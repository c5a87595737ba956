#include "engine/analyze/pairs.hpp"

#include <map>

namespace mirac::analyze {

Matched match_pairs(const Spec& spec, const ScoreTable& scores, const std::vector<std::size_t>& rows,
                    const std::string& variable, const std::string& treatment, const std::string& control,
                    const std::vector<std::string>& keys) {
  std::map<std::vector<std::string>, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> groups;
  for (std::size_t i : rows) {
    const ScoreRow& r = scores.rows[i];
    std::string v = variable_value(spec, r, variable);
    if (v != treatment && v != control) continue;
    std::vector<std::string> key;
    for (const auto& k : keys) key.push_back(variable_value(spec, r, k));
    auto& g = groups[key];
    (v == treatment ? g.first : g.second).push_back(i);
  }
  Matched m;
  for (const auto& [key, g] : groups) {
    if (g.first.size() > 1 || g.second.size() > 1) ++m.duplicate_keys;
    else if (g.first.empty() || g.second.empty()) ++m.unmatched;
    else m.pairs.emplace_back(g.first[0], g.second[0]);
  }
  return m;
}

PairedScores paired_scores(const ScoreTable& scores, const Matched& m, int dim) {
  PairedScores p;
  for (auto [t, c] : m.pairs) {
    double x = scores.rows[t].scores[dim], y = scores.rows[c].scores[dim];
    if (is_na(x) || is_na(y)) {
      ++p.na;
      continue;
    }
    p.treatment.push_back(x);
    p.control.push_back(y);
  }
  return p;
}

std::vector<Comparison> comparisons_of(const ast::AnalysisOption* compare) {
  std::vector<Comparison> out;
  if (!compare) return out;
  std::string variable;
  for (const auto& v : compare->values) {
    if (v.label) variable = v.label->name;
    if (!v.versus) continue;
    out.push_back({variable, name_of(v.value), name_of(*v.versus)});
  }
  return out;
}

std::vector<std::string> option_variables(const ast::AnalysisOption* option) {
  std::vector<std::string> out;
  if (!option) return out;
  for (const auto& v : option->values)
    for (auto& name : variables_of(v.value)) out.push_back(std::move(name));
  return out;
}

}  // namespace mirac::analyze

namespace mirac::analyze {

std::vector<std::string> default_keys(const Spec& spec, const std::string& variable) {
  std::vector<std::string> keys;
  for (const char* v : {"seed", "model", "arm"})
    if (variable != v) keys.push_back(v);
  for (const auto& f : spec.factors)
    if (f.name != variable) keys.push_back(f.name);
  // Answer k at one level pairs with answer k at the other: K pairs per matched prompt.
  if (spec.answers > 1 && variable != "answer") keys.push_back("answer");
  return keys;
}

const std::vector<std::string> kSummaryHeader = {"n", "mean_treatment", "mean_control", "mean_delta",
                                                 "delta_lower", "delta_upper", "cohen_dz", "increased",
                                                 "decreased", "unchanged", "statistic", "r_plus",
                                                 "r_minus", "p", "method", "z"};

nlohmann::ordered_json summary_json(const stats::PairedSummary& s) {
  nlohmann::ordered_json j{{"n", s.n},
                           {"mean_treatment", json_number(s.mean_treatment)},
                           {"mean_control", json_number(s.mean_control)},
                           {"mean_delta", json_number(s.mean_delta)},
                           {"delta_lower", json_number(s.delta_lower)},
                           {"delta_upper", json_number(s.delta_upper)},
                           {"cohen_dz", json_number(s.cohen_dz)},
                           {"increased", s.n_increased},
                           {"decreased", s.n_decreased},
                           {"unchanged", s.n_unchanged}};
  if (s.wilcoxon_defined) {
    const auto& w = s.wilcoxon;
    bool exact = w.method == stats::WilcoxonMethod::exact;
    j["wilcoxon"] = {{"statistic", json_number(w.statistic)}, {"r_plus", json_number(w.r_plus)},
                     {"r_minus", json_number(w.r_minus)}, {"p", json_number(w.p_value)}, {"n_used", w.n_used},
                     {"n_zero", w.n_zero}, {"method", exact ? "exact" : "normal"},
                     {"z", exact ? nlohmann::ordered_json() : json_number(w.z)}};
  } else {
    j["wilcoxon"] = nullptr;
  }
  return j;
}

std::vector<std::string> summary_cells(const stats::PairedSummary& s) {
  const auto& w = s.wilcoxon;
  bool exact = w.method == stats::WilcoxonMethod::exact;
  return {std::to_string(s.n), csv_number(s.mean_treatment), csv_number(s.mean_control), csv_number(s.mean_delta),
          csv_number(s.delta_lower), csv_number(s.delta_upper), csv_number(s.cohen_dz), std::to_string(s.n_increased), std::to_string(s.n_decreased), std::to_string(s.n_unchanged),
          s.wilcoxon_defined ? csv_number(w.statistic) : "", s.wilcoxon_defined ? csv_number(w.r_plus) : "",
          s.wilcoxon_defined ? csv_number(w.r_minus) : "", s.wilcoxon_defined ? csv_number(w.p_value) : "",
          s.wilcoxon_defined ? (exact ? "exact" : "normal") : "", s.wilcoxon_defined && !exact ? csv_number(w.z) : ""};
}

}  // namespace mirac::analyze
