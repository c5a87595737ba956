// answers.cpp: the notes ahead of a report's items about the answers behind them: those no
// rater scored (left out of every number), and those the servers did not treat as asked
// (cut at the token limit, past a limit the server ignored, from a shortened prompt).
#include <fmt/format.h>

#include "engine/report/content.hpp"

namespace mirac::report {
namespace {

void unscored_blocks(const Spec& spec, const Json& results, std::vector<Block>& out) {
  // Unscored answers are left out of every number below: say how many, and where.
  if (const Json* coverage = member(&results, "coverage"); coverage && number(member(coverage, "unscored")).value_or(0) > 0) {
    std::string worst;
    double worst_share = -1;
    if (const Json* factors = member(coverage, "by_factor"); factors && factors->is_array())
      for (const auto& f : *factors)
        if (const Json* levels = member(&f, "levels"); levels && levels->is_array())
          for (const auto& l : *levels)
            if (number(member(&l, "share")).value_or(0) > worst_share) {
              worst_share = number(member(&l, "share")).value_or(0);
              worst = text(member(&f, "factor")) + " = " + level_label(spec, text(member(&f, "factor")), text(member(&l, "level")));
            }
    out.push_back(Note{fmt::format(
        "{} of {} stored answers have no usable score from {} (unusable, failed or pending judge replies) and are left "
        "out of every table and figure{}.",
        text(member(coverage, "unscored")), text(member(coverage, "answers")), text(member(coverage, "rater")),
        worst.empty() ? "" : fmt::format("; the most at {} ({:.1f}%)", worst, 100 * worst_share))});
    // Where they are: per model and per level of every factor, as results.json's coverage.
    Table t;
    t.caption = fmt::format("Answers without a usable score from {}, by model and by factor level", text(member(coverage, "rater")));
    t.header = {"group", "answers", "unscored", "share"};
    t.numeric = {false, true, true, true};
    auto add = [&](const std::string& group, const Json& c) {
      t.rows.push_back({group, text(member(&c, "answers")), text(member(&c, "unscored")),
                        fmt::format("{:.1f}%", 100 * number(member(&c, "share")).value_or(0))});
    };
    if (const Json* models = member(coverage, "by_model"); models && models->is_array())
      for (const auto& m : *models) add("model = " + text(member(&m, "model")), m);
    if (const Json* factors = member(coverage, "by_factor"); factors && factors->is_array())
      for (const auto& f : *factors)
        if (const Json* levels = member(&f, "levels"); levels && levels->is_array())
          for (const auto& l : *levels) add(text(member(&f, "factor")) + " = " + level_label(spec, text(member(&f, "factor")), text(member(&l, "level"))), l);
    if (!t.rows.empty()) out.push_back(std::move(t));
  }
}

// Marked answers are scored like the others; say how many and where, so that a reader can
// weigh the numbers (a level with many cut answers looks worse for it).
void marked_blocks(const Spec& spec, const Json& results, std::vector<Block>& out) {
  const Json* marks = member(&results, "answers_marked");
  auto count = [](const Json* j, const char* key) { return number(member(j, key)).value_or(0); };
  if (!marks || count(marks, "cut") + count(marks, "limit_ignored") + count(marks, "prompt_shortened") == 0) return;
  std::vector<std::string> parts;
  if (count(marks, "cut") > 0) parts.push_back(fmt::format("{} were cut at the token limit", text(member(marks, "cut"))));
  if (count(marks, "limit_ignored") > 0)
    parts.push_back(fmt::format("{} ran past the token limit sent (the server ignored it)", text(member(marks, "limit_ignored"))));
  if (count(marks, "prompt_shortened") > 0)
    parts.push_back(fmt::format("{} came from a prompt the server shortened to fit its context, so they answer another "
                                "question", text(member(marks, "prompt_shortened"))));
  std::string said;
  for (std::size_t i = 0; i < parts.size(); ++i) said += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  out.push_back(Note{fmt::format("Of {} stored answers, {}. They are scored as they stand.", text(member(marks, "answers")), said)});
  Table t;
  t.caption = "Answers the servers did not treat as asked, by model and arm and by factor level";
  t.header = {"group", "answers", "cut at the limit", "limit ignored", "prompt shortened"};
  t.numeric = {false, true, true, true, true};
  auto add = [&](const std::string& group, const Json& c) {
    t.rows.push_back({group, text(member(&c, "answers")), text(member(&c, "cut")), text(member(&c, "limit_ignored")),
                      text(member(&c, "prompt_shortened"))});
  };
  if (const Json* pairs = member(marks, "by_model_arm"); pairs && pairs->is_array())
    for (const auto& m : *pairs) add(text(member(&m, "model")) + " / " + text(member(&m, "arm")), m);
  if (const Json* factors = member(marks, "by_factor"); factors && factors->is_array())
    for (const auto& f : *factors)
      if (const Json* levels = member(&f, "levels"); levels && levels->is_array())
        for (const auto& l : *levels) add(text(member(&f, "factor")) + " = " + level_label(spec, text(member(&f, "factor")), text(member(&l, "level"))), l);
  if (!t.rows.empty()) out.push_back(std::move(t));
}

}  // namespace

void answers_blocks(const Spec& spec, const Json& results, std::vector<Block>& out) {
  unscored_blocks(spec, results, out);
  marked_blocks(spec, results, out);
}

}  // namespace mirac::report
