// coefficients.cpp: `table coefficients(rq1_d3, rq1_q2, rq1_q3) { terms ... }`: linear
// mixed models side by side, one column per model, each cell the estimate with its SE and
// significance marks, as the paper's Tables 4 (selected terms) and 17 (all of them).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

// The variables of a design-matrix column's name: "language=zh:hls=low" -> {hls, language}.
std::vector<std::string> term_variables(const std::string& term) {
  std::vector<std::string> vars;
  std::size_t start = 0;
  while (start <= term.size()) {
    std::size_t end = term.find(':', start);
    if (end == std::string::npos) end = term.size();
    const std::string part = term.substr(start, end - start);
    vars.push_back(part.substr(0, part.find('=')));
    start = end + 1;
  }
  std::sort(vars.begin(), vars.end());
  return vars;
}

std::string response_of(const Json& analysis) {
  const std::string formula = text(member(&analysis, "formula"));
  const auto tilde = formula.find('~');
  std::string response = formula.substr(0, tilde == std::string::npos ? 0 : tilde);
  while (!response.empty() && response.back() == ' ') response.pop_back();
  return response;
}

const Json* fixed_term(const Json& analysis, const std::string& term) {
  if (const Json* fixed = member(&analysis, "fixed"); fixed && fixed->is_array())
    for (const auto& f : *fixed)
      if (text(member(&f, "term")) == term) return &f;
  return nullptr;
}

// "+0.117*** (0.020)": the estimate signed as the paper prints it, marks from the
// Satterthwaite t test (the normal one when the fit has no df).
std::string coefficient_cell(const Json* f) {
  if (!f) return "";
  std::optional<double> est = number(member(f, "estimate"));
  std::optional<double> p = number(member(f, "p_satterthwaite"));
  if (!p) p = number(member(f, "p_normal"));
  if (!p) p = number(member(f, "p"));  // a clmm's Wald test
  return fmt::format("{}{} ({})", signed_estimate(est), significance_marks(p), estimate(number(member(f, "se"))));
}

// The rows: every term of the models in order of first appearance (the intercept first),
// or those whose variables are one of `terms`, in the order the selectors name them.
std::vector<std::string> selected_terms(const std::vector<const Json*>& analyses, const Item& item) {
  std::vector<std::string> all;
  for (const Json* a : analyses)
    if (const Json* fixed = member(a, "fixed"); fixed && fixed->is_array())
      for (const auto& f : *fixed) {
        const std::string term = text(member(&f, "term"));
        if (std::find(all.begin(), all.end(), term) == all.end()) all.push_back(term);
      }
  if (item.terms.empty()) return all;
  std::vector<std::string> chosen;
  for (auto selector : item.terms) {
    std::sort(selector.begin(), selector.end());
    for (const auto& term : all)
      if (term_variables(term) == selector && std::find(chosen.begin(), chosen.end(), term) == chosen.end())
        chosen.push_back(term);
  }
  return chosen;
}

std::string reference_line(const Context& ctx, const std::vector<const Json*>& analyses) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  bool differ = false;
  const Json* first = member(analyses.front(), "reference");
  for (const Json* a : analyses) {
    const Json* refs = member(a, "reference");
    if (!refs || !refs->is_object()) continue;
    if (first && *refs != *first) differ = true;
    for (const auto& [factor, level] : refs->items()) {
      std::string part = fmt::format("{} = {}", factor, level_label(ctx.spec, factor, text(&level)));
      if (seen.insert(part).second) parts.push_back(std::move(part));
    }
  }
  if (parts.empty()) return "";
  return fmt::format("Reference levels{}: {}.", differ ? " (they differ between the models; see each one's table)" : "",
                     fmt::join(parts, ", "));
}

}  // namespace

void coefficients_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  std::vector<const Json*> analyses;
  for (const auto& name : item.args) {
    const Json* a = named_entry(ctx.results, "analyses", name);
    if (!a) {
      out.push_back(Note{fmt::format("Analysis {} is not in results.json (it was not computed).", name)});
    } else if (text(member(a, "kind")) != "lmm" && text(member(a, "kind")) != "clmm") {
      out.push_back(Note{fmt::format("Analysis {} is a {} analysis; coefficients are an lmm's or a clmm's.", name,
                                     text(member(a, "kind")))});
    } else if (const Json* error = member(a, "error")) {
      out.push_back(Note{fmt::format("Analysis {} could not be computed: {}", name, text(error))});
    } else {
      if (const Json* cv = member(a, "convergence"); cv && text(member(cv, "status")) != "converged")
        out.push_back(Note{fmt::format("Analysis {}: the fit ended with status '{}': {}", name, text(member(cv, "status")),
                                       text(member(cv, "message")))});
      analyses.push_back(a);
    }
  }
  if (analyses.empty()) return;

  std::vector<std::string> responses;
  for (const Json* a : analyses) responses.push_back(response_of(*a));
  Table t;
  std::vector<std::string> names;
  for (const Json* a : analyses) names.push_back(text(member(a, "name")));
  t.caption = !item.title.empty() ? item.title
                                  : fmt::format("Linear mixed models {}: estimate{} (SE)", fmt::join(names, ", "), "");
  t.header = {"term"};
  for (std::size_t i = 0; i < analyses.size(); ++i) {
    const bool ordinal = text(member(analyses[i], "kind")) == "clmm";
    const std::string label = dimension_label(ctx.spec, responses[i]) + (ordinal ? ", ordinal (log-odds)" : "");
    const bool same = std::count(responses.begin(), responses.end(), responses[i]) > 1 &&
                      std::count_if(analyses.begin(), analyses.end(), [&](const Json* o) {
                        return response_of(*o) == responses[i] && (text(member(o, "kind")) == "clmm") == ordinal;
                      }) > 1;
    t.header.push_back(same || responses[i].empty() ? fmt::format("{}: {}", names[i], label) : label);
  }
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  const std::vector<std::string> terms = selected_terms(analyses, item);
  for (const auto& term : terms) {
    std::vector<std::string> row = {term_label(ctx.spec, term)};
    for (const Json* a : analyses) row.push_back(coefficient_cell(fixed_term(*a, term)));
    t.rows.push_back(std::move(row));
  }
  if (item.terms.empty()) {
    // The variance components, as Table 17's last row; no marks, since a Wald test of a
    // variance at its boundary of 0 is not valid.
    std::vector<std::string> groups;
    for (const Json* a : analyses)
      if (const Json* random = member(a, "random"); random && random->is_array())
        for (const auto& r : *random)
          if (std::find(groups.begin(), groups.end(), text(member(&r, "group"))) == groups.end())
            groups.push_back(text(member(&r, "group")));
    for (const auto& g : groups) {
      std::vector<std::string> row = {fmt::format("{} random-intercept variance", g)};
      for (const Json* a : analyses) {
        std::string cell;
        if (const Json* random = member(a, "random"); random && random->is_array())
          for (const auto& r : *random)
            if (text(member(&r, "group")) == g)
              cell = number(member(&r, "se"))
                         ? fmt::format("{} ({})", estimate(number(member(&r, "variance"))), estimate(number(member(&r, "se"))))
                         : estimate(number(member(&r, "variance")));  // a clmm reports no SE of it
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
    std::vector<std::string> residual = {"residual variance"}, n = {"observations"};
    for (const Json* a : analyses) {
      // A clmm has thresholds instead (its own table shows them) and no residual variance.
      residual.push_back(text(member(a, "kind")) == "clmm"
                             ? ""
                             : fmt::format("{} ({})", estimate(number(member(a, "residual_variance"))),
                                           estimate(number(member(a, "residual_variance_se")))));
      n.push_back(count(number(member(a, "n"))));
    }
    t.rows.push_back(std::move(residual));
    t.rows.push_back(std::move(n));
  }
  if (terms.empty())
    out.push_back(Note{"No term of these models matches the item's `terms`: the table has no coefficients."});
  out.push_back(std::move(t));
  bool any_ordinal = false;
  for (const Json* a : analyses) any_ordinal = any_ordinal || text(member(a, "kind")) == "clmm";
  std::string foot = fmt::format("Estimates with standard errors in parentheses; {} (Satterthwaite t tests{}).",
                                 kSignificanceLegend, any_ordinal ? "; Wald z tests for the ordinal models" : "");
  if (any_ordinal)
    foot += " An ordinal model's coefficients are log-odds of a higher score, not differences of mean scores; "
            "its thresholds are in its own table.";
  if (std::string refs = reference_line(ctx, analyses); !refs.empty()) foot += " " + refs;
  if (!item.terms.empty()) foot += " Selected terms; `table coefficients(...)` without `terms` shows all of them.";
  out.push_back(Paragraph{foot});
}

}  // namespace mirac::report
