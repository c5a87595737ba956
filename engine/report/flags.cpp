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
  std::optional<double> rate() const { return n > 0 ? std::optional<double>(count / n) : std::nullopt; }
};

// Counts add up over arms (or models); rates are recomputed from the sums, never averaged.
Tally sum(const ModelArmGroup& g, const char* unit) {
  Tally t;
  for (const Json* e : g.entries) {
    t.count += number(member(e, "count")).value_or(0);
    t.n += number(member(e, unit)).value_or(0);
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
  struct Flag {
    std::string name, kind;
    ModelArmGrouping grouping;
  };
  std::vector<Flag> flags;
  std::vector<std::string> notes;
  for (const auto& name : item.args) {
    const Json* f = named_entry(ctx.results, "flags", name);
    if (!f) {
      out.push_back(Note{fmt::format("Flag {} is not in results.json (it could not be computed).", name)});
      continue;
    }
    Flag flag{name, text(member(f, "kind")), group_by_model_arm(ctx, item, member(f, "by_model_arm"), {"model", "arm"})};
    for (const auto& n : flag.grouping.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
    if (flag.grouping.failed) continue;
    flags.push_back(std::move(flag));
  }
  for (const auto& n : notes) out.push_back(Note{n});
  if (flags.empty()) return;
  const std::vector<std::string>& by = flags.front().grouping.by;
  const std::string by_text = by.empty() ? "over all answers" : "by " + join_by(by);
  auto unit = [](const Flag& f) { return f.kind == "pair" ? "pairs" : "answers"; };

  if (item.kind == "table") {
    Table t;
    t.caption = !item.title.empty()
                    ? item.title
                    : fmt::format("Flags {}{}: answers (unit flags) or matched answer pairs (pair flags) flagged", by_text,
                                  where_suffix(item));
    t.header = {"flag", "kind"};
    t.header.insert(t.header.end(), by.begin(), by.end());
    t.header.insert(t.header.end(), {"count", "of", "rate"});
    t.numeric.assign(2 + by.size(), false);
    t.numeric.insert(t.numeric.end(), {true, true, true});
    for (const auto& f : flags)
      for (const auto& g : f.grouping.groups) {
        Tally s = sum(g, unit(f));
        std::vector<std::string> row = {f.name, f.kind};
        row.insert(row.end(), g.values.begin(), g.values.end());
        row.insert(row.end(), {count(s.count), fmt::format("{} {}", count(s.n), unit(f)), percent(s.rate())});
        t.rows.push_back(std::move(row));
      }
    out.push_back(std::move(t));
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
    chart.categories.push_back(g.values.empty() ? "all" : fmt::format("{}", fmt::join(g.values, " / ")));
    std::vector<Bar> bars;
    for (const auto& f : flags) {
      auto it = std::find_if(f.grouping.groups.begin(), f.grouping.groups.end(),
                             [&](const ModelArmGroup& o) { return o.values == g.values; });
      if (it == f.grouping.groups.end()) {
        bars.push_back({});
        continue;
      }
      Tally s = sum(*it, unit(f));
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
