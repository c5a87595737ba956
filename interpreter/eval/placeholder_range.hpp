// placeholder_range.hpp: where in its file the placeholder a template error names is, so
// that the caret of "placeholder '{quesiton}' names nothing known" sits under `{quesiton}`
// and not under the whole (often hundreds of characters long) string around it.
#pragma once

#include <string_view>

#include "interpreter/model/source.hpp"

namespace mirac {

/// The range of the placeholder that `message` (an EvalError's, from expand_template:
/// "placeholder '{path}' ...") names, found in the source text `literal` covers: a `"..."`
/// string (its escapes skipped), a `"""` long string, or text read from a data file. The
/// first `{path}` there is the one that failed, since expand_template stops at the first.
/// `literal` itself when the message names no placeholder or the text holds none that is
/// certainly it (a placeholder written with escapes, say).
SourceRange placeholder_range(const SourceManager& sources, SourceRange literal, std::string_view message);

}  // namespace mirac
