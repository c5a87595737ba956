// format.hpp: the canonical printer behind `mirac fmt`, and a range-free AST dump for
// `mirac check --show=ast` and for tests that compare two parses.
#pragma once

#include <string>
#include <string_view>

#include "interpreter/model/ast.hpp"

namespace mirac {

/// Canonical `.audit` source for a parsed module: 2-space indentation, one blank line
/// between declarations (none between consecutive one-line declarations of the same kind),
/// minimal parentheses, and every comment of `module.comments` kept: one written after code
/// stays at the end of a line of code, any other is on its own line before the first node
/// that follows it. Idempotent; re-parsing the result gives the same `dump_ast`. `sources`
/// holds the module's file text, which tells the two kinds of comment apart.
std::string format_module(const ast::Module& module, const SourceManager& sources);

/// A deterministic S-expression dump of the module without source ranges: one line per
/// declaration. Presentation-only details are left out (whether a string was written
/// with `"""`, the spelling of a column as a name or a string, the `*`/`:` mix in a
/// formula term beyond "crossed"), so that two parses of equivalent text dump the same.
std::string dump_ast(const ast::Module& module);

/// `value` as a `"..."` literal, escaping `"`, `\`, and control characters.
std::string quote_string(std::string_view value);

}  // namespace mirac
