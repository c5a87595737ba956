// corrected_options.cpp: the options of a `corrected` analysis (judge-corrected estimates,
// docs/judging.md): `judge NAME`, `people human`, `contrasts A, B`, `flags F`, `certify qwk
// >= 0.6` and `method ppi | power_tuned`, checked by the Checker of analysis_checker.hpp.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "interpreter/check/analysis_checker.hpp"

namespace mirac::check_detail {

namespace {

// The agreement measures a certification rule may bound, each a share or a kappa in [0, 1]
// for any judge worth certifying.
const std::set<std::string> kCertifyMetrics = {"qwk", "exact", "adjacent"};

const char* const kCertifyForm = "write certify METRIC >= BOUND, e.g. certify qwk >= 0.6 (metrics: qwk, exact, adjacent)";

}  // namespace

const ast::AnalysisOption* Checker::find(const ast::AnalysisDecl& a, const std::string& key) {
  for (const auto& o : a.options)
    if (o.key.name == key) return &o;
  return nullptr;
}

void Checker::corrected_judge(const ast::AnalysisDecl& a) const {
  std::string judge = spec_.scores_rater;
  if (const ast::AnalysisOption* o = find(a, "judge"); o && o->values.size() == 1) {
    judge = rater_name(o->values[0].value);
  } else if (o) {
    return;  // reported with the option
  }
  if (judge.empty() || is_human_rater(judge)) {
    if (!find(a, "judge"))
      diags_.error(a.kind.range, "corrected needs a judge to correct, and the analyses' rater is people: judge NAME");
    return;
  }
  const int j = spec_.judge_index(judge);
  const Panel* panel = j >= 0 ? nullptr : spec_.find_panel(judge);
  if (j < 0 && !panel) return;  // an unknown name is reported with the option
  const std::string rubric_name = j >= 0 ? spec_.judges[static_cast<std::size_t>(j)].rubric : panel->rubric;
  const ast::RubricDecl* rubric = spec_.find_rubric(rubric_name);
  if (!rubric) return;
  for (const auto& arg : a.args) {
    const std::string dim = name_of_expr(arg);
    if (dim.empty() || !dims_.count(dim)) continue;  // dim_arg said what it is
    const auto found = std::find_if(rubric->dims.begin(), rubric->dims.end(),
                                    [&](const ast::DimDecl& d) { return d.name.name == dim; });
    if (found == rubric->dims.end())
      diags_.error(arg.range, fmt::format("judge '{}' applies rubric '{}', which has no dimension {}", judge, rubric_name, dim));
    else if (found->human_only())
      diags_.error(arg.range, fmt::format("{} is scored by people only (scored by human): no judge's score of it to correct",
                                          dim));
  }
}

void Checker::corrected_option(const ast::AnalysisOption& o) const {
  const std::string& k = o.key.name;
  if (k == "judge" || k == "people") {
    if (o.values.size() != 1) {
      diags_.error(o.range, k == "judge" ? "judge takes one judge or panel: judge NAME"
                                         : "people takes one rater: people human, or people human.NAME");
      return;
    }
    const ast::Expr& e = o.values[0].value;
    const std::string name = rater_name(e);
    if (k == "people") {
      if (!is_human_rater(name))
        diags_.error(e.range, fmt::format("people takes human (people's value) or human.NAME (one annotator), not '{}'",
                                          name.empty() ? "?" : name));
      return;
    }
    std::vector<std::string> known;
    for (const auto& j : spec_.judges) known.push_back(j.name);
    for (const auto& p : spec_.panels) known.push_back(p.name);
    if (is_human_rater(name))
      diags_.error(e.range, fmt::format("'{}' is people: corrected corrects a judge or panel with people's scores "
                                        "(people {})", name, name));
    else if (std::find(known.begin(), known.end(), name) == known.end())
      diags_.error(e.range, with_suggestion(fmt::format("'{}' is neither a judge nor a panel", name.empty() ? "?" : name),
                                            name, known));
  } else if (k == "contrasts") {
    std::set<std::string> names;
    for (const auto& c : spec_.contrasts) {
      names.insert(c.name.name);
      if (!c.family.empty()) names.insert(c.family);  // DTI_lang stands for DTI_lang_zh, ...
    }
    for (const auto& v : o.values) {
      const std::string name = name_of_expr(v.value);
      if (!names.count(name))
        diags_.error(v.value.range, with_suggestion(fmt::format("'{}' is not one of the spec's contrasts",
                                                                name.empty() ? "expression" : name),
                                                    name, list(names)));
    }
  } else if (k == "flags") {
    std::set<std::string> unit;
    for (const auto& f : spec_.flags)
      if (f.pairings.empty()) unit.insert(f.name.name);
    for (const auto& v : o.values) {
      const std::string name = name_of_expr(v.value);
      const bool pair = std::any_of(spec_.flags.begin(), spec_.flags.end(),
                                    [&](const ast::FlagDecl& f) { return f.name.name == name && !f.pairings.empty(); });
      if (pair)
        diags_.error(v.value.range, fmt::format("'{}' is a pair flag; corrected corrects the rate of a unit flag, one "
                                                "set on single answers", name));
      else if (!unit.count(name))
        diags_.error(v.value.range, with_suggestion(fmt::format("'{}' is not one of the spec's unit flags",
                                                                name.empty() ? "expression" : name),
                                                    name, list(unit)));
    }
  } else if (k == "certify") {
    std::set<std::string> seen;
    for (const auto& v : o.values) {
      const auto* b = std::get_if<ast::Binary>(&v.value.node);
      if (!b || v.label || v.versus) {
        diags_.error(v.range, kCertifyForm);
        continue;
      }
      if (b->op != ">=" && b->op != ">") {
        diags_.error(v.value.range, fmt::format("certify bounds the judge's agreement with people from below: use >= or "
                                                ">, not {}", b->op));
        continue;
      }
      const std::string metric = name_of_expr(*b->lhs);
      if (!kCertifyMetrics.count(metric)) {
        diags_.error(b->lhs->range, with_suggestion(fmt::format("'{}' is not an agreement measure certify can bound",
                                                                metric.empty() ? "expression" : metric),
                                                    metric, list(kCertifyMetrics)) +
                                        " (qwk, exact or adjacent)");
        continue;
      }
      if (!seen.insert(metric).second) diags_.error(b->lhs->range, fmt::format("certify bounds {} twice", metric));
      const auto* bound = std::get_if<ast::NumberLit>(&b->rhs->node);
      if (!bound || bound->value > 1)
        diags_.error(b->rhs->range, fmt::format("certify's bound on {} is a number from 0 to 1", metric));
    }
  } else if (k == "method") {
    const std::string w = option_word(o.values);
    if (o.values.size() != 1 || (w != "ppi" && w != "power_tuned"))
      diags_.error(o.range, "method must be ppi (prediction-powered inference) or power_tuned (PPI++)");
  }
}

}  // namespace mirac::check_detail
