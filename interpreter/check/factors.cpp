// factors.cpp: `factor NAME { levels }` and the `design` that orders them (every factor,
// in declaration order, when there is none); and the notes that list a factor's levels
// under a level that is not one of them.
#include <set>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

void check_design(CheckContext& cx, const NameTable& factor_names) {
  Spec& spec = cx.spec;
  auto designs = all_of<ast::DesignDecl>(cx.decls);
  if (designs.size() > 1) cx.diags.error(designs[1].first->range, "the spec has a second 'design'");
  if (designs.empty()) {
    for (std::size_t i = 0; i < spec.factors.size(); ++i) spec.design.push_back(static_cast<int>(i));
    return;
  }
  std::set<int> used;
  for (const auto& id : designs[0].second->factors) {
    int fi = spec.factor_index(id.name);
    if (fi < 0) {
      cx.diags.error(id.range,
                     with_suggestion(fmt::format("unknown factor '{}'", id.name), id.name, factor_names.names()));
    } else if (!used.insert(fi).second) {
      cx.diags.error(id.range, fmt::format("factor '{}' appears twice in the design", id.name));
    } else {
      spec.design.push_back(fi);
    }
  }
}

}  // namespace

void check_factors(CheckContext& cx) {
  NameTable factor_names("factor", cx.diags);
  for (auto [d, f] : all_of<ast::FactorDecl>(cx.decls)) {
    if (!factor_names.add(f->name)) continue;
    // With several answers per prompt every row carries its answer's number under that
    // name (exports, scores files, analyses): a factor of the same name would be shadowed.
    if (f->name.name == "answer" && cx.spec.answers > 1)
      cx.diags.error(f->name.range, fmt::format("a factor named 'answer' clashes with the answer number that {} answers "
                                                "per prompt add to every row (exports, scores files, analyses); "
                                                "rename the factor",
                                                cx.spec.answers));
    Factor factor{f->name.name, {}, f->name.range};
    std::set<std::string> seen;
    for (const auto& l : f->levels) {
      if (!seen.insert(l.name.name).second) {
        cx.diags.error(l.name.range, fmt::format("level '{}' appears twice in factor '{}'", l.name.name, f->name.name));
        continue;
      }
      factor.levels.push_back(l);
    }
    if (factor.levels.empty()) cx.diags.error(f->name.range, fmt::format("factor '{}' has no levels", f->name.name));
    cx.spec.factors.push_back(std::move(factor));
  }
  check_design(cx, factor_names);
}

void note_declared_levels(const Spec& spec, int factor, const std::string& level, Diagnostics& diags) {
  auto listed = [&](const Factor& f) {
    std::string out;
    for (const auto& l : f.levels) out += (out.empty() ? "" : ", ") + l.name.name;
    return out;
  };
  if (factor >= 0) {
    const Factor& f = spec.factors[factor];
    diags.note(fmt::format("factor '{}' has the levels {}", f.name, listed(f)));
    // A level of another factor is most often a level written under the wrong factor.
    for (const auto& other : spec.factors)
      if (other.name != f.name && other.level_index(level) >= 0)
        diags.note(fmt::format("'{}' is a level of factor '{}'", level, other.name));
    return;
  }
  for (const auto& f : spec.factors) diags.note(fmt::format("factor '{}' has the levels {}", f.name, listed(f)));
}

}  // namespace mirac
