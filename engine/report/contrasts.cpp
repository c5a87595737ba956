// contrasts.cpp: `table contrasts(...)` and `figure contrasts(...) { by model }`: each
// contrast's estimate per group with its cluster-bootstrap interval.
#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"
#include "runtime/stats/bootstrap.hpp"

namespace mirac::report {

namespace {

std::vector<std::string> strings(const Json* list) {
  std::vector<std::string> out;
  if (list && list->is_array())
    for (const auto& v : *list) out.push_back(text(&v));
  return out;
}

// "95% CI, 2000 resamples" from the first interval, else from the manifest.
std::string interval_kind(const Json& results, const std::vector<const Json*>& contrasts) {
  for (const Json* c : contrasts) {
    const Json* groups = member(c, "groups");
    if (!groups || !groups->is_array()) continue;
    for (const auto& g : *groups)
      if (const Json* ci = member(&g, "ci"); ci && ci->is_object())
        return fmt::format("{} CI, {} resamples", level(number(member(ci, "level"))), count(number(member(ci, "resamples"))));
  }
  const Json* b = member(member(&results, "manifest"), "bootstrap");
  if (!b) return "CI";
  return fmt::format("{} CI, {} resamples", level(number(member(b, "level"))), count(number(member(b, "resamples"))));
}

// What each contrast is, as declared: "DTI_hls = D3[en, formal, low] - D3[en, formal, high],
// by model, over the answers where arm == baseline". A reader cannot weigh a number whose
// definition is elsewhere.
std::string definitions(const std::vector<const Json*>& contrasts) {
  std::vector<std::string> parts;
  for (const Json* c : contrasts) {
    std::string part = fmt::format("`{} = {}`", text(member(c, "name")), text(member(c, "definition")));
    std::vector<std::string> by = strings(member(c, "by"));
    if (!by.empty()) part += ", by " + join_by(by);
    const std::string where = text(member(c, "where"));
    part += where.empty() ? ", over all answers" : fmt::format(", over the answers where `{}`", where);
    parts.push_back(std::move(part));
  }
  return fmt::format("Defined as: {}.", fmt::join(parts, "; "));
}

// The answers of one group of a contrast, for mirac view: the contrast's `where` and the
// group's values; "" when the view's filters cannot say them.
std::string group_answers(const Spec& spec, const Json& contrast, const Json& group, const std::vector<std::string>& by) {
  const std::string name = text(member(&contrast, "name"));
  const ast::ContrastDecl* decl = nullptr;
  for (const auto& c : spec.contrasts)
    if (c.name.name == name) decl = &c;
  if (!decl) return "";
  std::optional<AnswerQuery> q = where_query(spec, decl->where ? &*decl->where : nullptr);
  if (!q) return "";
  for (const auto& v : by)
    if (!add_group_param(spec, *q, v, text(member(&group, v)))) return "";
  return query_string(*q);
}

}  // namespace

void contrasts_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  const Json* list = member(&ctx.results, "contrasts");
  if (!list || !list->is_array()) {
    out.push_back(Note{fmt::format("Contrasts ({}) are not in results.json.", fmt::join(item.args, ", "))});
    return;
  }
  std::vector<const Json*> found;
  for (const auto& name : item.args) {
    const Json* c = named_entry(ctx.results, "contrasts", name);
    if (!c) {
      out.push_back(Note{fmt::format("Contrast {} is not in results.json (it could not be computed).", name)});
      continue;
    }
    std::vector<std::string> by = strings(member(c, "by"));
    if (!item.by.empty() && item.by != by)
      out.push_back(Note{fmt::format("Contrast {} is computed {}; the report's 'by {}' cannot regroup it.", name,
                                     by.empty() ? "over all answers" : "by " + join_by(by), fmt::join(item.by, ", "))});
    found.push_back(c);
  }
  if (found.empty()) return;

  const std::string kind = interval_kind(ctx.results, found);
  Table t;
  t.caption = !item.title.empty() ? item.title : fmt::format("Contrasts: estimate and cluster-bootstrap {} over seeds", kind);
  t.header = {"contrast", "group", "estimate", "CI", "seeds"};
  t.numeric = {false, false, true, true, true};
  IntervalChart chart;
  chart.title = !item.title.empty() ? item.title : fmt::format("Contrasts: estimate and {}", kind);
  chart.x_title = fmt::format("estimate ({})", kind);
  std::vector<std::string> problems;
  std::size_t small_groups = 0;  // intervals results.json marks as from a design too small to vouch for
  std::optional<double> fewest_seeds;
  for (const Json* c : found) {
    const std::string name = text(member(c, "name"));
    std::vector<std::string> by = strings(member(c, "by"));
    IntervalBlock block{name, {}};
    const Json* groups = member(c, "groups");
    if (groups && groups->is_array()) {
      for (const auto& g : *groups) {
        const Json* ci = member(&g, "ci");
        std::optional<double> est = number(member(&g, "estimate")), lo = number(member(ci, "lower")),
                              hi = number(member(ci, "upper"));
        std::string label = group_label(g, by);
        t.rows.push_back({name, label, estimate(est), interval(lo, hi), count(number(member(&g, "seeds")))});
        t.answers.push_back({"", group_answers(ctx.spec, *c, g, by)});
        std::string value = estimate(est);
        if (lo && hi) value += " " + interval(lo, hi);
        block.rows.push_back({label, est, lo, hi, value});
        if (const Json* error = member(&g, "error"))
          problems.push_back(fmt::format("{} ({}): no interval: {}.", name, label, text(error)));
        if (const Json* small = member(ci, "small_design"); small && small->is_boolean() && small->get<bool>()) {
          ++small_groups;
          if (std::optional<double> seeds = number(member(&g, "seeds")); seeds && (!fewest_seeds || *seeds < *fewest_seeds))
            fewest_seeds = seeds;
        }
      }
    }
    chart.blocks.push_back(std::move(block));
  }
  for (const auto& p : problems) out.push_back(Note{p});
  if (small_groups > 0)
    out.push_back(Note{fmt::format(
        "{} of these intervals rest{} on fewer than {} seeds (the fewest: {}), fewer than any design whose coverage "
        "mirac has verified: {} may hold the true contrast less often than {} level says (docs/statistics.md, "
        "section 6).",
        small_groups == 1 ? "One" : std::to_string(small_groups), small_groups == 1 ? "s" : "",
        stats::kSmallestVerifiedClusters, count(fewest_seeds), small_groups == 1 ? "it" : "they",
        small_groups == 1 ? "its" : "their")});
  out.push_back(Paragraph{definitions(found)});
  if (item.kind == "table") {
    out.push_back(std::move(t));
    return;
  }
  std::vector<std::string> names;
  for (const Json* c : found) names.push_back(text(member(c, "name")));
  out.push_back(Figure{chart.title, fmt::format("contrasts-{}", fmt::join(names, "-")), "", interval_chart_spec(chart)});
}

}  // namespace mirac::report
