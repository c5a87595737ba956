// spearman.cpp: a spearman analysis in the report (analyses_item dispatches here). The
// table is Table 6 of the paper: rho, t, df and p per dimension. The figure is its Figure
// 4, rank-order alignment: per dimension, one point per group at its rank among the
// audit's means (x) and among the external file's values (y), rho and p in the title.
// Ranks, not values: the analysis asks whether the ordering is preserved, not whether the
// two scales agree, and ranks are what rho correlates.
#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"

namespace mirac::report {

namespace {

void spearman_figures(const Item& item, const Json& a, const std::vector<std::string>& by, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  const std::string against = text(member(&a, "against"));
  const Json* results = member(&a, "results");
  if (!results || !results->is_array()) return;
  for (const auto& r : *results) {
    const std::string dim = text(member(&r, "dimension"));
    if (member(&r, "error")) {
      out.push_back(Note{fmt::format("Analysis {}, {}: {}; no figure.", name, dim, text(member(&r, "error")))});
      continue;
    }
    RankScatter chart;
    chart.title = !item.title.empty()
                      ? fmt::format("{}: {}", item.title, dim)
                      : fmt::format("Analysis {}, {}: rank of the audit's mean against rank in {}, by {} "
                                    "(rho = {}, p = {}, n = {})",
                                    name, dim, against, join_by(by), estimate(number(member(&r, "rho"))),
                                    p_value(number(member(&r, "p"))), count_of(&r, "n"));
    chart.x_field = "audit_rank", chart.x_title = fmt::format("rank of the audit's mean {} (1 = lowest)", dim);
    chart.y_field = "external_rank", chart.y_title = fmt::format("rank in {} (1 = lowest)", against);
    chart.x_value_field = "audit_mean", chart.x_value_title = "audit mean";
    chart.y_value_field = "external", chart.y_value_title = against;
    bool ranked = true;
    if (const Json* groups = member(&r, "groups"); groups && groups->is_array())
      for (const auto& g : *groups) {
        std::optional<double> x = number(member(&g, "audit_rank")), y = number(member(&g, "external_rank"));
        if (!x || !y) {
          ranked = false;  // a results.json of a mirac before ranks were written
          continue;
        }
        chart.points.push_back({group_label(g, by), *x, *y, number(member(&g, "audit_mean")),
                                number(member(&g, "external")), count_of(&g, "audit_n")});
      }
    if (!ranked)
      out.push_back(Note{fmt::format("Analysis {}, {}: results.json has no ranks for some groups (analyze again "
                                     "with this mirac); they are not drawn.",
                                     name, dim)});
    if (chart.points.empty()) continue;
    out.push_back(Figure{chart.title, fmt::format("analysis-{}-{}", name, dim), "", rank_scatter_spec(chart)});
  }
}

}  // namespace

void spearman_analysis(const Context& ctx, const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  std::vector<std::string> by;
  if (const Json* b = member(&a, "by"); b && b->is_array())
    for (const auto& v : *b) by.push_back(text(&v));
  if (item.kind == "figure") {
    spearman_figures(item, a, by, out);
    return;
  }
  Table t;
  t.caption = !item.title.empty() ? item.title
                                  : fmt::format("Analysis {}: Spearman correlation of the audit's means with {}, by {}", name,
                                                text(member(&a, "against")), join_by(by));
  t.header = {"dimension", "groups", "rho", "t", "df", "p"};
  t.numeric = {false, true, true, true, true, true};
  if (const Json* results = member(&a, "results"); results && results->is_array())
    for (const auto& r : *results) {
      if (member(&r, "error"))  // with what would give it the groups it lacks
        out.push_back(Note{fmt::format("Analysis {}, {}: {}; to add groups, supply {}.", name,
                                       text(member(&r, "dimension")), text(member(&r, "error")),
                                       external_file_needs(ctx.spec, a))});
      t.rows.push_back({text(member(&r, "dimension")), count_of(&r, "n"), estimate(number(member(&r, "rho"))),
                        estimate(number(member(&r, "t"))), fixed(number(member(&r, "df")), 0), p_value(number(member(&r, "p")))});
    }
  out.push_back(std::move(t));
}

}  // namespace mirac::report
