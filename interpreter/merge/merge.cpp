// merge.cpp: an extending spec's changes applied to the declarations of its bases. Each
// declaration has a kind and a name (a factor's, a model's...; none for the one-per-spec
// kinds such as prompt or simulate); a change finds the base's declaration of that kind and
// name, and what it did is explained as a note at the change with the base's place.
#include "interpreter/merge/merge.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "interpreter/merge/parts.hpp"

namespace mirac {

namespace {

using merge_detail::Key;
using merge_detail::key_of;
using merge_detail::name_range;
using merge_detail::place;

const std::set<std::string> kRemovable = {"factor", "design", "seeds", "checklists", "variant", "text", "prompt",
                                          "provider", "model", "defaults", "arm", "judge", "panel", "rubric",
                                          "flag", "contrast", "analysis", "report", "simulate"};
const std::set<std::string> kOnePerSpec = {"design", "seeds", "checklists", "prompt", "defaults", "simulate"};

const char* change_word(ast::Change c) { return c == ast::Change::extend ? "extend" : "override"; }

class Merger {
 public:
  Merger(std::vector<ast::Module>& modules, const SpecChain& chain, const SourceManager& sources, Diagnostics& diags,
         MergedSpec& out)
      : modules_(modules), chain_(chain), sources_(sources), diags_(diags), out_(out) {}

  void run() {
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      const int level = level_of(modules_[m].file);
      const bool spec_file = level >= 0 && chain_.specs[static_cast<std::size_t>(level)] == modules_[m].file;
      if (level > 0 && spec_file) apply(m, static_cast<std::size_t>(level));
      else refuse_changes(m, level, spec_file);
    }
  }

 private:
  struct Slot {
    std::size_t module, index;
  };

  // The position of a file's spec in the chain; -1 for a file of no spec (never: every
  // loaded file has an owner).
  int level_of(FileId file) const {
    auto owner = chain_.owner.find(file);
    if (owner == chain_.owner.end()) return -1;
    auto it = std::find(chain_.specs.begin(), chain_.specs.end(), owner->second);
    return it == chain_.specs.end() ? -1 : static_cast<int>(it - chain_.specs.begin());
  }

  ast::Decl& at(Slot s) { return modules_[s.module].decls[s.index]; }

  // Changes outside an extending spec have no base to change. (When the spec names a base
  // that could not be read, that is the error, and its changes are left out quietly.)
  void refuse_changes(std::size_t m, int level, bool spec_file) {
    auto& decls = modules_[m].decls;
    const bool base_unread = spec_file && std::any_of(decls.begin(), decls.end(), [](const ast::Decl& d) {
      const auto* audit = std::get_if<ast::AuditDecl>(&d.node);
      return audit && audit->extends;
    });
    for (const auto& d : decls) {
      if (base_unread) break;
      const bool remove = std::holds_alternative<ast::RemoveDecl>(d.node);
      if (d.change == ast::Change::declare && !remove) continue;
      const char* word = remove ? "remove" : change_word(d.change);
      if (spec_file && level == 0)
        diags_.error(d.range, fmt::format("'{}' changes the spec this one builds on, and it extends none; name its base "
                                          "in the header: audit NAME extends \"base.audit\" {{ ... }}", word));
      else
        diags_.error(d.range, fmt::format("'{}' belongs in a spec that extends another, not in a used module", word));
    }
    std::erase_if(decls, [](const ast::Decl& d) {
      return d.change != ast::Change::declare || std::holds_alternative<ast::RemoveDecl>(d.node);
    });
  }

  // The first declaration of `key` in the files before the spec at `level`.
  std::optional<Slot> find_base(const Key& key, std::size_t level) const {
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      int l = level_of(modules_[m].file);
      if (l < 0 || static_cast<std::size_t>(l) >= level) continue;
      for (std::size_t i = 0; i < modules_[m].decls.size(); ++i)
        if (auto k = key_of(modules_[m].decls[i]); k && *k == key) return Slot{m, i};
    }
    return std::nullopt;
  }

  // Declarations of the base named `name` of another kind, for "override with the wrong kind".
  std::vector<Slot> same_name_other_kind(const Key& key, std::size_t level) const {
    std::vector<Slot> out;
    if (key.name.empty()) return out;
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      int l = level_of(modules_[m].file);
      if (l < 0 || static_cast<std::size_t>(l) >= level) continue;
      for (std::size_t i = 0; i < modules_[m].decls.size(); ++i)
        if (auto k = key_of(modules_[m].decls[i]); k && k->name == key.name && k->kind != key.kind) out.push_back({m, i});
    }
    return out;
  }

  std::vector<std::string> base_names(const std::string& kind, std::size_t level) const {
    std::vector<std::string> out;
    for (const auto& module : modules_) {
      int l = level_of(module.file);
      if (l < 0 || static_cast<std::size_t>(l) >= level) continue;
      for (const auto& d : module.decls)
        if (auto k = key_of(d); k && k->kind == kind && !k->name.empty()) out.push_back(k->name);
    }
    return out;
  }

  // "the base declares no contrast 'X'" with what might have been meant.
  void nothing_to_change(const char* verb, const Key& key, SourceRange at, std::size_t level) {
    std::string what = key.name.empty() ? key.kind : fmt::format("{} '{}'", key.kind, key.name);
    std::string message = fmt::format("nothing to {}: the base declares no {}", verb, what);
    const auto others = same_name_other_kind(key, level);
    if (others.empty() && !key.name.empty()) message = with_suggestion(message, key.name, base_names(key.kind, level));
    diags_.error(at, message);
    for (const Slot& s : others) {
      const ast::Decl& d = modules_[s.module].decls[s.index];
      diags_.note(fmt::format("'{}' is a {}, declared at {}", key.name, key_of(d)->kind, place(sources_, name_range(d))));
    }
  }

  void apply(std::size_t m, std::size_t level) {
    std::vector<ast::Decl> changes = std::move(modules_[m].decls);
    modules_[m].decls.clear();
    for (auto& d : changes) {
      if (std::holds_alternative<ast::AuditDecl>(d.node)) {
        merge_header(d, level, m);
        modules_[m].decls.push_back(std::move(d));
      } else if (const auto* remove = std::get_if<ast::RemoveDecl>(&d.node)) {
        apply_remove(*remove, level);
      } else if (d.change == ast::Change::declare) {
        if (declare(d, level)) modules_[m].decls.push_back(std::move(d));
      } else {
        apply_change(std::move(d), level);
      }
    }
  }

  // A new declaration: its kind and name must be new to the base.
  bool declare(const ast::Decl& d, std::size_t level) {
    auto key = key_of(d);
    if (!key) return true;  // use, prices: they add up
    auto base = find_base(*key, level);
    if (!base) return true;
    std::string what = key->name.empty() ? fmt::format("a {}", key->kind) : fmt::format("{} '{}'", key->kind, key->name);
    const std::string named = key->name.empty() ? key->kind : key->kind + " " + key->name;
    diags_.error(name_range(d), fmt::format("the base already declares {}; write 'override {} ...' to replace it{}", what,
                                            named, merge_detail::extensible(key->kind)
                                                       ? fmt::format(", or 'extend {} ...' to add to it", named)
                                                       : ""));
    diags_.note(fmt::format("the base's is at {}", place(sources_, name_range(at(*base)))));
    return false;
  }

  void apply_remove(const ast::RemoveDecl& r, std::size_t level) {
    const std::string& kind = r.kind.name;
    if (!kRemovable.count(kind)) {
      diags_.error(r.kind.range, with_suggestion(fmt::format("cannot remove '{}'; what can be removed is a declaration: {}",
                                                             kind, merge_detail::listing(kRemovable)),
                                                 kind, {kRemovable.begin(), kRemovable.end()}));
      return;
    }
    if (kOnePerSpec.count(kind) && r.name) {
      diags_.error(r.name->range, fmt::format("a spec has one {}: write 'remove {}' without a name", kind, kind));
      return;
    }
    if (!kOnePerSpec.count(kind) && !r.name) {
      diags_.error(r.kind.range, fmt::format("remove which {}? e.g. remove {} NAME", kind, kind));
      return;
    }
    Key key{kind, r.name ? r.name->name : ""};
    SourceRange at_change = r.name ? r.name->range : r.kind.range;
    auto base = find_base(key, level);
    if (!base) return nothing_to_change("remove", key, at_change, level);
    diags_explain(at_change, fmt::format("removes the base's {}", key.name.empty() ? kind : kind + " '" + key.name + "'"),
                  "removed", name_range(at(*base)));
    out_.changed_files.insert(modules_[base->module].file);
    auto& decls = modules_[base->module].decls;
    decls.erase(decls.begin() + static_cast<std::ptrdiff_t>(base->index));
  }

  void apply_change(ast::Decl d, std::size_t level) {
    auto key = key_of(d);
    if (!key) return;  // the grammar allows no other
    auto base = find_base(*key, level);
    if (!base) return nothing_to_change(change_word(d.change), *key, name_range(d), level);
    ast::Decl& target = at(*base);
    const SourceRange was = name_range(target);
    out_.changed_files.insert(modules_[base->module].file);
    if (d.change == ast::Change::override_) {
      diags_explain(name_range(d), fmt::format("replaces the base's {}", describe(*key)), "replaced", was);
      d.change = ast::Change::declare;
      d.changed_by = ast::Change::override_;
      d.change_range = d.range;
      target = std::move(d);
      return;
    }
    merge_detail::Extender extender{sources_, diags_, out_.explanations};
    std::string added = extender.extend(target, d);
    if (added.empty()) return;  // reported
    diags_explain(name_range(d), fmt::format("extends the base's {}: {}", describe(*key), added), "extended", was);
    target.changed_by = ast::Change::extend;
    target.change_range = d.range;
  }

  static std::string describe(const Key& k) {
    return k.name.empty() ? k.kind : fmt::format("{} '{}'", k.kind, k.name);
  }

  void diags_explain(SourceRange at, std::string message, const char* what, SourceRange base) {
    out_.explanations.remark(at, std::move(message));
    out_.explanations.note(fmt::format("{}: {}", what, place(sources_, base)));
  }

  // The header: the base's settings, each one the extending spec gives replaced, under the
  // extending spec's name. `data` stays with the file that writes it: the extending spec's
  // is the root of its own data files.
  void merge_header(ast::Decl& d, std::size_t level, std::size_t m) {
    auto& audit = std::get<ast::AuditDecl>(d.node);
    const FileId spec_file = modules_[m].file;
    std::filesystem::path root = std::filesystem::path(sources_.path(spec_file)).parent_path();
    std::vector<ast::Property> own;
    for (auto& p : audit.settings.props) {
      if (p.key.name != "data") {
        own.push_back(std::move(p));
        continue;
      }
      const auto* s = p.value ? std::get_if<ast::StringLit>(&p.value->node) : nullptr;
      if (!s) diags_.error(p.key.range, "'data' must be a string");
      else root /= s->value;
    }
    for (const auto& [file, owner] : chain_.owner)
      if (owner == spec_file) out_.data_roots[file] = root;
    audit.settings.props.clear();
    std::optional<Slot> base;
    for (std::size_t bm = 0; bm < modules_.size() && !base; ++bm) {
      int l = level_of(modules_[bm].file);
      if (l < 0 || static_cast<std::size_t>(l) >= level) continue;
      for (std::size_t i = 0; i < modules_[bm].decls.size(); ++i)
        if (std::holds_alternative<ast::AuditDecl>(modules_[bm].decls[i].node)) base = Slot{bm, i};
    }
    if (base) {
      const auto& base_audit = std::get<ast::AuditDecl>(at(*base).node);
      audit.settings.props = base_audit.settings.props;
      auto& decls = modules_[base->module].decls;
      decls.erase(decls.begin() + static_cast<std::ptrdiff_t>(base->index));
    }
    for (auto& p : own) {
      auto it = std::find_if(audit.settings.props.begin(), audit.settings.props.end(),
                             [&](const ast::Property& q) { return q.key.name == p.key.name; });
      if (it == audit.settings.props.end()) {
        audit.settings.props.push_back(std::move(p));
        continue;
      }
      diags_explain(p.key.range, fmt::format("setting '{}' replaces the base's", p.key.name), "replaced", it->key.range);
      *it = std::move(p);
    }
    audit.extends.reset();
  }

  std::vector<ast::Module>& modules_;
  const SpecChain& chain_;
  const SourceManager& sources_;
  Diagnostics& diags_;
  MergedSpec& out_;
};

}  // namespace

MergedSpec merge_changes(std::vector<ast::Module>& modules, const SpecChain& chain, const SourceManager& sources,
                         Diagnostics& diags) {
  MergedSpec out;
  Merger(modules, chain, sources, diags, out).run();
  return out;
}

}  // namespace mirac
