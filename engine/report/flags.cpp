// flags.cpp: `table flags(A, B) { by model }` and `figure flags(...)`: how often each flag
// holds, summed from results.json's counts by model x arm.
#include <algorithm>

#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"

namespace mirac::report {

namespace {

struct Tally {
  double count = 0, n = 0;
  std::optional<double> applicable;  ///< unit flags: the answers it can apply to (results.json `applicable`)
  std::optional<double> rate() const { return n > 0 ? std::optional<double>(count / n) : std::nullopt; }
};

// Counts add up over arms (or models); rates are recomputed from the sums, never averaged.
Tally sum(const ModelArmGroup& g, const char* unit) {
  Tally t;
  for (const Json* e : g.entries) {
    t.count += number(member(e, "count")).value_or(0);
    t.n += number(member(e, unit)).value_or(0);
    if (std::optional<double> a = number(member(e, "applicable"))) t.applicable = t.applicable.value_or(0) + *a;
  }
  return t;
}

// One pairing of a pair flag ("hls: low vs high") with its own counts: a flag over several
// pairings (`pair(language: each vs en)`) has its split and delta columns per pairing.
struct Pairing {
  std::string factor, a, b;
  ModelArmGrouping grouping;
};

struct Flag {
  std::string name, kind;
  ModelArmGrouping grouping;       ///< the flag's counts: over all its pairings
  std::vector<Pairing> pairings;   ///< a pair flag's pairings; empty for a unit flag
};

const char* unit_of(const Flag& f) { return f.kind == "pair" ? "pairs" : "answers"; }

// "126/720 (17.5%)", as the paper's Table 20.
std::string count_of_rate(double count_, double n) {
  return fmt::format("{}/{} ({})", count(count_), count(n), percent(n > 0 ? std::optional<double>(count_ / n) : std::nullopt));
}

// A pair flag's per-dimension numbers summed over a group's entries (results.json's
// `dimensions`): pairs scored, the summed differences a - b, flagged pairs by side.
struct DimensionSums {
  double scored = 0, delta_sum = 0, a_higher = 0, b_higher = 0;
};

DimensionSums dimension_sums(const ModelArmGroup& g, const std::string& dim) {
  DimensionSums s;
  for (const Json* e : g.entries) {
    const Json* d = member(member(e, "dimensions"), dim);
    const double scored = number(member(d, "pairs_scored")).value_or(0);
    s.scored += scored;
    s.delta_sum += number(member(d, "mean_delta")).value_or(0) * scored;
    s.a_higher += number(member(d, "flagged_a_higher")).value_or(0);
    s.b_higher += number(member(d, "flagged_b_higher")).value_or(0);
  }
  return s;
}

// One row per group, one column per flag (its count of its answers or pairs, with the rate),
// and after a pair flag its `split` and `delta` columns, per pairing: the paper's Table 20.
Table flags_table(const Context& ctx, const Item& item, const std::vector<Flag>& flags, const std::string& by_text) {
  const std::vector<std::string>& by = flags.front().grouping.by;
  Table t;
  t.caption = !item.title.empty()
                  ? item.title
                  : fmt::format("Flags {}{}: flagged / answers (unit flags) or matched answer pairs (pair flags)", by_text,
                                where_suffix(item));
  t.header = by.empty() ? std::vector<std::string>{"group"} : by;
  t.numeric.assign(t.header.size(), false);
  const bool low_is_worse = worst_is_low(ctx.spec);
  struct Column {
    const Flag* flag;
    std::string dim;
    enum { rate, applicable, a_worse, b_worse, delta } what;
    const Pairing* pairing = nullptr;  ///< split and delta columns: the pairing they count
  };
  // A unit flag that cannot apply to every answer (a condition on a seed field or level)
  // also gets its rate over the answers it can apply to.
  auto partly_applicable = [](const Flag& f) {
    for (const auto& g : f.grouping.groups) {
      const Tally s = sum(g, unit_of(f));
      if (s.applicable && *s.applicable < s.n) return true;
    }
    return false;
  };
  std::vector<Column> columns;
  for (const auto& f : flags) {
    columns.push_back({&f, "", Column::rate});
    t.header.push_back(fmt::format("{} ({})", f.name, unit_of(f)));
    if (f.kind != "pair" && partly_applicable(f)) {
      columns.push_back({&f, "", Column::applicable});
      t.header.push_back(fmt::format("{} (answers it applies to)", f.name));
    }
    // With several pairings each side is named against the other ("Japanese (ja) worse
    // than English (en) on D3"): "English worse on D3" would head two columns.
    const bool several = f.pairings.size() > 1;
    for (const auto& p : f.pairings) {
      const std::string a = level_label(ctx.spec, p.factor, p.a), b = level_label(ctx.spec, p.factor, p.b);
      for (const auto& [flag, d] : item.split) {
        if (!flag.empty() && flag != f.name) continue;
        columns.push_back({&f, d, Column::a_worse, &p});
        t.header.push_back(several ? fmt::format("{} worse than {} on {}", a, b, d) : fmt::format("{} worse on {}", a, d));
        columns.push_back({&f, d, Column::b_worse, &p});
        t.header.push_back(several ? fmt::format("{} worse than {} on {}", b, a, d) : fmt::format("{} worse on {}", b, d));
      }
      for (const auto& [flag, d] : item.delta) {
        if (!flag.empty() && flag != f.name) continue;
        columns.push_back({&f, d, Column::delta, &p});
        t.header.push_back(fmt::format("mean Δ{} {} − {}", d, p.a, p.b));
      }
    }
  }
  t.numeric.resize(t.header.size(), true);
  const std::optional<AnswerQuery> where = where_query(ctx.spec, item.where);
  // Rows from the first flag's groups: every flag has the same model x arm entries.
  for (const auto& g : flags.front().grouping.groups) {
    std::vector<std::string> row = g.labels.empty() ? std::vector<std::string>{"all"} : g.labels;
    std::vector<std::string> answers(row.size());
    // The answers (unit flags) or pairs (pair flags of one pairing) a cell counts, in mirac
    // view: the group's model and arm and the item's `where`, then the flag or pairing.
    std::optional<AnswerQuery> base = where;
    for (std::size_t i = 0; base && i < by.size() && i < g.values.size(); ++i)
      if (!add_group_param(ctx.spec, *base, by[i], g.values[i])) base.reset();
    for (const auto& c : columns) {
      const ModelArmGrouping& grouping = c.pairing ? c.pairing->grouping : c.flag->grouping;
      auto it = std::find_if(grouping.groups.begin(), grouping.groups.end(),
                             [&](const ModelArmGroup& o) { return o.values == g.values; });
      if (it == grouping.groups.end()) {
        row.push_back(kMissing);
        answers.emplace_back();
        continue;
      }
      const Tally s = sum(*it, unit_of(*c.flag));
      AnswerQuery q = base.value_or(AnswerQuery{});
      const bool pair = c.flag->kind == "pair";
      bool linked = base.has_value() && (!pair || c.flag->pairings.size() == 1 || c.pairing);
      if (linked && pair) linked = add_param(q, "view", "pairs");
      if (c.what == Column::rate || c.what == Column::applicable) {
        row.push_back(count_of_rate(s.count, c.what == Column::rate ? s.n : s.applicable.value_or(0)));
        answers.push_back(linked && add_param(q, "flag", c.flag->name) ? query_string(q) : "");
        continue;
      }
      // A split cannot be asked of the view; a delta averages every pair of the pairing.
      const bool all_pairs = c.what == Column::delta && linked && add_param(q, "factor", c.pairing->factor) &&
                             add_param(q, "a", c.pairing->a) && add_param(q, "b", c.pairing->b);
      answers.push_back(all_pairs ? query_string(q) : "");
      const DimensionSums d = dimension_sums(*it, c.dim);
      const double a_worse = low_is_worse ? d.b_higher : d.a_higher, b_worse = low_is_worse ? d.a_higher : d.b_higher;
      if (c.what == Column::a_worse) row.push_back(count_of_rate(a_worse, s.n));
      else if (c.what == Column::b_worse) row.push_back(count_of_rate(b_worse, s.n));
      else row.push_back(signed_estimate(d.scored > 0 ? std::optional<double>(d.delta_sum / d.scored) : std::nullopt));
    }
    t.rows.push_back(std::move(row));
    t.answers.push_back(std::move(answers));
  }
  return t;
}

}  // namespace

void flags_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  const Json* list = member(&ctx.results, "flags");
  if (!list || !list->is_array()) {
    out.push_back(Note{fmt::format("Flags ({}) are not in results.json.", fmt::join(item.args, ", "))});
    return;
  }
  std::vector<Flag> flags;
  std::vector<std::string> notes;
  for (const auto& name : item.args) {
    const Json* f = named_entry(ctx.results, "flags", name);
    if (!f) {
      out.push_back(Note{fmt::format("Flag {} is not in results.json (it could not be computed).", name)});
      continue;
    }
    Flag flag{name, text(member(f, "kind")), group_by_model_arm(ctx, item, member(f, "by_model_arm"), {"model", "arm"}), {}};
    if (const Json* list = member(f, "pairings"); list && list->is_array())
      for (const Json& p : *list) {
        const std::string label = text(member(&p, "pairing"));  // "hls: low vs high"
        const auto colon = label.find(": "), vs = label.find(" vs ");
        if (colon == std::string::npos || vs == std::string::npos || vs < colon) continue;
        flag.pairings.push_back({label.substr(0, colon), label.substr(colon + 2, vs - colon - 2), label.substr(vs + 4),
                                 list->size() == 1 ? flag.grouping
                                                   : group_by_model_arm(ctx, item, member(&p, "by_model_arm"),
                                                                        {"model", "arm"})});
      }
    for (const auto& n : flag.grouping.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
    if (flag.grouping.failed) continue;
    flags.push_back(std::move(flag));
  }
  for (const auto& n : notes) out.push_back(Note{n});
  if (flags.empty()) return;
  const std::vector<std::string>& by = flags.front().grouping.by;
  const std::string by_text = by.empty() ? "over all answers" : "by " + join_by(by);
  if (item.kind == "table") {
    out.push_back(flags_table(ctx, item, flags, by_text));
    return;
  }

  BarChart chart;
  chart.title = !item.title.empty() ? item.title : fmt::format("Flag rates {}{}", by_text, where_suffix(item));
  chart.category_title = by.empty() ? "" : join_by(by);
  chart.series_field = "flag", chart.series_title = "flag";
  chart.value_field = "percent", chart.value_title = "% flagged";
  for (const auto& f : flags) chart.series.push_back(f.name);
  // Categories from the first flag's groups: every flag has the same model x arm entries.
  for (const auto& g : flags.front().grouping.groups) {
    chart.categories.push_back(g.labels.empty() ? "all" : fmt::format("{}", fmt::join(g.labels, " / ")));
    std::vector<Bar> bars;
    for (const auto& f : flags) {
      auto it = std::find_if(f.grouping.groups.begin(), f.grouping.groups.end(),
                             [&](const ModelArmGroup& o) { return o.values == g.values; });
      if (it == f.grouping.groups.end()) {
        bars.push_back({});
        continue;
      }
      Tally s = sum(*it, unit_of(f));
      std::optional<double> rate = s.rate();
      bars.push_back({rate ? std::optional<double>(*rate * 100) : std::nullopt, percent(rate),
                      fmt::format("{}/{}", count(s.count), count(s.n))});
    }
    chart.bars.push_back(std::move(bars));
  }
  std::vector<std::string> names;
  for (const auto& f : flags) names.push_back(f.name);
  out.push_back(Figure{chart.title, fmt::format("flags-{}", fmt::join(names, "-")), "", bar_chart_spec(chart)});
}

}  // namespace mirac::report
