// raters.cpp: the raters of a spec: its judges (checked in judges.cpp), the panels
// that combine them, and which rater's scores the analyses use (the header's `scores`).
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/check/context.hpp"

namespace mirac {

void check_raters(Spec& spec, const std::vector<const ast::Decl*>& decls, const ast::Property* scores_setting,
                  Diagnostics& diags) {
  std::vector<std::string> judge_names;
  for (const auto& j : spec.judges) judge_names.push_back(j.name);
  std::set<std::string> taken(judge_names.begin(), judge_names.end());
  std::set<std::string> declared;  // panels, valid or not (an invalid one was reported already)
  for (const ast::Decl* d : decls) {
    const auto* p = std::get_if<ast::PanelDecl>(&d->node);
    if (!p) continue;
    declared.insert(p->name.name);
    if (!taken.insert(p->name.name).second) {
      diags.error(p->name.range, fmt::format("'{}' already names a judge or a panel; raters need names of their own",
                                             p->name.name));
      continue;
    }
    Panel panel{p->name.name, p->aggregate.name, {}, "", p->name.range};
    bool ok = true;
    if (panel.aggregate != "mean" && panel.aggregate != "median") {
      diags.error(p->aggregate.range, with_suggestion(fmt::format("unknown panel aggregate '{}' (mean or median)",
                                                                  panel.aggregate),
                                                      panel.aggregate, {"mean", "median"}));
      ok = false;
    }
    std::set<int> members;
    for (const auto& member : p->judges) {
      const int j = spec.judge_index(member.name);
      if (j < 0) {
        diags.error(member.range, with_suggestion(fmt::format("panel '{}': unknown judge '{}'", panel.name, member.name),
                                                  member.name, judge_names));
        ok = false;
      } else if (!members.insert(j).second) {
        diags.error(member.range, fmt::format("panel '{}' names judge '{}' twice", panel.name, member.name));
        ok = false;
      } else {
        panel.judges.push_back(j);
      }
    }
    if (ok && panel.judges.size() < 2) {
      diags.error(p->name.range, fmt::format("panel '{}' needs at least two judges", panel.name));
      ok = false;
    }
    // One rubric: a panel's score of a dimension combines the same question asked of each.
    for (int j : panel.judges) {
      const Judge& judge = spec.judges[static_cast<std::size_t>(j)];
      if (panel.rubric.empty()) panel.rubric = judge.rubric;
      if (judge.rubric == panel.rubric) continue;
      diags.error(p->name.range, fmt::format("panel '{}' mixes rubrics: judge '{}' applies '{}', judge '{}' applies "
                                             "'{}'; a panel's judges apply one rubric",
                                             panel.name, spec.judges[static_cast<std::size_t>(panel.judges[0])].name,
                                             panel.rubric, judge.name, judge.rubric));
      ok = false;
      break;
    }
    if (ok) spec.panels.push_back(std::move(panel));
  }

  if (!spec.judges.empty()) spec.scores_rater = spec.judges.front().name;
  if (!scores_setting) return;
  const auto* name = scores_setting->value ? std::get_if<ast::Name>(&scores_setting->value->node) : nullptr;
  const auto* text = scores_setting->value ? std::get_if<ast::StringLit>(&scores_setting->value->node) : nullptr;
  const SourceRange at = scores_setting->value ? scores_setting->value->range : scores_setting->key.range;
  if (!name && !text) {
    diags.error(at, "'scores' names the judge or panel whose scores the analyses use");
    return;
  }
  const std::string rater = name ? name->name : text->value;
  std::vector<std::string> raters = judge_names;
  for (const auto& p : spec.panels) raters.push_back(p.name);
  if (spec.judge_index(rater) < 0 && !spec.find_panel(rater)) {
    if (declared.count(rater)) return;
    diags.error(at, with_suggestion(fmt::format("'scores': '{}' is neither a judge nor a panel", rater), rater, raters));
    return;
  }
  spec.scores_rater = rater;
}

void check_panels(CheckContext& cx) { check_raters(cx.spec, cx.decls, cx.scores_setting, cx.diags); }

}  // namespace mirac
