// seeds.cpp: binds seeds, checklists and variants to their data files (or inline data)
// and reports data problems at the offending row and column.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/check/context.hpp"
#include "interpreter/eval/cell_scope.hpp"

namespace mirac {

namespace {

// A copy the seed declarations may extend (joins add columns): seed files are small.
std::optional<DataTable> load(const Spec& spec, const ast::DataSource& src, SourceManager& sources, Diagnostics& diags) {
  auto table = read_table(spec.data_path(src.range, src.path.value), src.path.value, src.format.name, src.range, sources, diags);
  if (!table) return std::nullopt;
  return *table;
}

// The factor whose levels include `level`; -1 if none; reports ambiguity.
int factor_of_level(const Spec& spec, const ast::Ident& level, Diagnostics& diags) {
  int found = -1;
  std::vector<std::string> all;
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    for (const auto& name : spec.factors[f].level_names()) all.push_back(name);
    if (spec.factors[f].level_index(level.name) >= 0) {
      if (found >= 0) {
        diags.error(level.range, fmt::format("level '{}' belongs to both '{}' and '{}'", level.name,
                                             spec.factors[found].name, spec.factors[f].name));
        return -1;
      }
      found = static_cast<int>(f);
    }
  }
  if (found < 0) {
    diags.error(level.range, with_suggestion(fmt::format("'{}' is not a level of any factor", level.name), level.name, all));
    note_declared_levels(spec, -1, level.name, diags);
  }
  return found;
}

// Literal values in inline data: strings, numbers, booleans, lists of those.
nlohmann::ordered_json literal(const ast::Expr& e, Diagnostics& diags) {
  if (const auto* s = std::get_if<ast::StringLit>(&e.node)) return s->value;
  if (const auto* n = std::get_if<ast::NumberLit>(&e.node)) return n->text;
  if (const auto* b = std::get_if<ast::BoolLit>(&e.node)) return b->value;
  if (const auto* l = std::get_if<ast::ListLit>(&e.node)) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& item : l->items) arr.push_back(literal(item, diags));
    return arr;
  }
  diags.error(e.range, "inline data must be a string, a number, true/false or a list");
  return nullptr;
}

std::string seed_id_text(const ast::Expr& e, Diagnostics& diags) {
  nlohmann::ordered_json v = literal(e, diags);
  return v.is_string() ? v.get<std::string>() : json_text(v);
}

// Registers a field name for the seed table, checking indexed fields agree on their factor.
void add_seed_field(Spec& spec, const ast::FieldPath& path, Diagnostics& diags) {
  int index = path.level ? factor_of_level(spec, *path.level, diags) : -1;
  if (path.level && index < 0) return;  // reported by factor_of_level
  for (auto& f : spec.seed_fields) {
    if (f.name != path.field.name) continue;
    if (f.index_factor != index) {
      diags.error(path.range, fmt::format("field '{}' is indexed inconsistently", path.field.name));
    }
    return;
  }
  spec.seed_fields.push_back({path.field.name, index, path.range});
}

std::string field_key(const ast::FieldPath& p) {
  return p.level ? p.field.name + "." + p.level->name : p.field.name;
}

// Every indexed field must have a value for every level of its factor.
void check_indexed_fields_complete(const Spec& spec, const std::vector<ast::FieldPath>& paths, Diagnostics& diags) {
  for (const auto& f : spec.seed_fields) {
    if (f.index_factor < 0) continue;
    for (const auto& level : spec.factors[f.index_factor].levels) {
      bool present = false;
      for (const auto& p : paths)
        if (p.field.name == f.name && p.level && p.level->name == level.name.name) present = true;
      if (!present) {
        diags.error(f.range, fmt::format("field '{}' has no value for level '{}' of factor '{}'", f.name,
                                         level.name.name, spec.factors[f.index_factor].name));
      }
    }
  }
}

// Adds the columns of each joined file to the rows of `table`, matching `key` in the joined
// file with the seed id column of `table`.
bool join_tables(const Spec& spec, DataTable& table, const std::string& id_column, const ast::SeedsDecl& s,
                 SeedCoverage& coverage, SourceManager& sources, Diagnostics& diags) {
  bool ok = true;
  for (const auto& join : s.joins) {
    auto other = load(spec, join.source, sources, diags);
    if (!other) {
      ok = false;
      continue;
    }
    if (!other->has_column(join.key.name)) {
      diags.error(join.key.range, with_suggestion(fmt::format("column '{}' not found in '{}'", join.key.name, other->path),
                                                  join.key.name, other->columns));
      ok = false;
      continue;
    }
    std::map<std::string, const DataRow*> by_id;
    for (const auto& row : other->rows) {
      const auto* key = row_value(sources, *other, row, join.key.name, diags);
      if (!key) continue;
      if (!by_id.emplace(json_text(*key), &row).second)
        diags.error(field_range(sources, row, join.key.name), fmt::format("duplicate seed id '{}' in '{}'", json_text(*key), other->path));
    }
    std::set<std::string> matched, seeds;
    std::vector<const DataRow*> missing;
    for (auto& row : table.rows) {
      auto id = row.fields.find(id_column);
      if (id == row.fields.end()) continue;  // reported when the seed is read
      seeds.insert(json_text(*id));
      auto hit = by_id.find(json_text(*id));
      if (!coverage.checks(json_text(*id)) && hit == by_id.end()) {  // a pilot's unselected seed needs no row
        coverage.left_out.insert(json_text(*id));
        continue;
      }
      if (hit == by_id.end()) {
        missing.push_back(&row);
        continue;
      }
      matched.insert(hit->first);
      for (const auto& [column, value] : hit->second->fields.items())
        if (!row.fields.contains(column)) row.fields[column] = value;
    }
    if (coverage.pilot_shaped(matched.size(), missing.size())) {
      SeedCoverage::Gap gap{fmt::format("'{}'", other->path), join.source.range, {}};
      for (const DataRow* row : missing) gap.missing.insert(json_text(row->fields.at(id_column)));
      coverage.gaps.push_back(std::move(gap));
    } else {
      for (const DataRow* row : missing)
        diags.error(field_range(sources, *row, id_column),
                    fmt::format("seed '{}' has no row in '{}' (joined on '{}')", json_text(row->fields.at(id_column)),
                                other->path, join.key.name));
      ok = ok && missing.empty();
    }
    for (const auto& [id, row] : by_id) {
      if (!matched.count(id) && !seeds.count(id))
        diags.error(field_range(sources, *row, join.key.name), fmt::format("'{}' has a row for seed '{}', which '{}' does not have",
                                                                           other->path, id, table.path));
    }
    for (const auto& column : other->columns)
      if (!table.has_column(column)) table.columns.push_back(column);
  }
  return ok;
}

void bind_seed_rows(Spec& spec, const ast::SeedsDecl& s, SeedCoverage& coverage, SourceManager& sources,
                    Diagnostics& diags) {
  auto unread = [&] {
    spec.seeds_unread = true;
    for (const auto& m : s.mappings)
      if (m.target.field.name != "id") add_seed_field(spec, m.target, diags);
  };
  auto table = load(spec, *s.source, sources, diags);
  if (!table) return unread();
  for (const auto& m : s.mappings) {
    if (m.target.field.name == "id" && !join_tables(spec, *table, m.column.name, s, coverage, sources, diags)) return unread();
  }
  bool ok = true;
  std::vector<ast::FieldPath> paths;
  for (const auto& m : s.mappings) {
    paths.push_back(m.target);
    if (m.target.field.name != "id") add_seed_field(spec, m.target, diags);
    if (!table->has_column(m.column.name)) {
      diags.error(m.column.range, with_suggestion(fmt::format("column '{}' not found in '{}'", m.column.name, table->path),
                                                  m.column.name, table->columns));
      ok = false;
    }
  }
  check_indexed_fields_complete(spec, paths, diags);
  const ast::FieldMapping* id_mapping = nullptr;
  for (const auto& m : s.mappings)
    if (m.target.field.name == "id") id_mapping = &m;
  if (!id_mapping) {
    diags.error(s.source->range, "seeds need an 'id' mapping, e.g. id = seed_id");
    return;
  }
  if (!ok) return;
  std::map<std::string, const DataRow*> seen;
  for (const auto& row : table->rows) {
    Seed seed;
    seed.raw = row.fields;
    const auto* id_value = row_value(sources, *table, row, id_mapping->column.name, diags);
    if (!id_value) continue;
    seed.range = field_range(sources, row, id_mapping->column.name);
    seed.id = json_text(*id_value);
    if (seed.id.empty()) {
      diags.error(seed.range, fmt::format("row {} of '{}' has an empty seed id", row.row, table->path));
      continue;
    }
    if (auto [it, fresh] = seen.emplace(seed.id, &row); !fresh) {
      diags.error(seed.range, fmt::format("duplicate seed id '{}' in '{}'", seed.id, table->path));
      diags.note(fmt::format("first seen on row {}", it->second->row));
      continue;
    }
    // A seed the pilot leaves out, or one its joined file lacks, has no joined columns.
    const bool pilot_gap = !coverage.checks(seed.id) || coverage.lacks(seed.id);
    for (const auto& m : s.mappings) {
      if (m.target.field.name == "id") continue;
      if (pilot_gap && !row.fields.contains(m.column.name)) continue;
      const auto* cell = row_value(sources, *table, row, m.column.name, diags);
      if (!cell) continue;
      std::string value = json_text(*cell);
      if (m.has_map) {
        auto hit = std::find_if(m.value_map.begin(), m.value_map.end(),
                                [&](const ast::ValueMapEntry& e) { return e.from.value == value; });
        if (hit == m.value_map.end()) {
          diags.error(field_range(sources, row, m.column.name),
                      fmt::format("value '{}' of column '{}' has no entry in the map of field '{}'", value,
                                  m.column.name, m.target.field.name));
          diags.note(fmt::format("the map is at {}:{}", sources.path(m.range.file), m.range.begin.line));
          continue;
        }
        value = hit->to.value;
      }
      seed.fields[field_key(m.target)] = value;
    }
    spec.seeds.push_back(std::move(seed));
  }
}

void bind_inline_seeds(Spec& spec, const ast::SeedsDecl& s, Diagnostics& diags) {
  std::vector<ast::FieldPath> paths;
  std::set<std::string> known;
  for (const auto& is : s.inline_seeds) {
    for (const auto& f : is.fields) {
      if (f.target.field.name != "id" && known.insert(field_key(f.target)).second) {
        paths.push_back(f.target);
        add_seed_field(spec, f.target, diags);
      }
    }
  }
  check_indexed_fields_complete(spec, paths, diags);
  std::map<std::string, SourceRange> seen;
  for (const auto& is : s.inline_seeds) {
    Seed seed;
    seed.id = seed_id_text(is.id, diags);
    seed.range = is.id.range;
    if (auto [it, fresh] = seen.emplace(seed.id, is.id.range); !fresh) {
      diags.error(is.id.range, fmt::format("duplicate seed id '{}'", seed.id));
      diags.note(fmt::format("first defined at line {}", it->second.begin.line));
      continue;
    }
    for (const auto& f : is.fields) {
      if (f.target.field.name == "id") {
        diags.error(f.target.range, "'id' is the seed's key, written after 'seed'; it cannot be a field");
        continue;
      }
      nlohmann::ordered_json v = literal(f.value, diags);
      seed.fields[field_key(f.target)] = json_text(v);
      seed.raw[field_key(f.target)] = v;
    }
    for (const auto& key : known) {
      if (!seed.fields.count(key)) diags.error(is.id.range, fmt::format("seed '{}' has no value for field '{}'", seed.id, key));
    }
    spec.seeds.push_back(std::move(seed));
  }
}

void bind_checklists(Spec& spec, const ast::ChecklistsDecl& c, SourceManager& sources, Diagnostics& diags) {
  std::set<std::string> fields;
  if (c.source) {
    auto table = load(spec, *c.source, sources, diags);
    if (!table) return;
    if (!table->has_column(c.key->name)) {
      diags.error(c.key->range, with_suggestion(fmt::format("column '{}' not found in '{}'", c.key->name, table->path),
                                                c.key->name, table->columns));
      return;
    }
    for (const auto& row : table->rows) {
      const auto* key = row_value(sources, *table, row, c.key->name, diags);
      if (!key) continue;
      std::string id = json_text(*key);
      SourceRange where = field_range(sources, row, c.key->name);
      if (!spec.find_seed(id) && !spec.seeds_unread) {
        diags.error(where, fmt::format("checklist for seed '{}', which does not exist", id));
        continue;
      }
      if (spec.checklists.count(id)) {
        diags.error(where, fmt::format("second checklist for seed '{}' in '{}'", id, table->path));
        continue;
      }
      nlohmann::ordered_json f = row.fields;
      f.erase(c.key->name);
      for (auto it = f.begin(); it != f.end(); ++it) fields.insert(it.key());
      spec.checklists[id] = std::move(f);
    }
    }
  for (const auto& ic : c.inline_checklists) {
    std::string id = seed_id_text(ic.seed, diags);
    if (!spec.find_seed(id) && !spec.seeds_unread) {
      diags.error(ic.seed.range, fmt::format("checklist for seed '{}', which does not exist", id));
      continue;
    }
    if (spec.checklists.count(id)) {
      diags.error(ic.seed.range, fmt::format("second checklist for seed '{}'", id));
      continue;
    }
    nlohmann::ordered_json f = nlohmann::ordered_json::object();
    for (const auto& fv : ic.fields) {
      f[fv.target.field.name] = literal(fv.value, diags);
      fields.insert(fv.target.field.name);
    }
    spec.checklists[id] = std::move(f);
  }
  spec.checklist_fields.assign(fields.begin(), fields.end());
}

// The gaps of a pilot's data, said once: which seeds every source covers, and the selection
// that pilots the spec on them.
void report_pilot(const Spec& spec, const SeedCoverage& coverage, Diagnostics& diags) {
  if (coverage.gaps.empty()) return;
  std::vector<std::string> covered, sources;
  for (const auto& seed : spec.seeds)
    if (std::none_of(coverage.gaps.begin(), coverage.gaps.end(), [&](const auto& g) { return g.missing.count(seed.id); }))
      covered.push_back(seed.id);
  for (const auto& g : coverage.gaps) sources.push_back(g.source);
  const std::string who = sources.size() == 1 ? sources[0] + " covers"
                                              : fmt::format("{} and {} cover", fmt::join(sources.begin(), sources.end() - 1, ", "),
                                                            sources.back());
  if (covered.empty()) {
    diags.error(coverage.gaps[0].range, fmt::format("{} no seed in common of the {} seeds, so there is nothing to pilot "
                                                    "on", who, spec.seeds.size()));
    return;
  }
  const std::size_t shown = std::min<std::size_t>(covered.size(), 10);
  std::string list = fmt::format("{}", fmt::join(covered.begin(), covered.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
  if (covered.size() > shown) list += ", ...";
  diags.error(coverage.gaps[0].range,
              fmt::format("{} {} of the {} seeds ({}): pilot the spec on them with --only seed={}, or supply the "
                          "other {}",
                          who, covered.size(), spec.seeds.size(), list, fmt::join(covered, ","),
                          spec.seeds.size() - covered.size()));
  for (std::size_t i = 1; i < coverage.gaps.size(); ++i)
    diags.note(fmt::format("{} is at {}:{}", coverage.gaps[i].source, coverage.gaps[i].range.begin.line,
                           coverage.gaps[i].range.begin.column));
}

// `--only seed=...`: each selected seed exists, and the seeds it leaves out that lack data
// (with their checklists) are dropped, so the plan holds no request that lacks a text.
void keep_selected(Spec& spec, const CheckOptions& options, const SeedCoverage& coverage, const ast::Decl* seeds_decl,
                   Diagnostics& diags) {
  if (!options.seeds || spec.seeds_unread) return;
  std::vector<std::string> ids;
  for (const auto& seed : spec.seeds) ids.push_back(seed.id);
  for (const auto& id : *options.seeds)
    if (!spec.find_seed(id)) {
      const std::string message =
          with_suggestion(fmt::format("{} selects seed '{}', which the spec does not have", options.seeds_said, id), id, ids);
      if (seeds_decl) diags.error(seeds_decl->range, message);
      else diags.error_at(options.seeds_said, message);
    }
  std::erase_if(spec.seeds, [&](const Seed& seed) { return coverage.left_out.count(seed.id) > 0; });
  std::erase_if(spec.checklists, [&](const auto& entry) { return coverage.left_out.count(entry.first) > 0; });
}

}  // namespace

void bind_seeds(Spec& spec, const std::vector<const ast::Decl*>& decls, const CheckOptions& options, SourceManager& sources,
                Diagnostics& diags) {
  const ast::SeedsDecl* seeds = nullptr;
  const ast::Decl* seeds_decl = nullptr;
  const ast::ChecklistsDecl* checklists = nullptr;
  SeedCoverage coverage{options.seeds, {}, {}};
  for (const auto* d : decls) {
    if (const auto* s = std::get_if<ast::SeedsDecl>(&d->node)) {
      if (seeds) diags.error(d->range, "the spec has a second 'seeds' declaration");
      else seeds = s, seeds_decl = d;
    }
    if (const auto* c = std::get_if<ast::ChecklistsDecl>(&d->node)) {
      if (checklists) diags.error(d->range, "the spec has a second 'checklists' declaration");
      else checklists = c;
    }
  }
  if (seeds) {
    if (seeds->source) bind_seed_rows(spec, *seeds, coverage, sources, diags);
    else bind_inline_seeds(spec, *seeds, diags);
  }
  if (checklists) bind_checklists(spec, *checklists, sources, diags);
  bind_variants(spec, decls, coverage, sources, diags);
  report_pilot(spec, coverage, diags);
  keep_selected(spec, options, coverage, seeds_decl, diags);
}

}  // namespace mirac
