// nesting.hpp: a scan for specs nested too deeply to parse. The grammar, the syntax tree,
// fmt and evaluation all recurse once per level; ten thousand open parentheses would run
// the stack out (a segfault) rather than give a diagnostic, so such a file is refused
// before it is parsed.
#pragma once

#include <cstddef>
#include <string_view>

namespace mirac {

/// Deeper than any spec a person writes, far below what the parser's stack can hold.
inline constexpr int kMaxSpecNesting = 100;

/// The byte offset where spec text first nests deeper than kMaxSpecNesting, or npos. Counts
/// open brackets ( [ { and runs of prefix operators (- and not), outside strings and comments.
std::size_t too_deeply_nested_at(std::string_view text);

}  // namespace mirac
