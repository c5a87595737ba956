// plan_analyses.cpp: whether each analysis can run on the answers the plan would pay for,
// known before anything is sent. The values of a variable on a planned request and the
// formula's terms are read by the analyses' own code (row_variables.hpp), and the
// fixed-effects design is built by the same runtime code as at run time
// (runtime/stats/design.cpp), over the distinct planned cells rather than per request.
#include "interpreter/scores/plan_analyses.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/scores/plan_rows.hpp"
#include "interpreter/scores/row_variables.hpp"
#include "runtime/stats/design.hpp"

namespace mirac {

namespace {

using analyze::declared_levels;

// What a variable is, for messages: "factor 'language'", "model", "seed field 'category'".
std::string what_is(const Spec& spec, const std::string& v) {
  if (spec.factor_index(v) >= 0) return fmt::format("factor '{}'", v);
  if (v == "model" || v == "arm") return v;
  if (spec.is_model_group(v)) return fmt::format("model grouping '{}'", v);
  for (const auto& info : spec.seed_fields)
    if (info.name == v) return fmt::format("seed field '{}'", v);
  return fmt::format("'{}'", v);
}

std::string name_of(const ast::Expr& e) {
  const auto* n = std::get_if<ast::Name>(&e.node);
  return n ? n->name : std::string();
}

// Names in `a * b` (a `by`, `within` or `pairs` value).
void variables_of(const ast::Expr& e, std::vector<std::string>& out) {
  if (const auto* n = std::get_if<ast::Name>(&e.node)) out.push_back(n->name);
  if (const auto* b = std::get_if<ast::Binary>(&e.node); b && b->op == "*") {
    variables_of(*b->lhs, out);
    variables_of(*b->rhs, out);
  }
}

const ast::AnalysisOption* find_option(const ast::AnalysisDecl& a, const std::string& key) {
  for (const auto& o : a.options)
    if (o.key.name == key) return &o;
  return nullptr;
}

std::vector<std::string> option_variables(const ast::AnalysisDecl& a, const std::string& key) {
  std::vector<std::string> out;
  if (const auto* o = find_option(a, key))
    for (const auto& v : o->values) variables_of(v.value, out);
  return out;
}


std::string levels_text(const std::vector<std::string>& levels) {
  if (levels.empty()) return "no level";
  if (levels.size() == 1) return "only the level " + levels[0];
  return "only the levels " + fmt::format("{}", fmt::join(levels, ", "));
}

class PlanAnalyses {
 public:
  PlanAnalyses(const Spec& spec, const Plan& plan, const PlanSelection* selection, Diagnostics& diags)
      : spec_(spec), diags_(diags), selected_(selection != nullptr),
        rows_(spec, plan, selection && selection->rows ? &*selection->rows : nullptr) {
    if (selection) planned_ = selection->planned;
    for (const auto& rubric : spec.rubrics)
      for (const auto& d : rubric.dims) scores_.insert(d.name.name);
  }

  void run() {
    if (rows_.empty()) return;  // nothing is sent: nothing to count
    for (const auto& a : spec_.analyses) {
      std::optional<std::vector<std::size_t>> rows = kept(a);
      if (!rows) continue;  // its `where` reads scores: unknowable before the run
      const std::string& k = a.kind.name;
      if ((k == "lmm" || k == "clmm") && a.formula) formula(a, *rows);
      else if (k == "wilcoxon" || k == "paired") comparisons(a, *rows);
      else if (k == "spearman") spearman(a, *rows);
      else if (k == "agreement" || k == "criteria" || k == "corrected" || k == "invariance") by_groups(a, *rows);
    }
  }

 private:
  // The planned rows an analysis's `where` keeps; none when a condition reads scores or
  // cannot be evaluated here (the checker reported that).
  std::optional<std::vector<std::size_t>> kept(const ast::AnalysisDecl& a) const {
    std::vector<const ast::Expr*> conditions;
    for (const auto& o : a.options)
      if (o.key.name == "where")
        for (const auto& v : o.values) conditions.push_back(&v.value);
    return rows_.kept(conditions, scores_);
  }

  std::vector<std::size_t> all_rows() const {
    std::vector<std::size_t> all(rows_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }

  std::vector<std::string> present_levels(const std::vector<std::size_t>& rows, const std::string& v) {
    return rows_.present_levels(rows, v);
  }

  std::vector<const PlanColumn*> columns(const std::vector<std::string>& variables) {
    std::vector<const PlanColumn*> out;
    for (const auto& v : variables) out.push_back(&rows_.column(v));
    return out;
  }

  bool has_where(const ast::AnalysisDecl& a) const { return find_option(a, "where") != nullptr; }

  // Whether the plan varies `v`: a factor the design crosses, the model or the arm.
  bool crossed(const std::string& v) const {
    if (int f = spec_.factor_index(v); f >= 0) return std::find(spec_.design.begin(), spec_.design.end(), f) != spec_.design.end();
    return v == "model" || v == "arm";
  }

  // Why `v` has so few levels, and what to do, in the user's terms.
  std::pair<std::string, std::string> why_few(const ast::AnalysisDecl& a, const std::string& v) {
    const std::size_t planned = present_levels(all_rows(), v).size();
    if (has_where(a) && planned >= 2) return {"", "drop the term or widen the 'where'"};
    // A pilot's selection that keeps one level of what the spec varies: the selection is narrow.
    if (selected_ && (declared_levels(spec_, v).empty() || (declared_levels(spec_, v).size() >= 2 && crossed(v))))
      return {"", "widen the selection or drop the term"};
    if (int f = spec_.factor_index(v); f >= 0) {
      if (spec_.factors[f].levels.size() < 2) return {"(it is declared with one level)", "drop the term or add a level"};
      if (std::find(spec_.design.begin(), spec_.design.end(), f) == spec_.design.end())
        return {fmt::format("(the design does not cross '{}')", v), "drop the term or add the factor to the design"};
      return {"", "drop the term or add a level"};
    }
    if (v == "model") return {"(the spec declares one model)", "drop the term or add a model"};
    if (v == "arm") return {"(the spec declares one arm)", "drop the term or add an arm"};
    return {"", "drop the term"};
  }

  void formula(const ast::AnalysisDecl& a, const std::vector<std::size_t>& rows) {
    const std::string head = fmt::format("{} {}", a.kind.name, a.name.name);
    if (rows.empty()) {
      diags_.error(find_option(a, "where")->range,
                   fmt::format("{}: its 'where' keeps none of {}, so the model has no data", head, planned_));
      diags_.note("widen the 'where' or plan the requests it selects");
      return;
    }
    const std::vector<stats::FixedTerm> terms = analyze::expand_terms(*a.formula);
    // Each fixed variable once, at its first mention.
    std::vector<std::pair<std::string, SourceRange>> variables;
    for (const auto& t : a.formula->terms)
      if (!t.group)
        for (const auto& v : t.vars)
          if (std::none_of(variables.begin(), variables.end(), [&](const auto& p) { return p.first == v.name; }))
            variables.emplace_back(v.name, v.range);
    bool ok = true;
    std::map<std::string, stats::LevelSpec> levels;
    for (const auto& [v, range] : variables) {
      std::vector<std::string> present = present_levels(rows, v);
      if (present.size() < 2) {
        auto [why, fix] = why_few(a, v);
        diags_.error(range, fmt::format("{}: {} has {} in {}{}{}; an effect of {} needs two levels: {}",
                                        head, what_is(spec_, v), levels_text(present), planned_, has_where(a) ? " its 'where' keeps" : "",
                                        why.empty() ? "" : " " + why, v, fix));
        ok = false;
      }
      // As at run time: declared levels that occur; other variables' values as the fit sorts them.
      if (!declared_levels(spec_, v).empty()) levels[v].levels = present;
    }
    if (const auto* o = find_option(a, "reference")) {
      for (const auto& val : o->values) {
        if (!val.label) continue;
        const std::string& v = val.label->name;
        const std::string level = name_of(val.value);
        if (std::none_of(variables.begin(), variables.end(), [&](const auto& p) { return p.first == v; })) continue;
        std::vector<std::string> present = present_levels(rows, v);
        if (std::find(present.begin(), present.end(), level) != present.end()) {
          levels[v].reference = level;
          continue;
        }
        const auto declared = declared_levels(spec_, v);
        if (!declared.empty() && std::find(declared.begin(), declared.end(), level) == declared.end()) continue;  // checked
        diags_.error(val.range, fmt::format("{}: the reference level {}: {} is not in {}{} ({} has {} "
                                            "there), so no coefficient can be measured against it",
                                            head, v, level, planned_, has_where(a) ? " its 'where' keeps" : "", v,
                                            present.empty() ? std::string("none") : fmt::format("{}", fmt::join(present, ", "))));
        diags_.note(present.empty() ? "plan requests at that level"
                                    : fmt::format("name a level that is present, e.g. 'reference {}: {}'", v, present[0]));
        ok = false;
      }
    }
    ok = groups(a, head, rows) && ok;
    if (ok) ok = cells(a, head, rows, terms);
    if (ok) rank(a, head, rows, variables, terms, levels);
  }

  // A random intercept `(1 | g)` needs two groups of g to tell its variance from the residual's.
  bool groups(const ast::AnalysisDecl& a, const std::string& head, const std::vector<std::size_t>& rows) {
    bool ok = true;
    for (const auto& t : a.formula->terms) {
      if (!t.group) continue;
      const std::string& g = t.group->name;
      std::vector<std::string> present = present_levels(rows, g);
      if (present.size() >= 2) continue;
      diags_.error(t.range, fmt::format("{}: the random intercept (1 | {}) has {} group{} in {}{}{}, and its variance "
                                        "needs two: drop the term{}",
                                        head, g, present.empty() ? "no" : "one", present.size() == 1 ? "" : "s", planned_,
                                        has_where(a) ? " its 'where' keeps" : "",
                                        present.size() == 1 ? fmt::format(" (only {} {})", g, present[0]) : "",
                                        selected_ ? ", or widen the selection" : fmt::format(" or plan more than one {}", g)));
      ok = false;
    }
    return ok;
  }

  // The `by` of an agreement, criteria, corrected or invariance analysis splits its items into
  // groups: a declared level that no planned request has is a group with no items, which the
  // result leaves out. A warning: the analysis runs on the groups that have items.
  void by_groups(const ast::AnalysisDecl& a, const std::vector<std::size_t>& rows) {
    const auto* o = find_option(a, "by");
    if (!o || rows.empty()) return;
    for (const auto& v : option_variables(a, "by")) {
      const std::vector<std::string> declared = declared_levels(spec_, v);
      if (declared.size() < 2) continue;
      const std::vector<std::string> present = present_levels(rows, v);
      std::vector<std::string> absent;
      for (const auto& l : declared)
        if (std::find(present.begin(), present.end(), l) == present.end()) absent.push_back(l);
      if (absent.empty()) continue;
      diags_.warning(o->range, fmt::format("{} {}: its 'by {}' group{} {} {} no items in {}{}, so the result has no row "
                                           "for {}",
                                           a.kind.name, a.name.name, v, absent.size() == 1 ? "" : "s", fmt::join(absent, ", "),
                                           absent.size() == 1 ? "has" : "have", planned_,
                                           has_where(a) ? " its 'where' keeps" : "", absent.size() == 1 ? "it" : "them"));
      if (present.size() < 2)
        diags_.note(fmt::format("with only {} {} there is one group: drop '{}' from 'by'{}", v,
                                present.empty() ? std::string("none") : present[0], v,
                                selected_ ? ", or widen the selection" : ""));
    }
  }

  // The written term that holds the variables of `term` (`a:b` in `a * b * c`).
  SourceRange term_range(const ast::AnalysisDecl& a, const stats::FixedTerm& term) const {
    std::set<std::string> vars(term.begin(), term.end());
    for (const auto& t : a.formula->terms) {
      if (t.group) continue;
      std::set<std::string> has;
      for (const auto& v : t.vars) has.insert(v.name);
      if (std::includes(has.begin(), has.end(), vars.begin(), vars.end()) && (t.crossed || has.size() == vars.size()))
        return t.range;
    }
    return a.formula->range;
  }

  // The distinct combinations of the variables' values over `rows`.
  std::set<std::vector<std::string>> distinct_cells(const std::vector<std::size_t>& rows,
                                                    const std::vector<std::string>& variables) {
    const std::vector<const PlanColumn*> cols = columns(variables);
    std::unordered_set<CodeKey, CodeKeyHash> codes;
    CodeKey key;
    for (std::size_t i : rows) {
      PlanRows::key_of(cols, i, key);
      codes.insert(key);
    }
    std::set<std::vector<std::string>> out;
    for (const auto& cell : codes) {
      std::vector<std::string> values;
      for (std::size_t k = 0; k < cols.size(); ++k) values.push_back(cols[k]->values[cell[k]]);
      out.insert(std::move(values));
    }
    return out;
  }

  // An interaction's effects need every combination of its variables' levels: the first
  // interaction with a combination no planned request has (lower degrees first).
  bool cells(const ast::AnalysisDecl& a, const std::string& head, const std::vector<std::size_t>& rows,
             const std::vector<stats::FixedTerm>& terms) {
    for (const auto& term : terms) {
      if (term.size() < 2) continue;
      std::vector<std::vector<std::string>> levels;
      for (const auto& v : term) levels.push_back(present_levels(rows, v));
      const std::set<std::vector<std::string>> seen = distinct_cells(rows, term);
      std::size_t expected = 1;
      for (const auto& l : levels) expected *= l.size();
      if (seen.size() >= expected) continue;
      // The missing combinations, in declared order (odometer, last variable fastest).
      std::vector<std::string> missing;
      std::vector<std::size_t> at(term.size(), 0);
      for (std::size_t n = 0; n < expected; ++n) {
        std::vector<std::string> cell;
        for (std::size_t k = 0; k < term.size(); ++k) cell.push_back(levels[k][at[k]]);
        if (!seen.count(cell)) {
          std::string text;
          for (std::size_t k = 0; k < term.size(); ++k) text += (k ? ", " : "") + term[k] + " " + cell[k];
          missing.push_back(text);
        }
        for (std::size_t k = term.size(); k-- > 0;) {
          if (++at[k] < levels[k].size()) break;
          at[k] = 0;
        }
      }
      const std::size_t shown = std::min<std::size_t>(missing.size(), 3);
      std::string list;
      for (std::size_t i = 0; i < shown; ++i) list += (i ? "; " : "") + missing[i];
      if (missing.size() > shown) list += fmt::format("; and {} more", missing.size() - shown);
      diags_.error(term_range(a, term),
                   fmt::format("{}: the interaction {} needs every combination of its levels, but {} of its {} {} no "
                               "planned request{} ({}), so its effects cannot all be estimated: drop the interaction (write "
                               "'a + b' for 'a * b') or plan the missing cells",
                               head, fmt::join(term, ":"), missing.size(), expected,
                               missing.size() == 1 ? "combinations has" : "combinations have",
                               has_where(a) ? " its 'where' keeps" : "", list));
      return false;
    }
    return true;
  }

  // The fixed-effects design over the distinct planned cells: of full rank exactly when the
  // design over the planned requests is (the same rows, each once). Missing interaction
  // cells are reported before (cells()); what is left is terms that vary together.
  void rank(const ast::AnalysisDecl& a, const std::string& head, const std::vector<std::size_t>& rows,
            const std::vector<std::pair<std::string, SourceRange>>& variables,
            const std::vector<stats::FixedTerm>& terms, const std::map<std::string, stats::LevelSpec>& levels) {
    if (variables.empty() || terms.empty()) return;
    std::vector<std::string> names;
    for (const auto& [v, range] : variables) names.push_back(v);
    const std::set<std::vector<std::string>> cells = distinct_cells(rows, names);
    stats::DataFrame frame;
    for (std::size_t k = 0; k < variables.size(); ++k) {
      stats::CategoricalColumn col{variables[k].first, {}};
      for (const auto& cell : cells) col.values.push_back(cell[k]);
      frame.columns.push_back(std::move(col));
    }
    frame.response.assign(cells.size(), 0.0);
    // Whether the intercept and `subset` (terms, in order) can all be estimated; the
    // intercept stands for clmm's thresholds too.
    auto full_rank = [&](std::vector<stats::FixedTerm> subset, std::string* why) {
      subset.insert(subset.begin(), stats::FixedTerm{});
      try {
        stats::build_design(frame, subset, levels);
        return true;
      } catch (const std::invalid_argument& e) {
        if (why) *why = e.what();
        return false;
      }
    };
    std::string why;
    if (full_rank(terms, &why)) return;
    // The first term that cannot be estimated beside the terms before it...
    std::size_t bad = 0;
    while (bad + 1 < terms.size() && full_rank({terms.begin(), terms.begin() + static_cast<std::ptrdiff_t>(bad + 1)}, nullptr))
      ++bad;
    // ...and, where one alone explains it, the earlier term it goes with.
    std::string partner;
    for (std::size_t k = 0; k < bad && partner.empty(); ++k)
      if (!full_rank({terms[k], terms[bad]}, nullptr)) partner = fmt::format("{}", fmt::join(terms[k], ":"));
    const std::string term = fmt::format("{}", fmt::join(terms[bad], ":"));
    if (why.rfind("build_design: ", 0) == 0) why = why.substr(14);
    if (auto p = why.find(" (rank-deficient design)"); p != std::string::npos) why.erase(p);
    diags_.error(term_range(a, terms[bad]),
                 fmt::format("{}: the effect of {} cannot be told apart from {} in {}{} ({}): drop one "
                             "of them",
                             head, term, partner.empty() ? "the terms before it" : "that of " + partner, planned_,
                             has_where(a) ? " its 'where' keeps" : "", why));
  }

  void comparisons(const ast::AnalysisDecl& a, const std::vector<std::size_t>& rows) {
    const auto* compare = find_option(a, "compare");
    if (!compare) return;
    const std::string head = fmt::format("{} {}", a.kind.name, a.name.name);
    std::vector<std::string> groups = option_variables(a, a.kind.name == "wilcoxon" ? "within" : "by");
    std::string variable;
    for (const auto& val : compare->values) {
      if (val.label) variable = val.label->name;
      if (!val.versus || variable.empty()) continue;
      const std::string treatment = name_of(val.value), control = name_of(*val.versus);
      std::vector<std::string> keys = option_variables(a, "pairs");
      if (keys.empty()) {  // the run's default keys (pairs.cpp)
        for (const char* v : {"seed", "model", "arm"})
          if (variable != v) keys.push_back(v);
        for (const auto& f : spec_.factors)
          if (f.name != variable) keys.push_back(f.name);
        if (spec_.answers > 1 && variable != "answer") keys.push_back("answer");
      }
      std::vector<std::string> matched_on = keys;
      for (const auto& g : groups)
        if (std::find(matched_on.begin(), matched_on.end(), g) == matched_on.end()) matched_on.push_back(g);
      // Answers per side under each key, as the run matches them (pairs.cpp): a key with
      // exactly one answer on each side is a pair; one with more is left out.
      const PlanColumn& compared = rows_.column(variable);
      const auto code = [&](const std::string& level) {
        auto it = compared.code_of.find(level);
        return it == compared.code_of.end() ? std::uint64_t{1} << 32 : std::uint64_t{it->second};
      };
      const std::uint64_t treatment_code = code(treatment), control_code = code(control);
      const std::vector<const PlanColumn*> cols = columns(matched_on);
      std::unordered_map<CodeKey, std::array<std::size_t, 2>, CodeKeyHash> counts;
      CodeKey key;
      for (std::size_t i : rows) {
        const std::uint64_t value = compared.codes[i];
        const int side = value == treatment_code ? 0 : value == control_code ? 1 : -1;
        if (side < 0) continue;
        PlanRows::key_of(cols, i, key);
        ++counts[key][static_cast<std::size_t>(side)];
      }
      bool present[2] = {false, false};
      std::size_t shared = 0, duplicated = 0;
      std::unordered_map<CodeKey, std::size_t, CodeKeyHash> pairs_per_group;  // by the `within`/`by` values
      std::vector<std::size_t> group_at;
      for (const auto& g : groups) group_at.push_back(std::find(matched_on.begin(), matched_on.end(), g) - matched_on.begin());
      CodeKey group;
      for (const auto& [matched, n] : counts) {
        present[0] = present[0] || n[0] > 0;
        present[1] = present[1] || n[1] > 0;
        group.clear();
        for (std::size_t at : group_at) group.push_back(matched[at]);
        std::size_t& pairs = pairs_per_group[group];
        if (n[0] > 0 && n[1] > 0) ++shared;
        if (n[0] > 1 || n[1] > 1) ++duplicated;
        if (n[0] == 1 && n[1] == 1) ++pairs;
      }
      const std::string label = fmt::format("{}: {} vs {}", variable, treatment, control);
      const std::string after = has_where(a) ? " its 'where' keeps" : "";
      if (!present[0] || !present[1]) {
        const std::string& missing = !present[0] ? treatment : control;
        diags_.error(val.range, fmt::format("{}: {} {} is not in {}{}, so the comparison {} has "
                                            "nothing to compare",
                                            head, variable, missing, planned_, after, label));
        diags_.note(has_where(a) ? "widen the 'where', or compare levels that are planned"
                                 : "compare levels that are planned, or plan requests at that level");
        continue;
      }
      if (shared == 0) {
        diags_.error(val.range, fmt::format("{}: no planned answer at {} {} pairs with one at {} {}: the two sides "
                                            "never share {}",
                                            head, variable, treatment, variable, control, fmt::join(matched_on, ", ")));
        diags_.note("name in 'pairs' only variables that both sides share");
        continue;
      }
      // A signed-rank test needs two pairs: a comparison no group can test gives nothing.
      // Keys with several answers on a side are the run's to warn of (it leaves them out
      // and says to name every factor that varies in 'pairs'): not reported here.
      std::size_t most = 0;
      for (const auto& [group, pairs] : pairs_per_group) most = std::max(most, pairs);
      if (most >= 2 || duplicated > 0) continue;
      const std::string option = a.kind.name == "wilcoxon" ? "within" : "by";
      diags_.error(val.range,
                   fmt::format("{}: {} has {} matched pair {}{}{}, and a paired test needs 2", head,
                               label, most == 0 ? "no" : groups.empty() ? "only 1" : "at most 1",
                               groups.empty() ? "in " : fmt::format("in each '{}' group of ", option), planned_, after));
      diags_.note(groups.empty() ? std::string("plan more seeds or levels to pair")
                                 : fmt::format("drop or coarsen '{}', or plan more seeds or levels to pair", option));
    }
  }

  // A rank correlation over the `by` groups needs three of them on the audit's side.
  void spearman(const ast::AnalysisDecl& a, const std::vector<std::size_t>& rows) {
    std::vector<std::string> by = option_variables(a, "by");
    const std::vector<const PlanColumn*> cols = columns(by);
    std::unordered_set<CodeKey, CodeKeyHash> groups;
    CodeKey key;
    for (std::size_t i : rows) {
      PlanRows::key_of(cols, i, key);
      groups.insert(key);
      if (groups.size() >= 3) return;
    }
    const auto* o = find_option(a, "by");
    // A warning: the run does not fail, its result says the correlation is missing.
    const std::string count = by.empty() ? std::string("without 'by' there is one group")
                                         : fmt::format("its 'by' gives {} group{}", groups.size(), groups.size() == 1 ? "" : "s");
    diags_.warning(o ? o->range : a.name.range,
                   fmt::format("spearman {}: {} in {}{}, and a rank correlation needs 3, so its "
                               "result will have none",
                               a.name.name, count, planned_, has_where(a) ? " its 'where' keeps" : ""));
    diags_.note("correlate over variables with more planned levels, e.g. 'by model * language'");
  }

  const Spec& spec_;
  Diagnostics& diags_;
  bool selected_ = false;
  std::string planned_ = "the planned requests";  // what the rows are, in messages
  PlanRows rows_;
  std::set<std::string> scores_;
};

}  // namespace

void check_plan_analyses(const Spec& spec, const Plan& plan, Diagnostics& diags, const PlanSelection* selection) {
  PlanAnalyses(spec, plan, selection, diags).run();
}

}  // namespace mirac
