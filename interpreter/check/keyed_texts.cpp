// keyed_texts.cpp: `text NAME by f1 * f2 { l1.l2 TEXTS ... }`, a text per cell of several
// factors (a first name per gender and ethnicity), read in a cell as `NAME.text`. Every cell
// of the `by` factors needs exactly one text (per language, when the entries are per language),
// so a prompt never silently lacks one.

#include <algorithm>

#include <fmt/format.h>

#include "interpreter/check/keyed_texts.hpp"
#include "interpreter/check/check.hpp"
#include "interpreter/check/factor_lookup.hpp"

namespace mirac {

namespace {

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string cell_name(const Spec& spec, const std::vector<int>& by, std::size_t cell) {
  std::string out;
  for (std::size_t k = by.size(); k-- > 0;) {
    const Factor& f = spec.factors[by[k]];
    out = f.levels[cell % f.levels.size()].name.name + (out.empty() ? "" : "." + out);
    cell /= f.levels.size();
  }
  return out;
}

// The `by` factors, each once; false when one is unknown or repeated (reported).
bool resolve_by(const Spec& spec, const ast::TextDecl& t, std::vector<int>& by, Diagnostics& diags) {
  bool ok = true;
  for (const auto& id : t.by) {
    const int f = factor_or_report(spec, id, diags);
    if (f < 0) {
      ok = false;
    } else if (std::find(by.begin(), by.end(), f) != by.end()) {
      diags.error(id.range, fmt::format("factor '{}' is named twice in the 'by' of text '{}'", id.name, t.factor.name));
      ok = false;
    } else {
      by.push_back(f);
    }
  }
  return ok;
}

// The factor whose levels the per-language keys name (language, usually), or -1 when every
// entry is one text for all; it cannot be one of the `by` factors, whose levels pick the cell.
int index_factor_of(const Spec& spec, const ast::TextDecl& t, const std::vector<int>& by, bool& ok, Diagnostics& diags) {
  const ast::Ident* first = nullptr;
  for (const auto& c : t.cells)
    if (!c.texts.by_level.empty() && !first) first = &c.texts.by_level.front().first;
  if (!first) return -1;
  int found = -1;
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    if (spec.factors[f].level_index(first->name) >= 0) found = static_cast<int>(f);
  if (found < 0) {
    diags.error(first->range, fmt::format("'{}' is not a level of any factor", first->name));
    note_declared_levels(spec, -1, first->name, diags);
    ok = false;
    return -1;
  }
  if (std::find(by.begin(), by.end(), found) != by.end()) {
    diags.error(first->range, fmt::format("text '{}' is keyed by factor '{}' already: '{}' belongs in the entry's "
                                          "levels joined by dots, not in its braces",
                                          t.factor.name, spec.factors[found].name, first->name));
    ok = false;
    return -1;
  }
  for (const auto& c : t.cells)
    for (const auto& [key, expr] : c.texts.by_level)
      if (spec.factors[found].level_index(key.name) < 0) {
        diags.error(key.range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", key.name, spec.factors[found].name),
                                               key.name, spec.factors[found].level_names()));
        note_declared_levels(spec, found, key.name, diags);
        ok = false;
      }
  return found;
}

// The cell a path names (last factor fastest), or -1 when it names a wrong level or the
// wrong number of them (reported).
int cell_of(const Spec& spec, const ast::TextDecl& t, const std::vector<int>& by, const ast::CellPath& path,
            Diagnostics& diags) {
  if (path.levels.size() != by.size()) {
    std::vector<std::string> factors;
    for (int f : by) factors.push_back(spec.factors[f].name);
    diags.error(path.range, fmt::format("text '{}' is keyed by {}, so each entry names {} levels joined by dots "
                                        "(one of each, in that order); this one names {}",
                                        t.factor.name, listed(factors), by.size(), path.levels.size()));
    return -1;
  }
  int cell = 0;
  for (std::size_t k = 0; k < by.size(); ++k) {
    const Factor& f = spec.factors[by[k]];
    int l = f.level_index(path.levels[k].name);
    if (l < 0) {
      diags.error(path.levels[k].range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", path.levels[k].name, f.name),
                                                        path.levels[k].name, f.level_names()));
      note_declared_levels(spec, by[k], path.levels[k].name, diags);
      return -1;
    }
    cell = cell * static_cast<int>(f.levels.size()) + l;
  }
  return cell;
}

// A keyed text's name is read as a bare name in cells: it must not hide another one.
bool name_is_free(const Spec& spec, const ast::TextDecl& t, Diagnostics& diags) {
  const std::string& name = t.factor.name;
  std::string clash;
  if (spec.factor_index(name) >= 0) clash = fmt::format("'{}' is a factor", name);
  else if (name == "seed" || name == "checklist") clash = fmt::format("'{}' is a name every prompt reads", name);
  for (const auto& f : spec.factors)
    if (clash.empty() && f.level_index(name) >= 0) clash = fmt::format("'{}' is a level of factor '{}'", name, f.name);
  if (clash.empty() && spec.keyed_text(name)) clash = fmt::format("text '{}' is declared already", name);
  if (clash.empty()) return true;
  diags.error(t.factor.range, fmt::format("{}; a text keyed by factors takes a name of its own, read as NAME.text", clash));
  return false;
}

}  // namespace

void bind_keyed_text(Spec& spec, const ast::TextDecl& t, Diagnostics& diags) {
  std::vector<int> by;
  bool ok = name_is_free(spec, t, diags);
  ok = resolve_by(spec, t, by, diags) && ok;
  if (!ok) return;
  int index_factor = index_factor_of(spec, t, by, ok, diags);
  std::size_t cells = 1;
  for (int f : by) cells *= spec.factors[f].levels.size();
  const std::size_t width = index_factor >= 0 ? spec.factors[index_factor].levels.size() : 1;
  TextTable table;
  table.name = t.factor.name;
  table.by = by;
  table.index_factor = index_factor;
  table.texts.assign(cells, std::vector<std::optional<ast::Expr>>(width));
  std::vector<std::vector<const ast::CellPath*>> given(cells, std::vector<const ast::CellPath*>(width, nullptr));
  for (const auto& entry : t.cells) {
    int cell = cell_of(spec, t, by, entry.cell, diags);
    if (cell < 0) {
      ok = false;
      continue;
    }
    std::vector<std::string> twice;  // the languages this entry gives a second time
    auto give = [&](std::size_t i, const ast::Expr& expr) {
      if (given[cell][i]) {
        if (index_factor >= 0) twice.push_back(spec.factors[index_factor].levels[i].name.name);
        if (twice.empty()) twice.push_back("");
        return;
      }
      given[cell][i] = &entry.cell;
      table.texts[cell][i] = expr;
    };
    if (entry.texts.all) {
      for (std::size_t i = 0; i < width; ++i) give(i, *entry.texts.all);
    } else if (index_factor >= 0) {
      for (const auto& [key, expr] : entry.texts.by_level)
        if (int i = spec.factors[index_factor].level_index(key.name); i >= 0) give(static_cast<std::size_t>(i), expr);
    }
    if (!twice.empty()) {
      const ast::CellPath* first = nullptr;
      for (const auto* g : given[cell])
        if (g && g != &entry.cell && !first) first = g;
      diags.error(entry.cell.range, fmt::format("text '{}' gives {} a second text{}", t.factor.name,
                                                cell_name(spec, by, static_cast<std::size_t>(cell)),
                                                twice.front().empty() ? "" : " for " + listed(twice)));
      if (first) diags.note(fmt::format("the first is at line {}", first->range.begin.line));
      ok = false;
    }
  }
  // Missing cells are reported once, all of them, where the text is declared: a cell with
  // none of its texts by its name, one with some by the levels it lacks them for.
  std::vector<std::string> missing;
  for (std::size_t c = 0; c < cells; ++c) {
    std::vector<std::string> lacking;
    for (std::size_t i = 0; i < width; ++i)
      if (!table.texts[c][i] && index_factor >= 0) lacking.push_back(spec.factors[index_factor].levels[i].name.name);
      else if (!table.texts[c][i]) lacking.push_back("");
    if (lacking.empty()) continue;
    missing.push_back(cell_name(spec, by, c) + (lacking.size() == width ? "" : " (" + listed(lacking) + ")"));
  }
  if (ok && !missing.empty()) {
    diags.error(t.factor.range, fmt::format("text '{}' has no text for {}", t.factor.name, listed(missing)));
    std::vector<std::string> names;
    for (int f : by) names.push_back(spec.factors[f].name);
    diags.note(fmt::format("every combination of levels of {} needs a text{}", listed(names),
                           index_factor >= 0 ? " for every level of '" + spec.factors[index_factor].name + "'" : ""));
  }
  spec.texts.push_back(std::move(table));
}

}  // namespace mirac
