// corrected.cpp: `table analysis(fixed)` for a corrected analysis: one row per dimension,
// contrast and flag and `by` group, the judge's own figure beside the one corrected with
// people's scores (and, for a flag, the Rogan-Gladen rate), each with its interval, how
// many answers people scored of how many, and, under a `certify` rule, whether the judge is
// certified there. The document's writers escape every cell (docs/report.md).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

// "3.583 [3.312, 3.833]", or a rate as "24.0% [20.1%, 27.9%]".
std::string with_ci(const Json* figure, bool rate) {
  const std::optional<double> value = number(member(figure, "estimate"));
  if (!value) return kMissing;
  const Json* ci = member(figure, "ci");
  if (rate) {
    std::string out = percent(value);
    if (ci && ci->is_array() && ci->size() == 2)
      out += fmt::format(" [{}, {}]", percent(number(&(*ci)[0])), percent(number(&(*ci)[1])));
    return out;
  }
  std::string out = estimate(value);
  if (ci && ci->is_array() && ci->size() == 2) out += " " + interval(number(&(*ci)[0]), number(&(*ci)[1]));
  return out;
}

std::string certified_cell(const Json& entry) {
  const Json* c = member(&entry, "certified");
  if (!c || !c->is_boolean()) return kMissing;
  return c->get<bool>() ? "certified" : "uncertified";
}

}  // namespace

void corrected_table(const Context& ctx, const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  const std::string judge = text(member(&a, "judge")), people = text(member(&a, "people"));
  const Json* by = member(&a, "by");
  std::vector<std::string> by_names;
  if (by && by->is_array())
    for (const auto& v : *by) by_names.push_back(text(&v));
  const Json* certification = member(&a, "certification");
  std::vector<std::string> rules;
  if (const Json* r = member(certification, "rules"); r && r->is_array())
    for (const auto& v : *r) rules.push_back(text(&v));
  const Json* flags = member(&a, "flags");
  const bool has_flags = flags && flags->is_array() && !flags->empty();
  const std::string method = text(member(&a, "method")) == "power_tuned" ? "power-tuned prediction-powered inference (PPI++)"
                                                                         : "prediction-powered inference (PPI)";

  Table t;
  t.caption = !item.title.empty()
                  ? item.title
                  : fmt::format("Analysis {}: judge {} corrected with the scores of {} on a sample, by {}{}. \"Judge "
                                "alone\" takes the judge at its word; \"corrected\" removes its error as measured on the "
                                "answers people scored (n of N){}; 95% intervals from a cluster bootstrap over seeds{}",
                                name, judge, people, method, by_names.empty() ? "" : ", by " + join_by(by_names),
                                has_flags ? "; a flag's rate is also corrected for the judge's sensitivity and "
                                            "specificity (Rogan-Gladen)"
                                          : "",
                                rules.empty() ? "" : fmt::format("; certification: {}", fmt::join(rules, ", ")));
  t.header = {"figure"};
  if (!by_names.empty()) t.header.push_back(join_by(by_names));
  for (const char* h : {"N", "n", "judge alone", "corrected"}) t.header.push_back(h);
  if (has_flags) t.header.push_back("Rogan-Gladen");
  if (!rules.empty()) t.header.push_back("judge");
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  if (!by_names.empty()) t.numeric[1] = false;
  if (!rules.empty()) t.numeric.back() = false;

  // A figure's notes once, with the groups they concern: "contrast DTI_core (gpt, qwen): ...".
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> notes;
  auto add_row = [&](const std::string& figure, const Json& entry, bool rate, const std::string& n_key) {
    std::vector<std::string> row = {figure};
    if (!by_names.empty()) row.push_back(group_values_label(entry, by));
    if (const Json* cells = member(&entry, "cells"); cells && cells->is_array()) {
      // A contrast's N and n are its cells' (people's sample is per cell).
      std::vector<std::string> N, n;
      for (const auto& c : *cells) N.push_back(count(number(member(&c, "N")))), n.push_back(count(number(member(&c, "n"))));
      row.push_back(fmt::format("{}", fmt::join(N, " / ")));
      row.push_back(fmt::format("{}", fmt::join(n, " / ")));
    } else {
      row.push_back(count(number(member(&entry, "N"))));
      row.push_back(count(number(member(&entry, n_key))));
    }
    row.push_back(with_ci(member(&entry, "judge_only"), rate));
    row.push_back(with_ci(member(&entry, "corrected"), rate));
    if (has_flags) row.push_back(rate ? with_ci(member(&entry, "rogan_gladen"), true) : "");
    if (!rules.empty()) row.push_back(certified_cell(entry));
    t.rows.push_back(std::move(row));
    if (const Json* note = member(&entry, "note")) {
      const std::pair<std::string, std::string> key{figure, text(note)};
      auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& n) { return n.first == key; });
      if (it == notes.end()) it = notes.insert(notes.end(), {key, {}});
      it->second.push_back(group_values_label(entry, by));
    }
  };
  if (const Json* results = member(&a, "results"); results && results->is_array())
    for (const auto& r : *results) add_row(dimension_label(ctx.spec, text(member(&r, "dimension"))), r, false, "n");
  if (const Json* contrasts = member(&a, "contrasts"); contrasts && contrasts->is_array())
    for (const auto& c : *contrasts)
      if (const Json* groups = member(&c, "groups"); groups && groups->is_array())
        for (const auto& g : *groups) add_row("contrast " + text(member(&c, "name")), g, false, "n");
  if (has_flags)
    for (const auto& f : *flags)
      if (const Json* groups = member(&f, "groups"); groups && groups->is_array())
        for (const auto& g : *groups) add_row("flag " + text(member(&f, "name")) + " (rate)", g, true, "n");
  out.push_back(std::move(t));

  // Where the gate failed, say on what and by how much: the judge's own figures there are
  // not to be read without the correction.
  for (const char* part : {"dimensions", "flags"}) {
    const Json* list = member(certification, part);
    if (!list || !list->is_object()) continue;
    for (const auto& [what, c] : list->items()) {
      const Json* ok = member(&c, "certified");
      if (!ok || !ok->is_boolean() || ok->get<bool>()) continue;
      std::vector<std::string> failed;
      if (const Json* f = member(&c, "failed"); f && f->is_array())
        for (const auto& v : *f) failed.push_back(text(&v));
      out.push_back(Note{fmt::format("Analysis {}: judge {} is uncertified on {} ({}; agreement with {} over {} answers): "
                                     "its own figures there are labelled uncertified and should be read only with the "
                                     "correction.",
                                     name, judge, what, fmt::join(failed, ", "), people, count(number(member(&c, "n"))))});
    }
  }
  for (const auto& [key, groups] : notes)
    out.push_back(Note{fmt::format("Analysis {}, {} ({}): {}.", name, key.first, fmt::join(groups, ", "), key.second)});
}

}  // namespace mirac::report
