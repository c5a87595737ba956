// invariance_options.cpp: the options of an `invariance` analysis (judge invariance,
// docs/judging.md): `judge NAME`; either `translate FACTOR` (or `FACTOR: a vs b`) with
// `translator PRESET("model")` and `instruction LEVEL: "..."`, or `rubric NAME` with
// `across FACTOR`; `sample N` and a `where` that reads no score, checked by the Checker of
// analysis_checker.hpp.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "interpreter/check/analysis_checker.hpp"

namespace mirac::check_detail {

namespace {

const char* const kTranslateForm = "write translate FACTOR (a factor of two levels) or translate FACTOR: a vs b";
const char* const kAcrossForm = "write across FACTOR (a factor of two levels) or across FACTOR: a vs b";

}  // namespace

void Checker::invariance_analysis(const ast::AnalysisDecl& a) const {
  const ast::AnalysisOption* translate = find(a, "translate");
  const ast::AnalysisOption* rubric = find(a, "rubric");
  if (translate && rubric) {
    diags_.error(rubric->key.range, "invariance makes one change: translate or rubric, not both; declare an analysis "
                                    "for each");
  } else if (!translate && !rubric) {
    diags_.error(a.kind.range, "invariance needs the change to judge the answers under: translate language (each answer "
                               "in the other level) or rubric NAME (the same answers under another rubric)");
  } else if (translate) {
    if (!find(a, "translator"))
      diags_.error(a.kind.range, "invariance needs a translator model: translator openai(\"gpt-5.4\")");
    if (const ast::AnalysisOption* across = find(a, "across"))
      diags_.error(across->key.range, "across is for a rubric check: translate names the factor itself");
  } else {
    if (!find(a, "across"))
      diags_.error(a.kind.range, "a rubric check needs the factor whose levels it compares: across language, or across "
                                 "language: zh vs en");
    for (const char* only : {"translator", "instruction"})
      if (const ast::AnalysisOption* o = find(a, only))
        diags_.error(o->key.range, fmt::format("{} is for a translation check; a rubric check judges the answers "
                                               "themselves",
                                               only));
  }
  std::string judge = spec_.scores_rater;
  if (const ast::AnalysisOption* o = find(a, "judge")) {
    if (o->values.size() != 1) return;  // reported with the option
    judge = rater_name(o->values[0].value);
  }
  const int j = spec_.judge_index(judge);
  if (j < 0) {
    if (!find(a, "judge"))
      diags_.error(a.kind.range, fmt::format("invariance judges answers again with one judge, and the analyses' rater "
                                             "'{}' is not a judge: judge NAME",
                                             judge.empty() ? "?" : judge));
    return;
  }
  const std::string& rubric_name = spec_.judges[static_cast<std::size_t>(j)].rubric;
  const ast::RubricDecl* own = spec_.find_rubric(rubric_name);
  if (!own) return;
  const ast::RubricDecl* other = nullptr;
  if (rubric && rubric->values.size() == 1) {
    other = spec_.find_rubric(name_of_expr(rubric->values[0].value));
    if (other) same_scale(*own, *other, rubric->values[0].value.range);
  }
  for (const auto& arg : a.args) {
    const std::string dim = name_of_expr(arg);
    if (dim.empty() || !dims_.count(dim)) continue;  // dim_arg said what it is
    for (const ast::RubricDecl* r : {own, other}) {
      if (!r) continue;
      const auto found = std::find_if(r->dims.begin(), r->dims.end(), [&](const ast::DimDecl& d) { return d.name.name == dim; });
      if (found == r->dims.end())
        diags_.error(arg.range, r == own ? fmt::format("judge '{}' applies rubric '{}', which has no dimension {}", judge,
                                                       rubric_name, dim)
                                         : fmt::format("rubric '{}' has no dimension {} to judge again", r->name.name, dim));
      else if (!found->asked_of_judge())
        diags_.error(arg.range, fmt::format("rubric '{}' does not ask the judge for {} ({}): there is no judge's score of "
                                            "it to compare",
                                            r->name.name, dim, found->human_only() ? "people score it" : "it is derived from criteria"));
    }
  }
}

// A rubric's scores compare with the judge's own only on the same scale, worst at the same end.
void Checker::same_scale(const ast::RubricDecl& own, const ast::RubricDecl& other, const SourceRange& at) const {
  auto bounds = [](const ast::RubricDecl& r) {
    std::pair<double, double> out{1, 5};
    if (const auto* range = r.scale ? std::get_if<ast::RangeLit>(&r.scale->node) : nullptr) {
      const auto* lo = std::get_if<ast::NumberLit>(&range->lo->node);
      const auto* hi = std::get_if<ast::NumberLit>(&range->hi->node);
      if (lo && hi) out = {lo->value, hi->value};
    }
    return out;
  };
  auto worst = [](const ast::RubricDecl& r) { return r.worst ? r.worst->name : std::string("high"); };
  const auto [lo, hi] = bounds(own);
  const auto [other_lo, other_hi] = bounds(other);
  if (!has_dim_scales(own) && !has_dim_scales(other)) {
    if (lo != other_lo || hi != other_hi || worst(own) != worst(other))
      diags_.error(at, fmt::format("rubric '{}' scores {}..{} (worst {}) and the judge's rubric '{}' {}..{} (worst {}): "
                                   "scores compare only on one scale",
                                   other.name.name, other_lo, other_hi, worst(other), own.name.name, lo, hi, worst(own)));
    return;
  }
  // Dimensions with scales of their own: each dimension both rubrics have compares on its own.
  for (const auto& d : own.dims) {
    if (std::none_of(other.dims.begin(), other.dims.end(), [&](const ast::DimDecl& o) { return o.name.name == d.name.name; }))
      continue;
    const ScoreScale mine = dim_scale(own, d.name.name), theirs = dim_scale(other, d.name.name);
    if (mine == theirs && worst(own) == worst(other)) continue;
    diags_.error(at, fmt::format("dimension '{}' of rubric '{}' scores {}..{} (worst {}) and of the judge's rubric '{}' "
                                 "{}..{} (worst {}): scores compare only on one scale",
                                 d.name.name, other.name.name, theirs.lo, theirs.hi, worst(other), own.name.name, mine.lo,
                                 mine.hi, worst(own)));
    return;
  }
}

void Checker::invariance_option(const ast::AnalysisDecl& a, const ast::AnalysisOption& o) const {
  const std::string& k = o.key.name;
  if (k == "judge") {
    const std::string name = o.values.size() == 1 ? rater_name(o.values[0].value) : "";
    std::vector<std::string> judges;
    for (const auto& j : spec_.judges) judges.push_back(j.name);
    if (o.values.size() != 1) diags_.error(o.range, "judge takes one judge: judge NAME");
    else if (spec_.find_panel(name))
      diags_.error(o.values[0].value.range, fmt::format("'{}' is a panel; invariance judges answers again with one of "
                                                        "its judges: judge NAME",
                                                        name));
    else if (spec_.judge_index(name) < 0)
      diags_.error(o.values[0].value.range, with_suggestion(fmt::format("'{}' is not a judge", name.empty() ? "?" : name),
                                                            name, judges));
  } else if (k == "rubric") {
    const std::string name = o.values.size() == 1 && !o.values[0].label ? name_of_expr(o.values[0].value) : "";
    std::vector<std::string> rubrics;
    for (const auto& r : spec_.rubrics) rubrics.push_back(r.name.name);
    if (name.empty())
      diags_.error(o.range, "rubric names the rubric to judge the answers again with: rubric mira_zh");
    else if (!spec_.find_rubric(name))
      diags_.error(o.values[0].value.range, with_suggestion(fmt::format("'{}' is not a rubric", name), name, rubrics));
  } else if (k == "translate" || k == "across") {
    if (o.values.size() != 1) {
      diags_.error(o.range, k == "across" ? kAcrossForm : kTranslateForm);
      return;
    }
    const ast::OptionValue& v = o.values[0];
    const std::string factor = v.label ? v.label->name : name_of_expr(v.value);
    const SourceRange at = v.label ? v.label->range : v.value.range;
    const int f = spec_.factor_index(factor);
    if (f < 0) {
      diags_.error(at, with_suggestion(fmt::format("'{}' is not a factor", factor.empty() ? "?" : factor), factor,
                                       list(factors_)));
      return;
    }
    const Factor& fac = spec_.factors[static_cast<std::size_t>(f)];
    if (!v.label) {
      if (fac.levels.size() != 2)
        diags_.error(at, fmt::format("factor '{}' has {} levels: name the two to {}, e.g. {} {}: {} vs {}", factor,
                                     fac.levels.size(), k == "across" ? "compare" : "translate between", k, factor,
                                     fac.levels[0].name.name,
                                     fac.levels[std::min<std::size_t>(1, fac.levels.size() - 1)].name.name));
      return;
    }
    if (!v.versus) {
      diags_.error(v.range, k == "across" ? kAcrossForm : kTranslateForm);
      return;
    }
    level_of(factor, v.value);
    level_of(factor, *v.versus);
    if (name_of_expr(v.value) == name_of_expr(*v.versus))
      diags_.error(v.versus->range, fmt::format("{} names the same level twice: name two levels, a vs b", k));
  } else if (k == "translator") {
    const auto* call = o.values.size() == 1 ? std::get_if<ast::Call>(&o.values[0].value.node) : nullptr;
    if (!call || call->args.size() != 1 || !std::holds_alternative<ast::StringLit>(call->args[0].node)) {
      diags_.error(o.range, "translator is a provider and a model string: translator openai(\"gpt-5.4\")");
      return;
    }
    if (!spec_.providers.count(call->callee.name)) {
      std::vector<std::string> known;
      for (const auto& [name, _] : spec_.providers) known.push_back(name);
      diags_.error(call->callee.range, with_suggestion(fmt::format("unknown provider '{}'", call->callee.name),
                                                       call->callee.name, known));
    }
  } else if (k == "instruction") {
    const ast::AnalysisOption* translate = find(a, "translate");
    const ast::OptionValue* t = translate && translate->values.size() == 1 ? &translate->values[0] : nullptr;
    const std::string factor = !t ? "" : t->label ? t->label->name : name_of_expr(t->value);
    std::set<std::string> seen;
    for (const auto& v : o.values) {
      if (!v.label || !std::holds_alternative<ast::StringLit>(v.value.node) || v.versus) {
        diags_.error(v.range, "write instruction LEVEL: \"how to translate into that level\", e.g. instruction en: "
                              "\"Translate into English ...\"");
        continue;
      }
      if (spec_.factor_index(factor) >= 0) level_of(factor, ast::Expr{ast::Name{v.label->name}, v.label->range});
      if (!seen.insert(v.label->name).second)
        diags_.error(v.label->range, fmt::format("instruction for '{}' is given twice", v.label->name));
    }
  } else if (k == "sample") {
    const auto* n = o.values.size() == 1 ? std::get_if<ast::NumberLit>(&o.values[0].value.node) : nullptr;
    if (!n || n->value < 1 || n->value != static_cast<double>(static_cast<long long>(n->value)))
      diags_.error(o.range, "sample is a whole number of answer pairs per model and arm, e.g. sample 40");
  } else if (k == "where") {
    NameEnv env = row_env();
    env.dims_forbidden = "invariance samples the answers before they are judged, so its where reads no score";
    for (const auto& v : o.values) names(v.value, env);
  }
}

}  // namespace mirac::check_detail
