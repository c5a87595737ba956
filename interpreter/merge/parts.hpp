// merge_parts.hpp: the pieces of interpreter/merge/merge.cpp shared with merge_extend.cpp and
// format_merged.cpp: a declaration's kind and name, and the merge of one `extend`.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "interpreter/model/ast.hpp"
#include "interpreter/model/diagnostics.hpp"

namespace mirac::merge_detail {

/// What a change names: a declaration's keyword and its name ("" for the kinds a spec has
/// one of: design, seeds, checklists, prompt, defaults, simulate).
struct Key {
  std::string kind, name;
  bool operator==(const Key&) const = default;
};

/// The key of a declaration; none for those that add up rather than replace one another
/// (`use`, `prices`) and for the header and `remove`.
std::optional<Key> key_of(const ast::Decl& d);
/// Where a declaration's name is written (the whole declaration for the unnamed kinds).
SourceRange name_range(const ast::Decl& d);
/// "specs/mira.audit:95:10"
std::string place(const SourceManager& sources, SourceRange r);
/// Whether `extend KIND` exists.
bool extensible(const std::string& kind);
/// "a, b and c"
std::string listing(const std::set<std::string>& words);

/// Merges one `extend` into the base's declaration of the same kind and name.
struct Extender {
  const SourceManager& sources;
  Diagnostics& diags;         ///< what cannot be added (a level the factor has)
  Diagnostics& explanations;  ///< what a part of the extension replaced (a setting, a mapping)
  /// Adds `ext` to `base`; returns what it did, for the note ("adds level ja", "removes item
  /// fig2"), or "" when nothing could be done (each reason reported).
  std::string extend(ast::Decl& base, const ast::Decl& ext);
};

}  // namespace mirac::merge_detail
