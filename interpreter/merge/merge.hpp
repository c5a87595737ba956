// merge.hpp: the changes of a spec that extends another (`extend`, `override`, `remove`, and
// its `audit` header), applied to the declarations of the specs it builds on, so that the
// checker sees one spec (docs/language.md, "Variants").
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "interpreter/model/ast.hpp"
#include "interpreter/model/diagnostics.hpp"
#include "interpreter/merge/modules.hpp"

namespace mirac {

struct MergedSpec {
  /// The data root of each file of an extending spec and of the modules it uses: that
  /// spec's own `data` setting (relative to it), else its directory. The data of the first
  /// base (and of its modules) is found from the spec's data root (--data, $MIRAC_DATA, its
  /// `data` setting), as for a spec that extends none.
  std::map<FileId, std::filesystem::path> data_roots;
  /// What each change did: a note at the change naming the place of what it changed
  /// (`mirac check` prints them).
  Diagnostics explanations;
  /// The files a change reached into (a declaration replaced, extended or removed there):
  /// `mirac fmt --show=merged` prints their declarations instead of their `use`.
  std::set<FileId> changed_files;
};

/// Applies the changes of each extending spec of `chain` to the declarations of the files
/// before it, in chain order: an `override` takes the place of the declaration it replaces
/// (so the order of contrasts, analyses and reports stays the base's), an `extend` merges
/// into it, a `remove` drops it, a new declaration is added, and the headers merge into the
/// last spec's. Afterwards `modules` holds plain declarations only. Mistakes (nothing of
/// that kind and name to change, a name the base declares already, a change in a spec that
/// extends none) are reported to `diags`, and the change is left out.
MergedSpec merge_changes(std::vector<ast::Module>& modules, const SpecChain& chain, const SourceManager& sources,
                         Diagnostics& diags);

/// `mirac fmt --show=merged`: the merged declarations as one spec in canonical layout, each
/// group headed by a comment naming the file it comes from, and each changed declaration
/// by the change that made it (interpreter/format/merged.cpp).
std::string format_merged(const std::vector<ast::Module>& modules, const SpecChain& chain, const MergedSpec& merged,
                          const SourceManager& sources);

}  // namespace mirac
