// wilcoxon.cpp: `wilcoxon(D3) { compare condition: A vs B ... }`: signed-rank tests on
// matched answers within strata, with a multiple-testing adjustment over every test of
// the analysis (the paper's Table 5).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"

namespace mirac::analyze {

namespace {

// An option's word; `none` is a reserved word, which the grammar reads as the literal.
std::string option_word(const ast::AnalysisOption* o, const std::string& absent) {
  if (!o || o->values.empty()) return absent;
  if (std::holds_alternative<ast::NoneLit>(o->values[0].value.node)) return "none";
  return name_of(o->values[0].value);
}

}  // namespace

nlohmann::ordered_json run_wilcoxon(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  std::vector<std::size_t> rows = filter_rows(ctx, a.options);
  std::vector<std::string> within = option_variables(find_option(a.options, "within"));
  std::string adjust = option_word(find_option(a.options, "adjust"), "bh");
  // `effect none` asks for no effect size: d_z is then neither in the JSON nor a column.
  std::string effect = option_word(find_option(a.options, "effect"), "cohen_dz");
  const bool with_dz = effect != "none";
  const auto dz_column = std::find(kSummaryHeader.begin(), kSummaryHeader.end(), "cohen_dz") - kSummaryHeader.begin();
  auto summary_row = [&](const stats::PairedSummary& s) {
    std::vector<std::string> c = summary_cells(s);
    if (!with_dz) c.erase(c.begin() + dz_column);
    return c;
  };

  struct Test {
    nlohmann::ordered_json head;
    std::vector<std::string> cells;
    Matched matched;
    std::size_t na = 0;
  };
  std::vector<Test> tests;
  std::vector<stats::PairedInput> family;
  for (const Comparison& cmp : comparisons_of(find_option(a.options, "compare"))) {
    std::vector<std::string> keys = option_variables(find_option(a.options, "pairs"));
    if (keys.empty()) keys = default_keys(spec, cmp.variable);
    // Duplicates belong to a stratum's matching, which every dimension shares: counted
    // once per stratum and reported once per comparison, not once per test.
    std::size_t duplicates = 0;
    std::vector<std::string> strata;
    for (const Group& g : group_rows(spec, ctx.scores, rows, within)) {
      Matched m = match_pairs(spec, ctx.scores, g.rows, cmp.variable, cmp.treatment, cmp.control, keys);
      duplicates += m.duplicate_keys;
      if (m.duplicate_keys > 0 && !within.empty()) strata.push_back(fmt::format("{} in {}", m.duplicate_keys, group_label(g)));
      for (const auto& arg : a.args) {
        std::string dim = name_of(arg);
        PairedScores p = paired_scores(ctx.scores, m, ctx.scores.dim_index(dim));
        Test t;
        t.head = {{"compare", cmp.label()}, {"within", group_json(within, g)}, {"dimension", dim}};
        t.cells = {cmp.label(), group_label(g), dim};
        t.matched = m;
        t.na = p.na;
        tests.push_back(std::move(t));
        family.push_back({cmp.label() + " | " + group_label(g) + " | " + dim, std::move(p.treatment), std::move(p.control)});
      }
    }
    if (duplicates > 0) {
      bool one = duplicates == 1;
      ctx.diags.warning(a.name.range,
                        fmt::format("analysis {}: {} pairing key{} of {} {} more than one answer on a side and {} left "
                                    "out ({}see results.json); name every factor that varies in 'pairs'",
                                    a.name.name, duplicates, one ? "" : "s", cmp.label(), one ? "has" : "have",
                                    one ? "is" : "are", strata.empty() ? "" : fmt::format("{}; ", fmt::join(strata, ", "))));
    }
  }

  // A test needs two pairs; smaller ones are reported and kept out of the family.
  std::vector<stats::PairedInput> testable;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < family.size(); ++i)
    if (family[i].treatment.size() >= 2) {
      testable.push_back(family[i]);
      index.push_back(i);
    }
  std::vector<stats::PairedComparison> results = stats::paired_comparisons(testable);
  std::size_t m = 0;
  for (const auto& r : results) m += r.summary.wilcoxon_defined ? 1 : 0;

  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  std::vector<std::string> header = {"compare", "within", "dimension"};
  for (const auto& h : kSummaryHeader)
    if (with_dz || h != "cohen_dz") header.push_back(h);
  const std::size_t before_counts = header.size() + 1;  // through `q`
  header.insert(header.end(), {"q", "duplicate_keys", "unmatched", "na"});
  Table table{"wilcoxon_" + a.name.name, header, {}};
  for (std::size_t i = 0, k = 0; i < tests.size(); ++i) {
    Test& t = tests[i];
    nlohmann::ordered_json j = t.head;
    std::vector<std::string> cells = t.cells;
    if (k < index.size() && index[k] == i) {
      const stats::PairedComparison& r = results[k++];
      double q = r.q_value;
      if (adjust == "none" && r.summary.wilcoxon_defined) q = r.summary.wilcoxon.p_value;
      if (adjust == "bonferroni" && r.summary.wilcoxon_defined)
        q = std::min(1.0, r.summary.wilcoxon.p_value * static_cast<double>(m));
      nlohmann::ordered_json summary = summary_json(r.summary);
      if (!with_dz) summary.erase("cohen_dz");
      j.update(summary);
      j["q"] = json_number(q);
      auto s = summary_row(r.summary);
      cells.insert(cells.end(), s.begin(), s.end());
      cells.push_back(csv_number(q));
    } else {
      j["n"] = family[i].treatment.size();
      j["error"] = "fewer than 2 pairs";
      cells.push_back(std::to_string(family[i].treatment.size()));
      cells.resize(before_counts);
    }
    j["duplicate_keys"] = t.matched.duplicate_keys;
    j["unmatched"] = t.matched.unmatched;
    j["na"] = t.na;
    for (auto n : {t.matched.duplicate_keys, t.matched.unmatched, t.na}) cells.push_back(std::to_string(n));
    list.push_back(std::move(j));
    table.rows.push_back(std::move(cells));
  }
  out.tables.push_back(std::move(table));
  return {{"name", a.name.name}, {"kind", "wilcoxon"}, {"adjust", adjust}, {"effect", effect}, {"family_size", m},
          {"tests", list}};
}

}  // namespace mirac::analyze
