// parse.hpp: phase 1, text to AST. Syntax errors are collected; parsing resumes at the
// next top-level declaration.
#pragma once

#include "interpreter/model/ast.hpp"
#include "interpreter/model/diagnostics.hpp"

namespace mirac {

/// Parses the file `file` of `sources`. Declarations with syntax errors are left out of
/// the module and reported to `diags`.
ast::Module parse_module(FileId file, const SourceManager& sources, Diagnostics& diags);

/// Decodes the text of a string literal as written (with its quotes).
std::string decode_string_literal(std::string_view written);

}  // namespace mirac
