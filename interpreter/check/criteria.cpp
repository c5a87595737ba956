// check_criteria.cpp: a rubric's `criteria` block and the dimensions derived from it
// (`from criteria { 3 if met >= 0.5 ... }`). Problems are collected, never thrown.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "interpreter/check/check.hpp"

namespace mirac {

namespace {

void check_source(const Spec& spec, const ast::RubricDecl& r, Diagnostics& diags) {
  const ast::CriteriaDecl& c = *r.criteria;
  if (c.per && c.per->name != "answer" && c.per->name != "element")
    diags.error(c.per->range, with_suggestion(fmt::format("'per {}': criteria are graded per answer (in the answer's "
                                                          "judge reply) or per element (one call each)",
                                                          c.per->name),
                                              c.per->name, {"answer", "element"}));
  const auto* f = std::get_if<ast::Field>(&c.source.node);
  const auto* base = f ? std::get_if<ast::Name>(&f->base->node) : nullptr;
  if (!base || base->name != "checklist") {
    diags.error(c.source.range, "criteria name a list in the seeds' checklists, e.g. checklist.required_elements");
    return;
  }
  if (spec.checklists.empty()) {
    diags.error(c.source.range, "criteria need checklists: declare `checklists from ...` with the list per seed");
    return;
  }
  if (std::find(spec.checklist_fields.begin(), spec.checklist_fields.end(), f->field.name) == spec.checklist_fields.end()) {
    diags.error(f->field.range, with_suggestion(fmt::format("checklists have no field '{}'", f->field.name),
                                                f->field.name, spec.checklist_fields));
    return;
  }
  std::size_t without = 0;
  std::string first_without;
  for (const auto& seed : spec.seeds) {
    auto it = spec.checklists.find(seed.id);
    const nlohmann::ordered_json* list = nullptr;
    if (it != spec.checklists.end() && it->second.contains(f->field.name)) list = &it->second[f->field.name];
    if (list && !list->is_array()) {
      diags.error(f->field.range, fmt::format("the checklist of seed '{}' holds {} for '{}', not a list of criteria",
                                              seed.id, list->dump(), f->field.name));
      return;
    }
    if (!list || list->empty()) {
      if (without++ == 0) first_without = seed.id;
      continue;
    }
    for (const auto& item : *list)
      if (!item.is_string()) {
        diags.error(f->field.range, fmt::format("the checklist of seed '{}' lists {} in '{}': each criterion is a text",
                                                seed.id, item.dump(), f->field.name));
        return;
      }
  }
  if (without > 0)
    diags.warning(c.source.range,
                  fmt::format("{} seed(s) have no criteria in checklist.{} (first: '{}'): their answers grade none and "
                              "dimensions derived from the criteria are N/A for them",
                              without, f->field.name, first_without));
}

void check_bands(const ast::RubricDecl& r, const ast::DimDecl& d, double lo, double hi, Diagnostics& diags) {
  if (!r.criteria)
    diags.error(d.bands_range, fmt::format("{} is scored from the criteria, but rubric '{}' grades none: declare "
                                           "`criteria checklist.FIELD {{ ... }}` in the rubric",
                                           d.name.name, r.name.name));
  if (d.scored_by)
    diags.error(d.scored_by->range, fmt::format("{} is derived from the criteria, so nobody scores it: drop `scored by`",
                                                d.name.name));
  double previous = INFINITY;
  bool ends = false;
  for (std::size_t i = 0; i < d.bands.size(); ++i) {
    const ast::Band& b = d.bands[i];
    const auto* score = std::get_if<ast::NumberLit>(&b.score.node);
    if (!score || score->value < lo || score->value > hi || score->value != std::floor(score->value))
      diags.error(b.score.range, fmt::format("a band's score is a whole number on the scale {}..{}", lo, hi));
    if (ends) {
      diags.error(b.range, "this band can never apply: an earlier band covers every share");
      continue;
    }
    if (!b.at_least) {
      ends = true;
      continue;
    }
    const double t = std::get<ast::NumberLit>(b.at_least->node).value;
    if (t < 0 || t > 1) {
      diags.error(b.at_least->range, "a share met is from 0 to 1");
      continue;
    }
    if (t >= previous)
      diags.error(b.at_least->range, fmt::format("bands go from the highest share down: {} follows {}", t, previous));
    previous = t;
    if (t == 0) ends = true;
  }
  if (!ends && !d.bands.empty())
    diags.error(d.bands_range, fmt::format("a share met below {} gives {} no score: end with `N otherwise` or `N if "
                                           "met >= 0`",
                                           previous, d.name.name));
}

// `criteria() { rater NAME ... }`: one judge or panel whose rubric grades criteria (without
// `rater`, the analyses' rater).
void check_analysis(const Spec& spec, const ast::AnalysisDecl& a, Diagnostics& diags) {
  std::string rater = spec.scores_rater;
  SourceRange where = a.kind.range;
  for (const auto& o : a.options) {
    if (o.key.name != "rater") continue;
    if (o.values.size() != 1 || o.values[0].versus) {
      diags.error(o.range, "criteria read one rater: rater NAME");
      return;
    }
    rater = rater_name(o.values[0].value);
    where = o.values[0].range;
  }
  const ast::RubricDecl* rubric = nullptr;
  if (int j = spec.judge_index(rater); j >= 0) rubric = spec.find_rubric(spec.judges[static_cast<std::size_t>(j)].rubric);
  else if (const Panel* p = spec.find_panel(rater)) rubric = spec.find_rubric(p->rubric);
  else {
    std::vector<std::string> known;
    for (const auto& j : spec.judges) known.push_back(j.name);
    for (const auto& p : spec.panels) known.push_back(p.name);
    diags.error(where, with_suggestion(fmt::format("'{}' is neither a judge nor a panel", rater), rater, known));
    return;
  }
  if (rubric && !rubric->criteria)
    diags.error(where, fmt::format("rater '{}' applies rubric '{}', which grades no criteria (name a rater whose rubric "
                                   "declares `criteria`: rater NAME)",
                                   rater, rubric->name.name));
}

}  // namespace

void check_criteria(const Spec& spec, Diagnostics& diags) {
  for (const auto& a : spec.analyses)
    if (a.kind.name == "criteria") check_analysis(spec, a, diags);
  for (const auto& r : spec.rubrics) {
    double lo = 1, hi = 5;
    if (r.scale)
      if (const auto* range = std::get_if<ast::RangeLit>(&r.scale->node)) {
        const auto* a = std::get_if<ast::NumberLit>(&range->lo->node);
        const auto* b = std::get_if<ast::NumberLit>(&range->hi->node);
        if (a && b) lo = a->value, hi = b->value;
      }
    if (r.criteria) check_source(spec, r, diags);
    for (const auto& d : r.dims) {
      const ScoreScale own = d.scale ? dim_scale(r, d.name.name) : ScoreScale{lo, hi};
      if (d.derived()) check_bands(r, d, own.lo, own.hi, diags);
    }
  }
}

}  // namespace mirac
