// invariance.cpp: `table analysis(NAME)` for an invariance analysis: per dimension and `by`
// group, the mean shift of the judge's score when answers at each level are translated into
// the other, the judge's gap between the levels and the translation's loss that the two
// shifts separate, each with its interval; then each named contrast as judged, the judge's
// part of it and what remains without it. A rubric check has the shifts under the other
// rubric, the change of the level effect and each contrast's change. The document's
// writers escape every cell.
#include <array>

#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

// "0.212 [0.101, 0.330]"; "—" without an estimate.
std::string with_ci(const Json* figure) {
  const std::optional<double> value = number(member(figure, "estimate"));
  if (!value) return kMissing;
  std::string out = estimate(value);
  const Json* ci = member(figure, "ci");
  if (ci && ci->is_array() && ci->size() == 2) out += " " + interval(number(&(*ci)[0]), number(&(*ci)[1]));
  return out;
}

void small_design_note(const Json& a, std::vector<Block>& out) {
  if (const Json* small = member(&a, "small_design"); small && small->is_boolean() && small->get<bool>())
    out.push_back(Note{fmt::format("Analysis {}: a group's sample covers fewer than 12 seeds; its intervals may cover "
                                   "less than 95% (results.json gives each group's seeds).",
                                   text(member(&a, "name")))});
}

// The named contrasts: as judged, the check's figure for each (`keys[0]`, with its interval)
// and the contrast with it taken out or put in (`keys[1]`).
void contrasts_table(const Json& a, std::string caption, const std::array<std::string, 2>& headers,
                     const std::array<std::string, 2>& keys, std::vector<Block>& out) {
  const Json* contrasts = member(&a, "contrasts");
  if (!contrasts || !contrasts->is_array() || contrasts->empty()) return;
  const std::string name = text(member(&a, "name"));
  Table c;
  c.caption = std::move(caption);
  c.header = {"contrast", "group", "as judged", headers[0], headers[1]};
  c.numeric = {false, false, true, true, true};
  std::vector<std::string> notes;
  for (const auto& entry : *contrasts) {
    const Json* groups = member(&entry, "groups");
    if (!groups || !groups->is_array()) continue;
    const Json* cby = member(&entry, "by");
    for (const auto& g : *groups) {
      c.rows.push_back({text(member(&entry, "name")), group_values_label(g, cby), estimate(number(member(&g, "judged"))),
                        with_ci(member(&g, keys[0])), estimate(number(member(&g, keys[1])))});
      if (const Json* note = member(&g, "note"))
        notes.push_back(fmt::format("Analysis {}, contrast {} ({}): {}.", name, text(member(&entry, "name")),
                                    group_values_label(g, cby), text(note)));
    }
  }
  out.push_back(std::move(c));
  for (auto& n : notes) out.push_back(Note{std::move(n)});
}

// What a kind of check reports per dimension, after the shifts: the headers and the
// results' keys of its two figures.
struct Figures {
  std::string shift_a, shift_b, first, second;
  const char* first_key;
  const char* second_key;
};

// Per dimension and group: the answers at each level, the two shifts and the check's two
// figures, each with its interval.
Table dimension_table(const Context& ctx, std::string caption, const Json& a, const std::string& la,
                      const std::string& lb, const std::vector<std::string>& by_names, const Figures& figures) {
  const Json* by = member(&a, "by");
  Table t;
  t.caption = std::move(caption);
  t.header = {"dimension"};
  if (!by_names.empty()) t.header.push_back(join_by(by_names));
  for (const std::string& h : {fmt::format("n ({}, {})", la, lb), figures.shift_a, figures.shift_b, figures.first,
                               figures.second})
    t.header.push_back(h);
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  if (!by_names.empty()) t.numeric[1] = false;
  if (const Json* results = member(&a, "results"); results && results->is_array())
    for (const auto& r : *results) {
      std::vector<std::string> row = {dimension_label(ctx.spec, text(member(&r, "dimension")))};
      if (!by_names.empty()) row.push_back(group_values_label(r, by));
      const Json* n = member(&r, "n");
      row.push_back(n && n->is_array() && n->size() == 2
                        ? fmt::format("{}, {}", count(number(&(*n)[0])), count(number(&(*n)[1])))
                        : kMissing);
      const Json* shift = member(&r, "shift");
      row.push_back(with_ci(member(shift, la)));
      row.push_back(with_ci(member(shift, lb)));
      row.push_back(with_ci(member(&r, figures.first_key)));
      row.push_back(with_ci(member(&r, figures.second_key)));
      t.rows.push_back(std::move(row));
    }
  return t;
}

}  // namespace

void invariance_table(const Context& ctx, const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name")), judge = text(member(&a, "judge"));
  const std::string factor = text(member(&a, "factor"));
  const Json* levels = member(&a, "levels");
  if (!levels || !levels->is_array() || levels->size() != 2) return;
  const std::string la = text(&(*levels)[0]), lb = text(&(*levels)[1]);
  const std::string label_a = level_label(ctx.spec, factor, la), label_b = level_label(ctx.spec, factor, lb);
  const Json* by = member(&a, "by");
  std::vector<std::string> by_names;
  if (by && by->is_array())
    for (const auto& v : *by) by_names.push_back(text(&v));
  const std::string by_text = by_names.empty() ? "" : ", by " + join_by(by_names);

  if (text(member(&a, "transformation")) == "rubric") {
    // The answers judged again with another rubric: what it changes at each level, the
    // change of the level effect and the mean shift.
    const std::string rubric = text(member(&a, "rubric"));
    out.push_back(dimension_table(
        ctx,
        !item.title.empty()
            ? item.title
            : fmt::format("Analysis {}: does the {} effect judge {} finds depend on its rubric? Sampled answers at {} "
                          "and {} were judged again with rubric {}. A shift is the mean change of the score at that "
                          "level; the change of the effect ({} - {}) is their difference, the part of the {} effect "
                          "that moves with the rubric, and the mean shift what the rubric changes at both; 95% "
                          "intervals from a cluster bootstrap over seeds{}",
                          name, factor, judge, label_a, label_b, rubric, la, lb, factor, by_text),
        a, la, lb, by_names,
        {fmt::format("shift at {}", la), fmt::format("shift at {}", lb), fmt::format("change of the effect {} - {}", la, lb),
         "mean shift", "effect_change", "mean_shift"}));
    small_design_note(a, out);
    contrasts_table(a,
                    fmt::format("Analysis {}: each contrast as judge {} scored it, its change when the answers are "
                                "judged with rubric {} (each cell's shift at its levels, through the contrast), and its "
                                "value under that rubric",
                                name, judge, rubric),
                    {"change", "under the rubric"}, {"change", "under_rubric"}, out);
    return;
  }
  out.push_back(dimension_table(
      ctx,
      !item.title.empty()
          ? item.title
          : fmt::format("Analysis {}: does judge {} score the same content alike in {} and {}? Sampled answers were "
                        "translated into the other {} by {} and judged again as answers to that {}'s prompt. A shift "
                        "is the mean change of the score; the judge's gap ({} - {}) is half the difference of the two "
                        "shifts, the part of a {} effect that is the judge's own, and the translation's loss their "
                        "mean, what translating costs a score either way; 95% intervals from a cluster bootstrap over "
                        "seeds{}",
                        name, judge, label_a, label_b, factor, text(member(&a, "translator")), factor, la, lb, factor,
                        by_text),
      a, la, lb, by_names,
      {fmt::format("shift {} → {}", la, lb), fmt::format("shift {} → {}", lb, la), fmt::format("judge's gap {} - {}", la, lb),
       "translation's loss", "judge_gap", "translation_loss"}));
  small_design_note(a, out);
  contrasts_table(a,
                  fmt::format("Analysis {}: each contrast as judge {} scored it, the part of it that is the judge's gap "
                              "between {} and {} (the gap of each dimension times the share of answers at {} in each "
                              "of the contrast's cells), and the contrast without that part",
                              name, judge, la, lb, la),
                  {"judge's part", "without the judge's part"}, {"judge_part", "without_judge"}, out);
}

}  // namespace mirac::report
