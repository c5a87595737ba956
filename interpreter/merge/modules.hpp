// modules.hpp: reading a spec, the modules it `use`s and, for a spec that extends another
// (`audit mira_ja extends "../specs/mira.audit" { ... }`), the chain of specs it builds on.
#pragma once

#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "interpreter/model/ast.hpp"
#include "interpreter/model/diagnostics.hpp"

namespace mirac {

/// Which file is which in a spec that builds on others.
struct SpecChain {
  /// The spec files: the first base first, the spec itself last (one file when it extends none).
  std::vector<FileId> specs;
  /// The spec each loaded file belongs to: a spec itself, a module the spec that first used it.
  std::map<FileId, FileId> owner;
  /// The file each `use` loaded, by where its module name is written (file, byte offset).
  std::map<std::pair<FileId, std::size_t>, FileId> used;
  bool extends() const { return specs.size() > 1; }
};

struct LoadedSpec {
  /// Every file parsed, dependencies before their users: each base with its modules before
  /// the spec that extends it, the spec itself last. Declarations as written: the changes
  /// of an extending spec are applied by merge_changes (interpreter/merge/merge.hpp).
  std::vector<ast::Module> modules;
  SpecChain chain;
};

/// Parses `spec_path`, its bases and every module they use (stdlib modules from the
/// embedded copies, files relative to the file that names them). A module is read once;
/// cycles of `use` or `extends`, unknown modules and unreadable bases are errors.
LoadedSpec load_spec(const std::filesystem::path& spec_path, SourceManager& sources, Diagnostics& diags);

/// The same for a spec given as text (tests, stdin).
LoadedSpec load_spec_from_text(const std::string& shown_path, std::string text, SourceManager& sources,
                               Diagnostics& diags);

}  // namespace mirac
