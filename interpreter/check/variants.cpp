// variants.cpp: the per-cell rewrites of a seed field: instructions for the rewriter, and
// the frozen texts from a lock file or written inline.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"
#include "interpreter/check/factor_lookup.hpp"
#include "interpreter/eval/cell_scope.hpp"
#include "interpreter/eval/placeholder_range.hpp"

namespace mirac {


namespace {

// Names factors to the levels of one cell, for key templates like "{hls}_{register}".
class LevelScope : public Scope {
 public:
  LevelScope(const Spec& spec, const std::vector<int>& levels) : spec_(spec), levels_(levels) {}
  std::optional<Value> name(const std::string& n) const override {
    int f = spec_.factor_index(n);
    if (f < 0) return std::nullopt;
    return Value::of_level(f, levels_[f], spec_.factors[f].levels[levels_[f]].name.name);
  }
  std::optional<Value> field(const Value& base, const std::string& field) const override {
    if (base.kind != Value::Kind::level) return std::nullopt;
    const auto& level = spec_.factors[base.factor].levels[base.level];
    if (field == "label") return Value::of(level.label ? level.label->value : level.name.name);
    if (field == "name") return Value::of(level.name.name);
    return std::nullopt;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (const auto& f : spec_.factors) out.push_back(f.name);
    return out;
  }

 private:
  const Spec& spec_;
  const std::vector<int>& levels_;
};

// Follows a dotted path ("a.b") into a JSON document.
const nlohmann::ordered_json* json_at(const nlohmann::ordered_json& doc, const std::string& path) {
  const nlohmann::ordered_json* node = &doc;
  std::size_t start = 0;
  while (!path.empty() && start <= path.size()) {
    std::size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

void bind_lock(Spec& spec, Variant& v, const ast::LockSpec& lock, int index_factor, SourceManager& sources,
               Diagnostics& diags) {
  std::filesystem::path path = spec.data_path(lock.source.range, lock.source.path.value);
  auto table = read_table(path, lock.source.path.value, lock.source.format.name, lock.source.range, sources, diags);
  if (!table) return;
  // Column of each role: seed, text, and one per factor of `by` (default: the role's name).
  std::map<std::string, ast::Column> columns;
  std::set<std::string> roles = {"seed", "text"};
  for (int f : v.by) roles.insert(spec.factors[f].name);
  for (const auto& [role, column] : lock.columns) {
    if (!roles.count(role.name)) {
      diags.error(role.range, with_suggestion(fmt::format("'{}' is not a lock column role; roles are seed, text and the "
                                                          "factors of the variant", role.name),
                                              role.name, std::vector<std::string>(roles.begin(), roles.end())));
      continue;
    }
    columns[role.name] = column;
  }
  bool ok = true;
  for (const auto& role : roles) {
    if (!columns.count(role)) columns[role] = ast::Column{role, lock.source.range};
    const ast::Column& c = columns[role];
    if (!table->has_column(c.name)) {
      diags.error(c.range, with_suggestion(fmt::format("column '{}' not found in lock file '{}'", c.name, table->path),
                                           c.name, table->columns));
      ok = false;
    }
  }
  if (!ok) return;
  (void)index_factor;
  for (const auto& row : table->rows) {
    bool complete = true;
    for (const auto& [role, column] : columns) complete = row_value(sources, *table, row, column.name, diags) && complete;
    if (!complete) continue;
    std::string seed = json_text(row.fields.at(columns["seed"].name));
    if (!spec.find_seed(seed)) {
      if (!spec.seeds_unread)
        diags.error(field_range(sources, row, columns["seed"].name),
                    fmt::format("lock file '{}' has a text for seed '{}', which does not exist", table->path, seed));
      continue;
    }
    std::vector<int> levels(spec.factors.size(), 0);
    bool row_ok = true;
    for (int f : v.by) {
      const std::string& col = columns[spec.factors[f].name].name;
      std::string level = json_text(row.fields.at(col));
      int l = spec.factors[f].level_index(level);
      if (l < 0) {
        diags.error(field_range(sources, row, col),
                    with_suggestion(fmt::format("'{}' in column '{}' is not a level of factor '{}'", level, col,
                                                spec.factors[f].name),
                                    level, spec.factors[f].level_names()));
        note_declared_levels(spec, f, level, diags);
        row_ok = false;
        continue;
      }
      levels[f] = l;
    }
    if (!row_ok) continue;
    const auto& text_value = row.fields.at(columns["text"].name);
    if (!text_value.is_string()) {
      diags.error(field_range(sources, row, columns["text"].name),
                  fmt::format("a text in lock file '{}' must be a string, not {}", table->path, text_value.dump()));
      continue;
    }
    std::string text = text_value.get<std::string>();
    auto key = std::make_pair(seed, cell_key(spec, v.by, levels));
    auto [it, fresh] = v.texts.emplace(key, text);
    if (!fresh && it->second != text) {
      diags.error(field_range(sources, row, columns["text"].name),
                  fmt::format("lock file '{}' has two different texts for seed '{}' in cell {}", table->path, seed, key.second));
    }
  }
}

// The seed field a variant rewrites and the factors it varies by: false (reported) when the
// variant cannot be bound. `index_factor` is the factor the field is indexed by, or -1.
bool start_variant(const Spec& spec, const ast::VariantDecl& vd, Variant& v, int& index_factor, Diagnostics& diags) {
  v.field = vd.field.name;
  v.range = vd.field.range;
  const SeedFieldInfo* info = nullptr;
  std::vector<std::string> field_names;
  for (const auto& f : spec.seed_fields) {
    field_names.push_back(f.name);
    if (f.name == v.field) info = &f;
  }
  if (!info) {
    diags.error(vd.field.range, with_suggestion(fmt::format("variant of unknown seed field '{}'", v.field), v.field, field_names));
    return false;
  }
  if (spec.variant_for(v.field)) {
    diags.error(vd.field.range, fmt::format("seed field '{}' already has a variant", v.field));
    return false;
  }
  bool ok = true;
  for (const auto& id : vd.by) {
    const int f = factor_or_report(spec, id, diags);
    if (f < 0) {
      ok = false;
    } else {
      v.by.push_back(f);
    }
  }
  if (!ok) return false;
  index_factor = info->index_factor;
  if (index_factor >= 0 && std::find(v.by.begin(), v.by.end(), index_factor) == v.by.end()) {
    diags.error(vd.field.range, fmt::format("field '{}' differs by '{}', so its variant must be 'by' '{}' too", v.field,
                                            spec.factors[index_factor].name, spec.factors[index_factor].name));
    return false;
  }
  return true;
}

// `instructions from json("f") at "a.b" key "{hls}"`: one instruction per cell of
// `instruction_by`, a string or an object by level of the index factor.
void read_instruction_file(const Spec& spec, Variant& v, const ast::VariantDecl& vd, const std::vector<int>& instruction_by,
                           int index_factor, SourceManager& sources, Diagnostics& diags) {
  if (!vd.instructions_from) return;
  const auto& jt = *vd.instructions_from;
  auto table = read_table(spec.data_path(jt.source.range, jt.source.path.value), jt.source.path.value, jt.source.format.name,
                          jt.source.range, sources, diags);
  if (!table) return;
  const nlohmann::ordered_json* at = json_at(table->rows[0].fields[""], jt.at.value);
  if (!at) {
    diags.error(jt.range, fmt::format("'{}' has no object at '{}'", table->path, jt.at.value));
    return;
  }
  for (const auto& cell : cells_of(spec, instruction_by)) {
    LevelScope scope(spec, cell);
    std::string key;
    try {
      key = expand_template(jt.key.value, jt.range, scope);
    } catch (const EvalError& e) {
      diags.error(placeholder_range(sources, e.range, e.what()), e.what());
      break;
    }
    auto it = at->find(key);
    if (it == at->end()) {
      diags.error(jt.range, fmt::format("'{}' has no key '{}' at '{}'", table->path, key, jt.at.value));
      continue;
    }
    std::vector<std::string> per_level;
    if (it->is_string()) {
      per_level.push_back(it->get<std::string>());
    } else if (index_factor >= 0) {
      for (const auto& level : spec.factors[index_factor].levels) {
        auto t = it->find(level.name.name);
        if (t == it->end() || !t->is_string()) {
          per_level.emplace_back();  // may come inline; completeness is checked below
        } else {
          per_level.push_back(t->get<std::string>());
        }
      }
    }
    v.instructions[cell_key(spec, instruction_by, cell)] = per_level;
  }
}

// The levels a written cell names, one per factor of `by`, into `levels`; false (reported)
// when one is not a level of its factor.
bool cell_levels(const Spec& spec, const ast::CellPath& cell, const std::vector<int>& by, std::vector<int>& levels,
                 Diagnostics& diags) {
  bool cell_ok = true;
  for (std::size_t i = 0; i < by.size(); ++i) {
    const Factor& f = spec.factors[by[i]];
    int l = f.level_index(cell.levels[i].name);
    if (l < 0) {
      diags.error(cell.levels[i].range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'",
                                                                    cell.levels[i].name, f.name),
                                                       cell.levels[i].name, f.level_names()));
      note_declared_levels(spec, by[i], cell.levels[i].name, diags);
      cell_ok = false;
    } else {
      levels[by[i]] = l;
    }
  }
  return cell_ok;
}

// Instructions written in the variant: they add to (or override) those read from a file,
// language by language.
void read_inline_instructions(const Spec& spec, Variant& v, const ast::VariantDecl& vd,
                              const std::vector<int>& instruction_by, int index_factor, Diagnostics& diags) {
  for (const auto& ins : vd.instructions) {
    std::vector<int> levels(spec.factors.size(), 0);
    if (ins.cell.levels.size() != instruction_by.size()) {
      diags.error(ins.cell.range, fmt::format("an instruction cell names one level of each of {} factor{}",
                                              instruction_by.size(), instruction_by.size() == 1 ? "" : "s"));
      continue;
    }
    if (!cell_levels(spec, ins.cell, instruction_by, levels, diags)) continue;
    std::vector<std::string> per_level;
    if (ins.texts.all) {
      if (const auto* s = std::get_if<ast::StringLit>(&ins.texts.all->node)) per_level.push_back(s->value);
    } else if (index_factor >= 0) {
      per_level.resize(spec.factors[index_factor].levels.size());
      for (const auto& [level, text] : ins.texts.by_level) {
        int l = spec.factors[index_factor].level_index(level.name);
        const auto* s = std::get_if<ast::StringLit>(&text.node);
        if (l < 0) {
          diags.error(level.range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", level.name,
                                                               spec.factors[index_factor].name),
                                                   level.name, spec.factors[index_factor].level_names()));
          note_declared_levels(spec, index_factor, level.name, diags);
        } else if (!s) {
          diags.error(text.range, "an instruction must be a string");
        } else {
          per_level[l] = s->value;
        }
      }
    }
    auto& slot = v.instructions[cell_key(spec, instruction_by, levels)];
    if (slot.size() < per_level.size()) slot.resize(per_level.size());
    for (std::size_t i = 0; i < per_level.size(); ++i)
      if (!per_level[i].empty()) slot[i] = per_level[i];
  }
}

// Every instruction cell needs a text in every language (from the file or inline).
void check_instructions_complete(const Spec& spec, const Variant& v, const ast::VariantDecl& vd, int index_factor,
                                 Diagnostics& diags) {
  if (index_factor < 0) return;
  SourceRange where = vd.instructions_from ? vd.instructions_from->range : vd.field.range;
  for (const auto& [cell, texts] : v.instructions) {
    for (std::size_t i = 0; i < spec.factors[index_factor].levels.size(); ++i) {
      if (texts.size() == 1 && !texts[0].empty()) break;  // one instruction for every language
      if (i >= texts.size() || texts[i].empty())
        diags.error(where, fmt::format("the rewrite instruction of cell {} has no text for '{}'", cell,
                                       spec.factors[index_factor].levels[i].name.name));
    }
  }
}

void check_rewriter(const Spec& spec, Variant& v, const ast::VariantDecl& vd, Diagnostics& diags) {
  if (!vd.rewriter) return;
  if (!spec.providers.count(vd.rewriter->preset.name)) {
    std::vector<std::string> names;
    for (const auto& [name, p] : spec.providers) names.push_back(name);
    diags.error(vd.rewriter->preset.range,
                with_suggestion(fmt::format("unknown provider '{}'", vd.rewriter->preset.name), vd.rewriter->preset.name, names) +
                    (names.empty() ? " (add 'use stdlib.providers')" : ""));
  }
  auto provider = spec.providers.find(vd.rewriter->preset.name);
  if (vd.rewriter->settings)
    check_generation_settings(*vd.rewriter->settings, fmt::format("the rewriter of variant '{}'", v.field), diags,
                              provider == spec.providers.end() ? nullptr : &provider->second);
  v.rewriter = vd.rewriter;
}

// Texts written in the variant, seed by seed and cell by cell.
void read_inline_texts(const Spec& spec, Variant& v, const ast::VariantDecl& vd, Diagnostics& diags) {
  std::set<std::pair<std::string, std::string>> inline_cells;
  for (const auto& st : vd.seed_texts) {
    std::string seed;
    if (const auto* s = std::get_if<ast::StringLit>(&st.seed.node)) seed = s->value;
    else if (const auto* n = std::get_if<ast::NumberLit>(&st.seed.node)) seed = n->text;
    if (!spec.find_seed(seed)) {
      diags.error(st.seed.range, fmt::format("variant texts for seed '{}', which does not exist", seed));
      continue;
    }
    for (const auto& [cell, text] : st.texts) {
      if (cell.levels.size() != v.by.size()) {
        diags.error(cell.range, fmt::format("a variant cell names one level of each of the {} factors of 'by'", v.by.size()));
        continue;
      }
      std::vector<int> levels(spec.factors.size(), 0);
      bool cell_ok = cell_levels(spec, cell, v.by, levels, diags);
      const auto* s = std::get_if<ast::StringLit>(&text.node);
      if (!s) diags.error(text.range, "a variant text must be a string");
      if (!cell_ok || !s) continue;
      std::string key = cell_key(spec, v.by, levels);
      if (!inline_cells.insert({seed, key}).second) {
        diags.error(cell.range, fmt::format("seed '{}' already has a text in cell {}", seed, key));
        continue;
      }
      v.texts[{seed, key}] = s->value;
    }
  }
}

// Every seed needs a text in every cell; the first few gaps are reported by name. Seeds with
// no text at all, for most seeds, are a pilot's gap (SeedCoverage), said once by the caller.
void check_texts_complete(const Spec& spec, const Variant& v, const ast::VariantDecl& vd, SeedCoverage& coverage,
                          Diagnostics& diags) {
  if (vd.locks.empty() && vd.seed_texts.empty()) {
    diags.error(vd.field.range, fmt::format("variant '{}' has no texts yet: add a lock file (run 'mirac rewrite' to "
                                            "create one) or write the texts inline", v.field));
    return;
  }
  const std::string source = vd.locks.size() == 1 ? "lock file '" + vd.locks[0].source.path.value + "'"
                                                   : "variant '" + v.field + "'";
  SourceRange where = vd.locks.empty() ? vd.field.range : vd.locks.back().source.range;
  const auto cells = cells_of(spec, v.by);
  std::vector<std::pair<std::string, std::string>> gaps;  // (seed, cell)
  // A pilot's seeds have every text; the others lack the same cells (a new language's).
  std::map<std::string, std::vector<std::string>> lacking;  // seed -> its cells without a text, in order
  std::size_t complete = 0;
  for (const auto& seed : spec.seeds) {
    std::vector<std::string> missing;
    for (const auto& cell : cells) {
      std::string key = cell_key(spec, v.by, cell);
      if (!v.texts.count({seed.id, key})) missing.push_back(key);
    }
    if (!coverage.checks(seed.id)) {  // a pilot's unselected seed needs no text
      if (!missing.empty()) coverage.left_out.insert(seed.id);
      continue;
    }
    for (const auto& key : missing) gaps.emplace_back(seed.id, key);
    if (missing.empty()) ++complete;
    else lacking.emplace(seed.id, std::move(missing));
  }
  if (gaps.empty()) return;
  const bool one_slice = std::all_of(lacking.begin(), lacking.end(),
                                     [&](const auto& entry) { return entry.second == lacking.begin()->second; });
  if (one_slice && coverage.pilot_shaped(complete, lacking.size())) {
    SeedCoverage::Gap gap{source, where, {}};
    for (const auto& [seed, missing] : lacking) gap.missing.insert(seed);
    coverage.gaps.push_back(std::move(gap));
    return;
  }
  for (std::size_t i = 0; i < gaps.size() && i < 5; ++i)
    diags.error(where, fmt::format("{} has no text for seed '{}' in cell {}", source, gaps[i].first, gaps[i].second));
  if (gaps.size() > 5) diags.note(fmt::format("... and {} more seed and cell combinations without a text", gaps.size() - 5));
}

}  // namespace

void bind_variants(Spec& spec, const std::vector<const ast::Decl*>& decls, SeedCoverage& coverage, SourceManager& sources,
                   Diagnostics& diags) {
  for (const auto* d : decls) {
    const auto* vd = std::get_if<ast::VariantDecl>(&d->node);
    if (!vd) continue;
    Variant v;
    int index_factor = -1;
    if (!start_variant(spec, *vd, v, index_factor, diags)) continue;
    // Instructions are keyed by the cell of the factors other than the index factor.
    std::vector<int> instruction_by;
    for (int f : v.by)
      if (f != index_factor) instruction_by.push_back(f);
    read_instruction_file(spec, v, *vd, instruction_by, index_factor, sources, diags);
    read_inline_instructions(spec, v, *vd, instruction_by, index_factor, diags);
    check_instructions_complete(spec, v, *vd, index_factor, diags);
    check_rewriter(spec, v, *vd, diags);
    for (const auto& lock : vd->locks) bind_lock(spec, v, lock, index_factor, sources, diags);
    read_inline_texts(spec, v, *vd, diags);
    check_texts_complete(spec, v, *vd, coverage, diags);
    spec.variants.push_back(std::move(v));
  }
}

}  // namespace mirac
