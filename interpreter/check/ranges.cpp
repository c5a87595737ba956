// ranges.cpp: contrasts and pair flags that range over the levels of a factor. `D3[each
// language, formal, high] - D3[en, formal, high]` stands for one contrast per level of
// `language` that the contrast names nowhere else, `pair(language: each vs en)` for one
// pairing per level but `en`; so a level added to the factor (a variant adding Japanese)
// is covered without editing them.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "interpreter/check/check.hpp"

namespace mirac {

namespace {

// Calls `f` on every item of every cell selection in `e`.
template <typename F>
void for_cell_items(ast::Expr& e, F&& f) {
  std::visit(
      [&](auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::CellSelect>) {
          for (auto& item : n.items) f(item);
          for_cell_items(*n.base, f);
        } else if constexpr (std::is_same_v<T, ast::Field>) {
          for_cell_items(*n.base, f);
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          for (auto& a : n.args) for_cell_items(a, f);
        } else if constexpr (std::is_same_v<T, ast::ListLit>) {
          for (auto& a : n.items) for_cell_items(a, f);
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          for_cell_items(*n.operand, f);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          for_cell_items(*n.lhs, f);
          for_cell_items(*n.rhs, f);
        } else if constexpr (std::is_same_v<T, ast::IfExpr>) {
          for_cell_items(*n.cond, f);
          for_cell_items(*n.then_branch, f);
          for_cell_items(*n.else_branch, f);
        } else if constexpr (std::is_same_v<T, ast::RangeLit>) {
          for_cell_items(*n.lo, f);
          for_cell_items(*n.hi, f);
        }
      },
      e.node);
}

class Expander {
 public:
  Expander(Spec& spec, const SourceManager& sources, Diagnostics& diags) : spec_(spec), sources_(sources), diags_(diags) {}

  void run() {
    for (const auto& c : spec_.contrasts) declared_.emplace(c.name.name, c.name.range);
    std::vector<ast::ContrastDecl> contrasts;
    for (auto& c : spec_.contrasts) contrast(std::move(c), contrasts);
    spec_.contrasts = std::move(contrasts);
    // A flag whose pairing cannot be expanded is left out (reported), not checked as a unit flag.
    std::erase_if(spec_.flags, [&](ast::FlagDecl& f) { return !flag(f); });
    for (auto& r : spec_.reports) report(r);
  }

 private:
  std::vector<std::string> factor_names() const {
    std::vector<std::string> out;
    for (const auto& f : spec_.factors) out.push_back(f.name);
    return out;
  }

  // The levels `each FACTOR` stands for in contrast `c`: those of the factor that no other
  // item of its cell selections names. -1 and nothing when it cannot be expanded (reported).
  int ranged_factor(ast::ContrastDecl& c, std::vector<std::string>& levels) {
    std::vector<ast::CellItem*> each;
    for_cell_items(c.value, [&](ast::CellItem& i) {
      if (i.each) each.push_back(&i);
    });
    if (each.empty()) return -2;  // not a ranging contrast
    int factor = -1;
    for (ast::CellItem* i : each) {
      int f = spec_.factor_index(i->factor->name);
      if (f < 0) {
        diags_.error(i->factor->range, with_suggestion(fmt::format("unknown factor '{}'", i->factor->name),
                                                       i->factor->name, factor_names()));
        return -1;
      }
      if (factor >= 0 && f != factor) {
        diags_.error(i->level.range, fmt::format("contrast '{}' ranges over two factors, '{}' and '{}'; a contrast "
                                                 "ranges over one (write one contrast per factor)",
                                                 c.name.name, spec_.factors[factor].name, i->factor->name));
        return -1;
      }
      factor = f;
    }
    const Factor& ranged = spec_.factors[factor];
    std::vector<bool> named(ranged.levels.size(), false);
    for_cell_items(c.value, [&](ast::CellItem& i) {
      if (i.each || (i.factor && i.factor->name != ranged.name)) return;
      if (int l = ranged.level_index(i.level.name); l >= 0) named[l] = true;
    });
    for (std::size_t l = 0; l < ranged.levels.size(); ++l)
      if (!named[l]) levels.push_back(ranged.levels[l].name.name);
    if (levels.empty()) {
      diags_.error(each.front()->level.range, fmt::format("'each {}' stands for no level: the contrast names every "
                                                          "level of '{}' elsewhere", ranged.name, ranged.name));
      return -1;
    }
    return factor;
  }

  // The source text of `c`'s expression with `level` in place of each `each F`.
  std::string definition(const ast::ContrastDecl& c, const std::string& level) {
    const SourceRange& r = c.value.range;
    std::string text = sources_.text(r.file).substr(r.begin.byte, r.end.byte - r.begin.byte);
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    ast::Expr copy = c.value;
    for_cell_items(copy, [&](ast::CellItem& i) {
      if (i.each && i.level.range.file == r.file) spans.emplace_back(i.level.range.begin.byte, i.level.range.end.byte);
    });
    std::sort(spans.rbegin(), spans.rend());
    for (auto [begin, end] : spans)
      if (begin >= r.begin.byte && end <= r.end.byte) text.replace(begin - r.begin.byte, end - begin, level);
    return text;
  }

  void contrast(ast::ContrastDecl c, std::vector<ast::ContrastDecl>& out) {
    std::vector<std::string> levels;
    const int factor = ranged_factor(c, levels);
    if (factor == -2) return out.push_back(std::move(c));
    if (factor < 0) return;
    std::vector<std::string>& names = families_[c.name.name];
    for (const auto& level : levels) {
      ast::ContrastDecl one = c;
      one.definition = definition(c, level);
      one.family = c.name.name;
      for_cell_items(one.value, [&](ast::CellItem& i) {
        if (!i.each) return;
        i.level.name = level;
        i.each = false;
      });
      if (levels.size() > 1) one.name.name += "_" + level;
      if (auto other = declared_.find(one.name.name); other != declared_.end() && one.name.name != c.name.name) {
        diags_.error(c.name.range, fmt::format("contrast '{}' stands for '{}' at level {}, the name of the contrast "
                                               "declared at line {}", c.name.name, one.name.name, level,
                                               other->second.begin.line));
        continue;
      }
      names.push_back(one.name.name);
      out.push_back(std::move(one));
    }
  }

  bool flag(ast::FlagDecl& f) {
    const std::size_t errors = diags_.error_count();
    std::vector<ast::Pairing> pairings;
    for (auto& p : f.pairings) {
      const int factor = spec_.factor_index(p.factor.name);
      if ((!p.each_a && !p.each_b) || factor < 0) {  // an unknown factor is reported with the flag's other checks
        pairings.push_back(p);
        continue;
      }
      if (p.each_a && p.each_b) {
        diags_.error(p.b.range, fmt::format("a pairing compares each level with one named level: pair({}: each vs LEVEL)",
                                            p.factor.name));
        continue;
      }
      const Factor& ranged = spec_.factors[factor];
      const ast::Ident& other = p.each_a ? p.b : p.a;
      const ast::Ident& each = p.each_a ? p.a : p.b;
      std::size_t before = pairings.size();
      for (const auto& level : ranged.levels) {
        if (level.name.name == other.name) continue;
        ast::Pairing one = p;
        (p.each_a ? one.a : one.b) = ast::Ident{level.name.name, each.range};
        one.each_a = one.each_b = false;
        pairings.push_back(std::move(one));
      }
      if (pairings.size() == before)
        diags_.error(each.range, fmt::format("'each' stands for no level: factor '{}' has no level but '{}'", ranged.name,
                                             other.name));
    }
    f.pairings = std::move(pairings);
    return diags_.error_count() == errors;
  }

  // `contrasts(DTI_lang)` names every contrast DTI_lang ranges over.
  void report(ast::ReportDecl& r) {
    for (auto& item : r.items) {
      auto* call = item.content ? std::get_if<ast::Call>(&item.content->node) : nullptr;
      if (!call || call->callee.name != "contrasts") continue;
      std::vector<ast::Expr> args;
      for (auto& a : call->args) {
        const auto* n = std::get_if<ast::Name>(&a.node);
        auto family = n ? families_.find(n->name) : families_.end();
        if (family == families_.end()) {
          args.push_back(std::move(a));
          continue;
        }
        for (const auto& name : family->second) args.push_back(ast::Expr{ast::Name{name}, a.range});
      }
      call->args = std::move(args);
    }
  }

  Spec& spec_;
  const SourceManager& sources_;
  Diagnostics& diags_;
  std::map<std::string, std::vector<std::string>> families_;  ///< ranging contrast -> its contrasts
  std::map<std::string, SourceRange> declared_;               ///< every contrast's name as declared
};

}  // namespace

void expand_ranges(Spec& spec, const SourceManager& sources, Diagnostics& diags) {
  Expander(spec, sources, diags).run();
}

}  // namespace mirac
