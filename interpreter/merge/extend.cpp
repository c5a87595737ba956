// merge_extend.cpp: what `extend KIND NAME { ... }` adds to the base's declaration: levels to
// a factor, joins, columns and seeds to the seeds, items to a variant, level texts to a text
// table, settings to a model, judge, arm, provider or the defaults, options to an analysis,
// items to a report (and replaces or removes the base's items by name). A part that has a
// counterpart in the base (a setting, a seed field's column, an analysis option, the
// rewriter) replaces it, and says so.
#include <algorithm>

#include <fmt/format.h>

#include "interpreter/merge/parts.hpp"

namespace mirac::merge_detail {

namespace {

std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

std::string field_text(const ast::FieldPath& f) { return f.field.name + (f.level ? "." + f.level->name : ""); }

// A seed id as written: `seed s1`, `seed "s1"` and `seed 1` name seeds "s1", "s1" and "1".
std::string seed_id(const ast::Expr& e) {
  if (const auto* s = std::get_if<ast::StringLit>(&e.node)) return s->value;
  if (const auto* n = std::get_if<ast::NumberLit>(&e.node)) return n->text;
  return "";
}

struct Merge {
  const SourceManager& sources;
  Diagnostics& diags;
  Diagnostics& explanations;
  std::vector<std::string> added;
  std::vector<std::string> changed;  ///< what the extension did besides adding ("removes item fig2")

  void replaced(SourceRange now, std::string message, SourceRange was) {
    explanations.remark(now, std::move(message));
    explanations.note(fmt::format("replaced: {}", place(sources, was)));
  }

  void factor(ast::FactorDecl& base, const ast::FactorDecl& ext) {
    for (const auto& l : ext.levels) {
      auto it = std::find_if(base.levels.begin(), base.levels.end(),
                             [&](const ast::Level& b) { return b.name.name == l.name.name; });
      if (it != base.levels.end()) {
        diags.error(l.name.range, fmt::format("factor '{}' already has level '{}'", base.name.name, l.name.name));
        diags.note(fmt::format("declared at {}", place(sources, it->name.range)));
        continue;
      }
      base.levels.push_back(l);
      added.push_back("level " + l.name.name);
    }
  }

  void seeds(ast::SeedsDecl& base, const ast::SeedsDecl& ext, SourceRange at) {
    if (!base.source && (!ext.joins.empty() || !ext.mappings.empty())) {
      diags.error(at, "the base's seeds are written inline, with no table to join or map columns of; add seeds with "
                      "'seed ID { ... }'");
      return;
    }
    for (const auto& j : ext.joins) {
      base.joins.push_back(j);
      added.push_back(fmt::format("a join on {}", j.source.path.value));
    }
    std::vector<std::string> fields;
    for (const auto& m : ext.mappings) {
      fields.push_back(field_text(m.target));
      auto it = std::find_if(base.mappings.begin(), base.mappings.end(), [&](const ast::FieldMapping& b) {
        return field_text(b.target) == field_text(m.target);
      });
      if (it == base.mappings.end()) {
        base.mappings.push_back(m);
        continue;
      }
      replaced(m.target.range, fmt::format("seed field '{}' replaces the base's", field_text(m.target)), it->target.range);
      *it = m;
    }
    if (!fields.empty()) added.push_back((fields.size() == 1 ? "field " : "fields ") + words(fields));
    // A seed the base has gains the fields (a language's question); any other is a new seed.
    std::size_t new_seeds = 0, grown = 0;
    for (const auto& s : ext.inline_seeds) {
      auto it = std::find_if(base.inline_seeds.begin(), base.inline_seeds.end(),
                             [&](const ast::InlineSeed& b) { return seed_id(b.id) == seed_id(s.id); });
      if (it == base.inline_seeds.end()) {
        base.inline_seeds.push_back(s);
        ++new_seeds;
        continue;
      }
      ++grown;
      for (const auto& f : s.fields) {
        auto same = std::find_if(it->fields.begin(), it->fields.end(), [&](const ast::FieldValue& b) {
          return field_text(b.target) == field_text(f.target);
        });
        if (same == it->fields.end()) {
          it->fields.push_back(f);
          continue;
        }
        replaced(f.target.range, fmt::format("field '{}' of seed '{}' replaces the base's", field_text(f.target),
                                             seed_id(s.id)),
                 same->target.range);
        *same = f;
      }
    }
    if (new_seeds > 0) added.push_back(fmt::format("{} seed{}", new_seeds, new_seeds == 1 ? "" : "s"));
    if (grown > 0) added.push_back(fmt::format("fields to {} seed{}", grown, grown == 1 ? "" : "s"));
  }

  void variant(ast::VariantDecl& base, const ast::VariantDecl& ext) {
    if (ext.instructions_from) {
      if (base.instructions_from)
        replaced(ext.instructions_from->range, "the instructions' file replaces the base's", base.instructions_from->range);
      base.instructions_from = ext.instructions_from;
      added.push_back("instructions from " + ext.instructions_from->source.path.value);
    }
    for (const auto& i : ext.instructions) base.instructions.push_back(i);
    if (!ext.instructions.empty())
      added.push_back(fmt::format("instructions for {} cell{}", ext.instructions.size(), ext.instructions.size() == 1 ? "" : "s"));
    if (ext.rewriter) {
      if (base.rewriter) replaced(ext.rewriter->range, "the rewriter replaces the base's", base.rewriter->range);
      base.rewriter = ext.rewriter;
      added.push_back("the rewriter");
    }
    for (const auto& l : ext.locks) {
      base.locks.push_back(l);
      added.push_back("a lock " + l.source.path.value);
    }
    for (const auto& s : ext.seed_texts) base.seed_texts.push_back(s);
    if (!ext.seed_texts.empty())
      added.push_back(fmt::format("texts of {} seed{}", ext.seed_texts.size(), ext.seed_texts.size() == 1 ? "" : "s"));
  }

  void text(ast::TextDecl& base, const ast::TextDecl& ext) {
    auto factors = [](const ast::TextDecl& t) {
      std::string names;
      for (const auto& f : t.by) names += (names.empty() ? "" : " * ") + f.name;
      return names;
    };
    if (factors(base) != factors(ext)) {
      // Cells name one level per factor of `by`, so the extension must key them the same way.
      auto by = [&](const ast::TextDecl& t) { return t.keyed() ? "by " + factors(t) : std::string("by one factor's levels"); };
      diags.error(ext.keyed() ? ext.by.front().range : ext.factor.range,
                  fmt::format("text '{}' is keyed {} here but {} in the base", base.factor.name, by(ext), by(base)));
      diags.note(fmt::format("the base's is at {}", place(sources, base.factor.range)));
      return;
    }
    std::vector<std::string> cells;
    for (const auto& c : ext.cells) {
      base.cells.push_back(c);
      std::string cell;
      for (const auto& l : c.cell.levels) cell += (cell.empty() ? "" : ".") + l.name;
      cells.push_back(cell);
    }
    if (!cells.empty()) added.push_back("texts for " + words(cells));
    if (ext.from) {
      if (base.from) replaced(ext.from->range, "the texts' file replaces the base's", base.from->range);
      base.from = ext.from;
      added.push_back("texts from " + ext.from->source.path.value);
    }
    std::vector<std::string> levels;
    for (const auto& l : ext.levels) {
      base.levels.push_back(l);
      if (std::find(levels.begin(), levels.end(), l.level.name) == levels.end()) levels.push_back(l.level.name);
    }
    if (!levels.empty()) added.push_back("texts for " + words(levels));
  }

  void settings(ast::Block& base, const ast::Block& ext, const std::string& owner) {
    for (const auto& p : ext.props) {
      auto it = std::find_if(base.props.begin(), base.props.end(),
                             [&](const ast::Property& b) { return b.key.name == p.key.name; });
      if (it == base.props.end()) {
        base.props.push_back(p);
      } else {
        replaced(p.key.range, fmt::format("setting '{}' of {} replaces the base's", p.key.name, owner), it->key.range);
        *it = p;
      }
      added.push_back(p.key.name);
    }
    if (!ext.props.empty()) added.front() = "settings " + added.front();
  }

  void analysis(ast::AnalysisDecl& base, const ast::AnalysisDecl& ext) {
    for (const auto& o : ext.options) {
      auto it = std::find_if(base.options.begin(), base.options.end(),
                             [&](const ast::AnalysisOption& b) { return b.key.name == o.key.name; });
      if (it == base.options.end()) {
        base.options.push_back(o);
      } else {
        replaced(o.key.range, fmt::format("option '{}' of analysis '{}' replaces the base's", o.key.name, base.name.name),
                 it->key.range);
        *it = o;
      }
      added.push_back(o.key.name);
    }
    if (!ext.options.empty()) added.front() = "options " + added.front();
  }

  // A new item goes after the base's; `override KIND NAME = ...` takes the place of the base's
  // item NAME and `remove NAME` drops it. A new item named as one of the base's is an error,
  // as a declaration the base declares is: it would stand beside the base's, not replace it.
  void report(ast::ReportDecl& base, const ast::ReportDecl& ext) {
    std::size_t base_items = base.items.size();  // the base's come first; the new ones after
    auto base_item = [&](const std::string& name) {
      auto end = base.items.begin() + static_cast<std::ptrdiff_t>(base_items);
      auto it = std::find_if(base.items.begin(), end, [&](const ast::ReportItem& b) { return b.name && b.name->name == name; });
      return it == end ? base.items.end() : it;
    };
    std::size_t appended = 0;
    std::vector<std::string> overridden, removed;
    for (const auto& item : ext.items) {
      if (item.change == ast::ItemChange::add) {
        if (auto it = item.name ? base_item(item.name->name) : base.items.end(); it != base.items.end()) {
          diags.error(item.name->range, fmt::format("report '{}' already has an item '{}'; write 'override {} {} = ...' to "
                                                    "replace it",
                                                    base.name.name, item.name->name, item.kind.name, item.name->name));
          diags.note(fmt::format("the base's is at {}", place(sources, it->name->range)));
          continue;
        }
        base.items.push_back(item);
        ++appended;
        continue;
      }
      const bool replace = item.change == ast::ItemChange::override_;
      auto it = base_item(item.name->name);
      if (it == base.items.end()) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < base_items; ++i)
          if (base.items[i].name) names.push_back(base.items[i].name->name);
        diags.error(item.name->range,
                    with_suggestion(fmt::format("nothing to {}: report '{}' has no item '{}'", replace ? "override" : "remove",
                                                base.name.name, item.name->name),
                                    item.name->name, names));
        continue;
      }
      explanations.remark(item.name->range, fmt::format("{} item '{}' of the base's report '{}'",
                                                        replace ? "replaces" : "removes", item.name->name, base.name.name));
      explanations.note(fmt::format("{}: {}", replace ? "replaced" : "removed", place(sources, it->name->range)));
      if (replace) {
        *it = item;
        it->change = ast::ItemChange::add;
        overridden.push_back(item.name->name);
      } else {
        base.items.erase(it);
        --base_items;
        removed.push_back(item.name->name);
      }
    }
    if (appended > 0) added.push_back(fmt::format("{} item{} at the end", appended, appended == 1 ? "" : "s"));
    if (!overridden.empty()) changed.push_back(fmt::format("replaces item{} {}", overridden.size() == 1 ? "" : "s", words(overridden)));
    if (!removed.empty()) changed.push_back(fmt::format("removes item{} {}", removed.size() == 1 ? "" : "s", words(removed)));
  }
};

}  // namespace

std::string Extender::extend(ast::Decl& base, const ast::Decl& ext) {
  Merge m{sources, diags, explanations, {}, {}};
  const std::size_t errors = diags.error_count();
  auto owner = [&](const char* kind, const ast::Ident& name) { return fmt::format("{} '{}'", kind, name.name); };
  std::visit(
      [&](auto& b) {
        using T = std::decay_t<decltype(b)>;
        const T* e = std::get_if<T>(&ext.node);
        if (!e) return;
        if constexpr (std::is_same_v<T, ast::FactorDecl>) {
          m.factor(b, *e);
        } else if constexpr (std::is_same_v<T, ast::SeedsDecl>) {
          m.seeds(b, *e, ext.range);
        } else if constexpr (std::is_same_v<T, ast::VariantDecl>) {
          m.variant(b, *e);
        } else if constexpr (std::is_same_v<T, ast::TextDecl>) {
          m.text(b, *e);
        } else if constexpr (std::is_same_v<T, ast::ModelDecl> || std::is_same_v<T, ast::JudgeDecl>) {
          if (!b.settings) b.settings = ast::Block{};
          m.settings(*b.settings, e->settings.value_or(ast::Block{}),
                     owner(std::is_same_v<T, ast::ModelDecl> ? "model" : "judge", b.name));
        } else if constexpr (std::is_same_v<T, ast::ArmDecl>) {
          m.settings(b.settings, e->settings, owner("arm", b.name));
        } else if constexpr (std::is_same_v<T, ast::ProviderDecl>) {
          m.settings(b.settings, e->settings, owner("provider", b.name));
        } else if constexpr (std::is_same_v<T, ast::DefaultsDecl>) {
          m.settings(b.settings, e->settings, "the defaults");
        } else if constexpr (std::is_same_v<T, ast::AnalysisDecl>) {
          m.analysis(b, *e);
        } else if constexpr (std::is_same_v<T, ast::ReportDecl>) {
          m.report(b, *e);
        }
      },
      base.node);
  if (m.added.empty() && m.changed.empty()) return diags.error_count() > errors ? "" : "adds nothing";
  std::vector<std::string> parts;
  if (!m.added.empty()) parts.push_back("adds " + words(m.added));
  parts.insert(parts.end(), m.changed.begin(), m.changed.end());
  return words(parts);
}

bool extensible(const std::string& kind) {
  static const std::set<std::string> kinds = {"factor", "seeds",    "variant",  "text",     "model",
                                              "judge",  "arm",      "provider", "defaults", "analysis", "report"};
  return kinds.count(kind) > 0;
}

std::string listing(const std::set<std::string>& items) { return words({items.begin(), items.end()}); }

std::string place(const SourceManager& sources, SourceRange r) {
  if (!r.valid()) return "(no place)";
  return fmt::format("{}:{}:{}", sources.path(r.file), r.begin.line, r.begin.column);
}

std::optional<Key> key_of(const ast::Decl& d) {
  return std::visit(
      [](const auto& n) -> std::optional<Key> {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::FactorDecl>) return Key{"factor", n.name.name};
        else if constexpr (std::is_same_v<T, ast::DesignDecl>) return Key{"design", ""};
        else if constexpr (std::is_same_v<T, ast::SeedsDecl>) return Key{"seeds", ""};
        else if constexpr (std::is_same_v<T, ast::ChecklistsDecl>) return Key{"checklists", ""};
        else if constexpr (std::is_same_v<T, ast::VariantDecl>) return Key{"variant", n.field.name};
        else if constexpr (std::is_same_v<T, ast::TextDecl>) return Key{"text", n.factor.name};
        else if constexpr (std::is_same_v<T, ast::PromptDecl>) return Key{"prompt", ""};
        else if constexpr (std::is_same_v<T, ast::ProviderDecl>) return Key{"provider", n.name.name};
        else if constexpr (std::is_same_v<T, ast::ModelDecl>) return Key{"model", n.name.name};
        else if constexpr (std::is_same_v<T, ast::DefaultsDecl>) return Key{"defaults", ""};
        else if constexpr (std::is_same_v<T, ast::ArmDecl>) return Key{"arm", n.name.name};
        else if constexpr (std::is_same_v<T, ast::JudgeDecl>) return Key{"judge", n.name.name};
        else if constexpr (std::is_same_v<T, ast::PanelDecl>) return Key{"panel", n.name.name};
        else if constexpr (std::is_same_v<T, ast::RubricDecl>) return Key{"rubric", n.name.name};
        else if constexpr (std::is_same_v<T, ast::FlagDecl>) return Key{"flag", n.name.name};
        else if constexpr (std::is_same_v<T, ast::ContrastDecl>) return Key{"contrast", n.name.name};
        else if constexpr (std::is_same_v<T, ast::AnalysisDecl>) return Key{"analysis", n.name.name};
        else if constexpr (std::is_same_v<T, ast::ReportDecl>) return Key{"report", n.name.name};
        else if constexpr (std::is_same_v<T, ast::SimulateDecl>) return Key{"simulate", ""};
        else return std::nullopt;
      },
      d.node);
}

SourceRange name_range(const ast::Decl& d) {
  return std::visit(
      [&](const auto& n) -> SourceRange {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::VariantDecl>) return n.field.range;
        else if constexpr (std::is_same_v<T, ast::TextDecl>) return n.factor.range;
        else if constexpr (std::is_same_v<T, ast::RemoveDecl>) return n.name ? n.name->range : n.kind.range;
        else if constexpr (requires { n.name.range; }) return n.name.range;
        else return d.range;
      },
      d.node);
}

}  // namespace mirac::merge_detail
