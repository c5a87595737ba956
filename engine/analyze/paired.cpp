// paired.cpp: `paired(D3, Q2, Q3) { compare arm: mitigation vs baseline by model }`:
// treatment minus control on matched answers per group and dimension (the paper's
// Table 18), with counts of joint patterns such as "D3 worse and Q3 worse" (Appendix G).
#include <fmt/format.h>

#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"
#include "interpreter/scores/row_scope.hpp"

namespace mirac::analyze {

nlohmann::ordered_json run_paired(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  std::vector<std::size_t> rows = filter_rows(ctx, a.options);
  std::vector<std::string> by = option_variables(find_option(a.options, "by"));
  std::vector<Comparison> comparisons = comparisons_of(find_option(a.options, "compare"));
  const auto* patterns = find_option(a.options, "patterns");
  std::vector<std::string> header = {"compare", "group", "dimension"};
  header.insert(header.end(), kSummaryHeader.begin(), kSummaryHeader.end());
  header.push_back("q");
  Table table{"paired_" + a.name.name, header, {}};
  Table pattern_table{"patterns_" + a.name.name, {"compare", "group", "pattern", "count", "pairs", "rate"}, {}};

  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Comparison& cmp : comparisons) {
    std::vector<std::string> keys = option_variables(find_option(a.options, "pairs"));
    if (keys.empty()) keys = default_keys(spec, cmp.variable);
    // One family per comparison: every group x dimension, BH over their Wilcoxon p-values.
    std::vector<stats::PairedInput> family;
    struct Slot {
      std::size_t group;
      std::string dim;
      bool testable;
    };
    std::vector<Slot> slots;
    std::vector<Group> groups = group_rows(spec, ctx.scores, rows, by);
    std::vector<Matched> matched;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      matched.push_back(match_pairs(spec, ctx.scores, groups[gi].rows, cmp.variable, cmp.treatment, cmp.control, keys));
      for (const auto& arg : a.args) {
        PairedScores p = paired_scores(ctx.scores, matched.back(), ctx.scores.dim_index(name_of(arg)));
        bool ok = p.treatment.size() >= 2;
        slots.push_back({gi, name_of(arg), ok});
        if (ok) family.push_back({name_of(arg), std::move(p.treatment), std::move(p.control)});
      }
    }
    // Reported once per comparison, as wilcoxon does: every dimension shares the matching.
    std::size_t duplicates = 0;
    for (const auto& m : matched) duplicates += m.duplicate_keys;
    if (duplicates > 0) {
      bool one = duplicates == 1;
      ctx.diags.warning(a.name.range,
                        fmt::format("analysis {}: {} pairing key{} of {} {} more than one answer on a side and {} left "
                                    "out (see results.json); name every factor that varies in 'pairs'",
                                    a.name.name, duplicates, one ? "" : "s", cmp.label(), one ? "has" : "have",
                                    one ? "is" : "are"));
    }
    std::vector<stats::PairedComparison> results = stats::paired_comparisons(family);
    nlohmann::ordered_json group_list = nlohmann::ordered_json::array();
    for (std::size_t gi = 0, s = 0, k = 0; gi < groups.size(); ++gi) {
      const Group& g = groups[gi];
      const Matched& m = matched[gi];
      nlohmann::ordered_json entry = group_json(by, g);
      entry["pairs"] = m.pairs.size();
      entry["duplicate_keys"] = m.duplicate_keys;
      entry["unmatched"] = m.unmatched;
      nlohmann::ordered_json dims = nlohmann::ordered_json::object();
      for (; s < slots.size() && slots[s].group == gi; ++s) {
        std::vector<std::string> cells = {cmp.label(), group_label(g), slots[s].dim};
        if (!slots[s].testable) {
          dims[slots[s].dim] = {{"error", "fewer than 2 pairs"}};
          cells.resize(header.size());
        } else {
          const auto& r = results[k++];
          nlohmann::ordered_json d = summary_json(r.summary);
          d["q"] = json_number(r.q_value);
          dims[slots[s].dim] = std::move(d);
          auto c = summary_cells(r.summary);
          cells.insert(cells.end(), c.begin(), c.end());
          cells.push_back(csv_number(r.q_value));
        }
        table.rows.push_back(std::move(cells));
      }
      entry["dimensions"] = std::move(dims);
      if (patterns) {
        // Patterns read every dimension's delta on the same pair; N/A deltas make a
        // comparison false, so such a pair counts in `pairs` but never in `count`.
        nlohmann::ordered_json plist = nlohmann::ordered_json::array();
        for (const auto& pv : patterns->values) {
          std::size_t count = 0;
          std::vector<double> delta(ctx.scores.dims.size());
          for (auto [t, c] : m.pairs) {
            for (std::size_t d = 0; d < delta.size(); ++d)
              delta[d] = ctx.scores.rows[t].scores[d] - ctx.scores.rows[c].scores[d];
            try {
              count += truthy(evaluate(pv.value, DeltaScope(ctx.scores.dims, delta))) ? 1 : 0;
            } catch (const EvalError& e) {
              ctx.diags.error(e.range, e.what());
              break;
            }
          }
          std::string text = source_text(ctx, pv.value.range);
          double rate = m.pairs.empty() ? std::nan("") : static_cast<double>(count) / static_cast<double>(m.pairs.size());
          plist.push_back({{"pattern", text}, {"count", count}, {"pairs", m.pairs.size()}, {"rate", json_number(rate)}});
          pattern_table.rows.push_back({cmp.label(), group_label(g), text, std::to_string(count), std::to_string(m.pairs.size()),
                                        csv_number(rate)});
        }
        entry["patterns"] = std::move(plist);
      }
      group_list.push_back(std::move(entry));
    }
    list.push_back({{"compare", cmp.label()}, {"groups", group_list}});
  }
  out.tables.push_back(std::move(table));
  if (patterns) out.tables.push_back(std::move(pattern_table));
  return {{"name", a.name.name}, {"kind", "paired"}, {"by", by}, {"comparisons", list}};
}

}  // namespace mirac::analyze
