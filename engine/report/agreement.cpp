// agreement.cpp: `table analysis(judges)` for an agreement analysis: one row per dimension,
// group and pair of raters, laid out as the MIRA paper's Tables 2 and 16 (n, exact and
// adjacent agreement, signed error, quadratic weighted kappa) with the bootstrap interval
// of the kappa and Krippendorff's alpha over every rater.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

std::string with_interval(const Json* value, const Json* ci) {
  std::string out = estimate(number(value));
  if (ci && ci->is_array() && ci->size() == 2 && number(value))
    out += " " + interval(number(&(*ci)[0]), number(&(*ci)[1]));
  return out;
}

}  // namespace

void agreement_table(const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  std::vector<std::string> raters, by;
  if (const Json* r = member(&a, "raters"); r && r->is_array())
    for (const auto& v : *r) raters.push_back(text(&v));
  if (const Json* b = member(&a, "by"); b && b->is_array())
    for (const auto& v : *b) by.push_back(text(&v));
  Table t;
  t.caption = !item.title.empty()
                  ? item.title
                  : fmt::format("Analysis {}: agreement of {}{}. Signed error is the first rater's score minus the "
                                "second's; adjacent is |difference| <= 1; QWK is the quadratic weighted kappa over the "
                                "whole scale, with its 95% bootstrap interval over seeds; N/A pairs are left out",
                                name, fmt::join(raters, ", "), by.empty() ? "" : ", by " + join_by(by));
  t.header = {"dimension"};
  if (!by.empty()) t.header.push_back(join_by(by));
  for (const char* h : {"raters", "n", "N/A pairs", "exact", "adjacent", "signed error", "QWK", "alpha (ordinal)"})
    t.header.push_back(h);
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  if (!by.empty()) t.numeric[1] = false;
  t.numeric[by.empty() ? 1 : 2] = false;
  const Json* results = member(&a, "results");
  if (results && results->is_array())
    for (const auto& r : *results) {
      const std::string dim = text(member(&r, "dimension"));
      std::vector<std::string> group;
      for (const auto& v : by) group.push_back(text(member(&r, v)));
      const Json* pairs = member(&r, "pairs");
      if (!pairs || !pairs->is_array()) continue;
      for (const auto& p : *pairs) {
        std::vector<std::string> row = {dim};
        if (!by.empty()) row.push_back(fmt::format("{}", fmt::join(group, " / ")));
        std::vector<std::string> names;
        if (const Json* rs = member(&p, "raters"); rs && rs->is_array())
          for (const auto& v : *rs) names.push_back(text(&v));
        row.push_back(fmt::format("{}", fmt::join(names, " vs ")));
        row.push_back(count(number(member(&p, "n"))));
        row.push_back(count(number(member(&p, "na_pairs"))));
        row.push_back(percent(number(member(&p, "exact"))));
        row.push_back(percent(number(member(&p, "adjacent"))));
        row.push_back(estimate(number(member(&p, "mean_signed_error"))));
        row.push_back(with_interval(member(&p, "qwk"), member(&p, "qwk_ci")));
        row.push_back(with_interval(member(&r, "alpha"), member(&r, "alpha_ci")));
        t.rows.push_back(std::move(row));
        if (const Json* note = member(&p, "qwk_note"))
          out.push_back(Note{fmt::format("Analysis {}, {} ({}): {}.", name, dim, fmt::join(names, " vs "), text(note))});
      }
    }
  out.push_back(std::move(t));
}

}  // namespace mirac::report
