// judges.cpp: `judge NAME = PROVIDER("model string") { rubric R ... }`: the models that score
// answers, with their rubric, request settings, price and batch.
#include <algorithm>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// The judge's `rubric NAME`, taken out of its parameters: it names what the judge is asked,
// not a setting of the request.
void take_rubric(const CheckContext& cx, Judge& judge, const ast::JudgeDecl& j) {
  if (judge.params.contains("rubric")) {
    judge.rubric = judge.params["rubric"].is_string() ? judge.params["rubric"].get<std::string>() : "";
    judge.params.erase("rubric");
  }
  std::vector<std::string> rubric_names;
  for (const auto& r : cx.spec.rubrics) rubric_names.push_back(r.name.name);
  std::sort(rubric_names.begin(), rubric_names.end());
  if (judge.rubric.empty()) {
    cx.diags.error(j.name.range, fmt::format("judge '{}' needs a rubric (rubric NAME)", j.name.name));
  } else if (!std::binary_search(rubric_names.begin(), rubric_names.end(), judge.rubric)) {
    SourceRange where = j.name.range;
    for (const auto& p : j.settings->props)
      if (p.key.name == "rubric" && p.value) where = p.value->range;
    cx.diags.error(where, with_suggestion(fmt::format("unknown rubric '{}'", judge.rubric), judge.rubric, rubric_names));
  }
}

}  // namespace

void check_judges(CheckContext& cx) {
  NameTable judge_names("judge", cx.diags);
  for (auto [d, j] : all_of<ast::JudgeDecl>(cx.decls)) {
    if (!judge_names.add(j->name)) continue;
    check_preset(cx, j->preset);
    const std::string who = "judge " + j->name.name;
    Judge judge{j->name.name, j->preset.name, j->model.value, "", nlohmann::json::object(), std::nullopt, j->name.range};
    judge.price = resolve_price(cx, who, j->preset.name, j->model.value, j->settings);
    auto provider = cx.spec.providers.find(j->preset.name);
    if (j->settings) {
      check_generation_settings(*j->settings, who, cx.diags,
                                provider == cx.spec.providers.end() ? nullptr : &provider->second);
      judge.params = block_json(*j->settings, cx.diags);
      judge.params.erase("price");
      judge.batch = take_batch(cx, judge.params, j->settings, j->name.range, who);
      check_batch_api(cx, judge.batch, judge.provider, j->name.range, who);
    }
    take_rubric(cx, judge, *j);
    cx.spec.judges.push_back(std::move(judge));
  }
}

}  // namespace mirac
