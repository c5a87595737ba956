// criteria.cpp: `table analysis(dropped)` for a criteria analysis: per group (and
// comparison) the share of checklist elements met, then the elements most often dropped
// (or least often met), each with its text, so a reader sees which facts disappear.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

// The elements shown per group: the report names the worst; the CSV holds them all.
constexpr std::size_t kShown = 10;

std::string ci_text(const Json* value, const Json* ci) {
  std::string out = percent(number(value));
  if (ci && ci->is_array() && ci->size() == 2) {
    auto pct = [](const Json& x) { return percent(number(&x)); };
    out += fmt::format(" [{}, {}]", pct((*ci)[0]), pct((*ci)[1]));
  }
  return out;
}

}  // namespace

void criteria_table(const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  std::vector<std::string> by;
  if (const Json* b = member(&a, "by"); b && b->is_array())
    for (const auto& v : *b) by.push_back(text(&v));
  const Json* results = member(&a, "results");
  if (!results || !results->is_array() || results->empty()) {
    out.push_back(Note{fmt::format("Analysis {}: no graded criteria.", name)});
    return;
  }
  for (const auto& r : *results) {
    std::vector<std::string> group;
    for (const auto& v : by) group.push_back(text(member(&r, v)));
    const std::string where = group.empty() ? "" : fmt::format(", {} {}", join_by(by), fmt::join(group, " / "));
    const bool compared = member(&r, "compare") != nullptr;
    Table t;
    if (compared) {
      const std::string tr = text(member(&r, "treatment")), co = text(member(&r, "control"));
      t.caption = !item.title.empty()
                      ? item.title
                      : fmt::format("Analysis {}: checklist elements ({}) met at {} against {}{}, by rater {}, over {} "
                                    "matched pairs: {} at {}, {} at {}, difference {} (95% bootstrap interval over "
                                    "seeds). Dropped: met at {} but not at {}; p from the exact McNemar test of dropped "
                                    "against gained, q BH-adjusted over the elements. The {} most dropped elements:",
                                    name, text(member(&a, "criteria")), tr, co, where, text(member(&a, "rater")),
                                    count(number(member(&r, "pairs"))), percent(number(member(&r, "share_treatment"))),
                                    tr, percent(number(member(&r, "share_control"))), co,
                                    ci_text(member(&r, "difference"), member(&r, "difference_ci")), co, tr, kShown);
      t.header = {"seed", "#", "criterion", "pairs", "met at " + tr, "met at " + co, "difference", "dropped", "gained", "q"};
      t.numeric = {false, true, false, true, true, true, true, true, true, true};
    } else {
      t.caption = !item.title.empty()
                      ? item.title
                      : fmt::format("Analysis {}: checklist elements ({}) met{}, by rater {}: {} of {} answers' "
                                    "elements met (95% bootstrap interval over seeds). The {} least met elements:",
                                    name, text(member(&a, "criteria")), where, text(member(&a, "rater")),
                                    ci_text(member(&r, "share_met"), member(&r, "share_met_ci")),
                                    count(number(member(&r, "answers"))), kShown);
      t.header = {"seed", "#", "criterion", "answers", "met"};
      t.numeric = {false, true, false, true, true};
    }
    const Json* elements = member(&r, "elements");
    if (elements && elements->is_array())
      for (std::size_t i = 0; i < elements->size() && i < kShown; ++i) {
        const Json& e = (*elements)[i];
        std::vector<std::string> row = {text(member(&e, "seed")), text(member(&e, "element")),
                                        text(member(&e, "criterion"))};
        if (compared) {
          row.push_back(count(number(member(&e, "pairs"))));
          row.push_back(percent(number(member(&e, "share_treatment"))));
          row.push_back(percent(number(member(&e, "share_control"))));
          row.push_back(percent(number(member(&e, "difference"))));
          row.push_back(count(number(member(&e, "dropped"))));
          row.push_back(count(number(member(&e, "gained"))));
          row.push_back(p_value(number(member(&e, "q"))));
        } else {
          row.push_back(count(number(member(&e, "answers"))));
          row.push_back(percent(number(member(&e, "share_met"))));
        }
        t.rows.push_back(std::move(row));
      }
    out.push_back(std::move(t));
  }
}

}  // namespace mirac::report
