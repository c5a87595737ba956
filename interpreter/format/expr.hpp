// format_expr.hpp: what the canonical printer (format.cpp) and the AST dump (dump_ast.cpp)
// share: expressions and strings as `mirac fmt` writes them, and small joining helpers.
// Internal to interpreter/; everything else includes interpreter/format/format.hpp.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interpreter/model/ast.hpp"

namespace mirac::format_detail {

using Columns = std::vector<std::pair<ast::Ident, ast::Column>>;

/// Whether `s` may be written as a bare name (else a column is written as a string).
bool is_identifier(std::string_view s);

template <typename T, typename F>
std::string join(const std::vector<T>& items, std::string_view sep, F&& render) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += render(items[i]);
  }
  return out;
}

inline std::string name_of(const ast::Ident& i) { return i.name; }

/// How many terminal columns `s` (UTF-8) takes: a Chinese or Japanese character two, a
/// combining mark none, so that a line of CJK text is split where it looks 100 wide.
std::size_t display_width(std::string_view s);

/// `e` on one line with minimal parentheses; `indent` (in spaces) places the lines of a
/// `"""` block that `e` holds.
std::string print_expr(const ast::Expr& e, int indent);

/// The pieces of a left-associative `or`/`and`/`+`/`-`/`++`/`*`/`/` chain at the top of
/// `e` ("a", "op b", "op c"), each printed as in the whole; one piece when `e` is no chain.
std::vector<std::string> expr_chain(const ast::Expr& e, int indent);

/// A string as written: bare, a `"""` block (when it was one and reads back unchanged),
/// else quoted.
std::string string_literal(const ast::StringLit& s, int indent);

}  // namespace mirac::format_detail
