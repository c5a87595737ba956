// modules.hpp: reading a spec and, transitively, the modules it `use`s.
#pragma once

#include <filesystem>
#include <vector>

#include "interpreter/ast.hpp"
#include "interpreter/diagnostics.hpp"

namespace mirac {

/// Parses `spec_path` and every module it uses (stdlib modules from the embedded copies,
/// files relative to the file that uses them). Returns the modules with dependencies
/// before their users and the main spec last. Cycles and unknown modules are errors.
std::vector<ast::Module> load_modules(const std::filesystem::path& spec_path, SourceManager& sources,
                                      Diagnostics& diags);

/// The same for a spec given as text (tests, stdin).
std::vector<ast::Module> load_modules_from_text(const std::string& shown_path, std::string text,
                                                SourceManager& sources, Diagnostics& diags);

}  // namespace mirac
