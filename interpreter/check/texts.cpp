// texts.cpp: the text of each factor level (inline, from a JSON document, or derived from
// the rows of a data file) and the prompt declaration.

#include <algorithm>

#include <fmt/format.h>

#include "interpreter/eval/cell_scope.hpp"
#include "interpreter/eval/placeholder_range.hpp"
#include "interpreter/check/context.hpp"
#include "interpreter/check/factor_lookup.hpp"
#include "interpreter/check/keyed_texts.hpp"

namespace mirac {

namespace {

// A text from a data file becomes a string expression located in that file.
ast::Expr located_string(std::string text, SourceRange range) {
  ast::Expr e;
  e.range = range;
  e.node = ast::StringLit{std::move(text), false};
  return e;
}

std::string escape_braces(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

SourceRange find_in_file(const SourceManager& sources, FileId file, const std::string& needle) {
  std::string quoted = nlohmann::json(needle).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::size_t at = sources.text(file).find(quoted);
  if (at == std::string::npos) return sources.range(file, 0, 0);
  return sources.range(file, at, at + quoted.size());
}

// Values of a data row, for `where` and `select`.
class RowScope : public Scope {
 public:
  explicit RowScope(const DataRow& row) : row_(row) {}
  std::optional<Value> name(const std::string& n) const override {
    auto it = row_.fields.find(n);
    if (it == row_.fields.end()) return std::nullopt;
    return Value::from_json(*it);
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (auto it = row_.fields.begin(); it != row_.fields.end(); ++it) out.push_back(it.key());
    return out;
  }

 private:
  const DataRow& row_;
};

// The factor whose levels the per-language keys of a text declaration name.
int index_factor_of(const Spec& spec, const ast::TextDecl& t, const nlohmann::ordered_json* json_levels,
                    Diagnostics& diags) {
  std::vector<const ast::Ident*> keys;
  for (const auto& level : t.levels)
    if (level.texts)
      for (const auto& [k, v] : level.texts->by_level) keys.push_back(&k);
  std::string first;
  SourceRange where;
  if (!keys.empty()) {
    first = keys[0]->name;
    where = keys[0]->range;
  } else if (json_levels) {
    for (const auto& [key, value] : json_levels->items()) {
      if (value.is_object() && !value.empty()) {
        first = value.begin().key();
        break;
      }
    }
  }
  if (first.empty()) return -1;
  int found = -1;
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    if (spec.factors[f].level_index(first) >= 0) found = static_cast<int>(f);
  if (found < 0) {
    diags.error(where.valid() ? where : t.factor.range, fmt::format("'{}' is not a level of any factor", first));
    note_declared_levels(spec, -1, first, diags);
    return -1;
  }
  for (const auto* k : keys) {
    if (spec.factors[found].level_index(k->name) < 0) {
      diags.error(k->range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", k->name, spec.factors[found].name),
                                            k->name, spec.factors[found].level_names()));
      note_declared_levels(spec, found, k->name, diags);
    }
  }
  return found;
}

// Returns false when it reported a problem (so the level's missing texts are not reported again).
bool derive_texts(const Spec& spec, TextTable& table, int level, const ast::DerivedText& d, SourceManager& sources,
                  Diagnostics& diags) {
  auto rows = read_table(spec.data_path(d.source.range, d.source.path.value), d.source.path.value, d.source.format.name,
                         d.source.range, sources, diags);
  if (!rows) return false;
  std::string group_column = table.index_factor >= 0 ? spec.factors[table.index_factor].name : "";
  if (!group_column.empty() && !rows->has_column(group_column)) {
    diags.error(d.source.range, fmt::format("'{}' has no column '{}' to tell the texts of each level of '{}' apart",
                                            rows->path, group_column, group_column));
    return false;
  }
  std::size_t width = table.texts[level].size();
  std::vector<std::optional<std::string>> found(width);
  for (const auto& row : rows->rows) {
    RowScope scope(row);
    try {
      if (!truthy(evaluate(d.where, scope))) continue;
      std::string text = to_text(evaluate(d.select, scope));
      int index = 0;
      if (!group_column.empty()) {
        index = spec.factors[table.index_factor].level_index(json_text(row.fields.at(group_column)));
        if (index < 0) continue;  // rows of levels the spec does not use
      }
      if (found[index] && *found[index] != text) {
        diags.error(field_range(sources, row, group_column),
                    fmt::format("rows matching the 'where' of '{}' give different texts for the same level", d.source.path.value));
        return false;
      }
      found[index] = text;
    } catch (const EvalError& e) {
      diags.error(placeholder_range(sources, e.range, e.what()),
                  fmt::format("{} (on row {} of '{}')", e.what(), row.row, rows->path));
      return false;
    }
  }
  bool any = false;
  for (std::size_t i = 0; i < width; ++i) {
    if (!found[i]) continue;  // another entry may give this level's text; completeness is checked later
    any = true;
    table.texts[level][i] = located_string(escape_braces(*found[i]), d.range);
  }
  if (!any) diags.error(d.range, fmt::format("no row of '{}' matches the 'where'", d.source.path.value));
  return any;
}

}  // namespace

void bind_texts(Spec& spec, const std::vector<const ast::Decl*>& decls, SourceManager& sources, Diagnostics& diags) {
  for (const auto* decl : decls) {
    if (const auto* p = std::get_if<ast::PromptDecl>(&decl->node)) {
      if (spec.prompt) diags.error(decl->range, "the spec has a second 'prompt' declaration");
      else spec.prompt = *p;
    }
    const auto* t = std::get_if<ast::TextDecl>(&decl->node);
    if (!t) continue;
    if (t->keyed()) {
      bind_keyed_text(spec, *t, diags);
      continue;
    }
    const int f = factor_or_report(spec, t->factor, diags);
    if (f < 0) continue;
    if (spec.text_for(f)) {
      diags.error(t->factor.range, fmt::format("factor '{}' already has texts", t->factor.name));
      continue;
    }
    const Factor& factor = spec.factors[f];
    // JSON source: the object at `at`, one entry per level under the key template.
    std::shared_ptr<const DataTable> json;
    const nlohmann::ordered_json* json_levels = nullptr;
    bool json_failed = false;                            // reported; levels it should give are not reported again
    std::vector<bool> level_failed(factor.levels.size(), false);
    if (t->from) {
      json = read_table(spec.data_path(t->from->source.range, t->from->source.path.value), t->from->source.path.value,
                        t->from->source.format.name, t->from->source.range, sources, diags);
      json_failed = !json;
      if (json) {
        json_levels = &json->rows[0].fields[""];
        for (std::size_t start = 0; !t->from->at.value.empty();) {
          std::size_t dot = t->from->at.value.find('.', start);
          std::string part = t->from->at.value.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
          if (!json_levels->is_object() || !json_levels->contains(part)) {
            std::vector<std::string> keys;
            if (json_levels->is_object())
              for (const auto& [k, v] : json_levels->items()) keys.push_back(k);
            diags.error(t->from->range, with_suggestion(fmt::format("'{}' has no object at '{}'", json->path, t->from->at.value),
                                                        part, keys));
            json_levels = nullptr;
            json_failed = true;
            break;
          }
          json_levels = &(*json_levels)[part];
          if (dot == std::string::npos) break;
          start = dot + 1;
        }
      }
    }
    TextTable table;
    table.factor = f;
    table.index_factor = index_factor_of(spec, *t, json_levels, diags);
    std::size_t width = table.index_factor >= 0 ? spec.factors[table.index_factor].levels.size() : 1;
    table.texts.assign(factor.levels.size(), std::vector<std::optional<ast::Expr>>(width));
    if (json_levels) {
      for (std::size_t l = 0; l < factor.levels.size(); ++l) {
        const auto& level = factor.levels[l];
        std::string key = t->from->key.value;
        for (auto [pattern, value] : {std::pair{"{" + factor.name + "}", level.name.name},
                                      std::pair{"{" + factor.name + ".label}", level.label ? level.label->value : level.name.name}}) {
          for (std::size_t pos; (pos = key.find(pattern)) != std::string::npos;) key.replace(pos, pattern.size(), value);
        }
        auto entry = json_levels->find(key);
        if (entry == json_levels->end()) {
          bool inline_level = std::any_of(t->levels.begin(), t->levels.end(),
                                          [&](const ast::TextLevel& tl) { return tl.level.name == level.name.name; });
          if (!inline_level) {
            diags.error(t->from->range, fmt::format("'{}' has no key '{}' at '{}' for level '{}'", json->path, key,
                                                    t->from->at.value, level.name.name));
            level_failed[l] = true;
          }
          continue;
        }
        for (std::size_t i = 0; i < width; ++i) {
          const nlohmann::ordered_json* text = &*entry;
          if (table.index_factor >= 0) {
            auto it = entry->find(spec.factors[table.index_factor].levels[i].name.name);
            text = it == entry->end() ? nullptr : &*it;
          }
          if (text && text->is_string())
            table.texts[l][i] = located_string(text->get<std::string>(), find_in_file(sources, json->file, text->get<std::string>()));
        }
      }
    }
    // Inline entries override what the JSON document gives, language by language, so a
    // spec can add a language to texts it otherwise takes from a file.
    std::vector<std::vector<bool>> given(factor.levels.size(), std::vector<bool>(width, false));
    auto give = [&](int l, std::size_t i, ast::Expr expr, SourceRange where) {
      if (given[l][i]) {
        diags.error(where, fmt::format("level '{}' already has a text{}", factor.levels[l].name.name,
                                       table.index_factor >= 0 ? " for '" + spec.factors[table.index_factor].levels[i].name.name + "'" : ""));
        return;
      }
      given[l][i] = true;
      table.texts[l][i] = std::move(expr);
    };
    for (const auto& tl : t->levels) {
      int l = factor.level_index(tl.level.name);
      if (l < 0) {
        diags.error(tl.level.range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", tl.level.name, factor.name),
                                                    tl.level.name, factor.level_names()));
        note_declared_levels(spec, f, tl.level.name, diags);
        continue;
      }
      if (tl.derived) {
        TextTable derived = table;
        for (auto& slot : derived.texts[l]) slot.reset();
        if (!derive_texts(spec, derived, l, *tl.derived, sources, diags)) level_failed[l] = true;
        for (std::size_t i = 0; i < width; ++i)
          if (derived.texts[l][i]) give(l, i, *derived.texts[l][i], tl.level.range);
      } else if (tl.texts->all) {
        for (std::size_t i = 0; i < width; ++i) give(l, i, *tl.texts->all, tl.level.range);
      } else if (table.index_factor >= 0) {
        for (const auto& [key, expr] : tl.texts->by_level) {
          int i = spec.factors[table.index_factor].level_index(key.name);
          if (i >= 0) give(l, static_cast<std::size_t>(i), expr, key.range);
        }
      }
    }
    for (std::size_t l = 0; l < factor.levels.size(); ++l) {
      bool from_json = t->from && !std::any_of(t->levels.begin(), t->levels.end(), [&](const ast::TextLevel& tl) {
        return tl.level.name == factor.levels[l].name.name;
      });
      if (level_failed[l] || (json_failed && from_json)) continue;
      for (std::size_t i = 0; i < width; ++i) {
        if (table.texts[l][i]) continue;
        SourceRange where = t->factor.range;
        for (const auto& tl : t->levels)
          if (tl.level.name == factor.levels[l].name.name) where = tl.level.range;
        if (table.index_factor >= 0) {
          diags.error(where, fmt::format("level '{}' of factor '{}' has no text for '{}'", factor.levels[l].name.name,
                                         factor.name, spec.factors[table.index_factor].levels[i].name.name));
        } else {
          diags.error(where, fmt::format("level '{}' of factor '{}' has no text", factor.levels[l].name.name, factor.name));
        }
      }
    }
    spec.texts.push_back(std::move(table));
  }
}

}  // namespace mirac
