// invariance_options.cpp: the options of an `invariance` analysis (judge invariance,
// docs/judging.md): `judge NAME`, `translate FACTOR` or `translate FACTOR: a vs b`,
// `translator PRESET("model")`, `instruction LEVEL: "..."`, `sample N` and a `where` that
// reads no score, checked by the Checker of analysis_checker.hpp.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "interpreter/check/analysis_checker.hpp"

namespace mirac::check_detail {

namespace {

const char* const kTranslateForm = "write translate FACTOR (a factor of two levels) or translate FACTOR: a vs b";

}  // namespace

void Checker::invariance_analysis(const ast::AnalysisDecl& a) const {
  for (const char* required : {"translate", "translator"})
    if (!find(a, required))
      diags_.error(a.kind.range, std::string(required) == "translate"
                                     ? "invariance needs the factor whose levels the answers are translated between: "
                                       "translate language"
                                     : "invariance needs a translator model: translator openai(\"gpt-5.4\")");
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
  const ast::RubricDecl* rubric = spec_.find_rubric(rubric_name);
  if (!rubric) return;
  for (const auto& arg : a.args) {
    const std::string dim = name_of_expr(arg);
    if (dim.empty() || !dims_.count(dim)) continue;  // dim_arg said what it is
    const auto found = std::find_if(rubric->dims.begin(), rubric->dims.end(),
                                    [&](const ast::DimDecl& d) { return d.name.name == dim; });
    if (found == rubric->dims.end())
      diags_.error(arg.range, fmt::format("judge '{}' applies rubric '{}', which has no dimension {}", judge, rubric_name, dim));
    else if (!found->asked_of_judge())
      diags_.error(arg.range, fmt::format("the judge does not give {} ({}): there is no judge's score of it to compare",
                                          dim, found->human_only() ? "people score it" : "it is derived from criteria"));
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
  } else if (k == "translate") {
    if (o.values.size() != 1) {
      diags_.error(o.range, kTranslateForm);
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
        diags_.error(at, fmt::format("factor '{}' has {} levels: name the two to translate between, e.g. translate "
                                     "{}: {} vs {}",
                                     factor, fac.levels.size(), factor, fac.levels[0].name.name,
                                     fac.levels[std::min<std::size_t>(1, fac.levels.size() - 1)].name.name));
      return;
    }
    if (!v.versus) {
      diags_.error(v.range, kTranslateForm);
      return;
    }
    level_of(factor, v.value);
    level_of(factor, *v.versus);
    if (name_of_expr(v.value) == name_of_expr(*v.versus))
      diags_.error(v.versus->range, "translate names the same level twice: name two levels, a vs b");
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
