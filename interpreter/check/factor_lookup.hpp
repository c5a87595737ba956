// factor_lookup.hpp: a factor named by a declaration (a text's, a variant's `by`), found by
// name or reported at the name with the declared factors and a "did you mean". Internal to
// interpreter/check/.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "interpreter/model/diagnostics.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac {

/// The index of the factor `id` names, or -1 after an error at `id`.
inline int factor_or_report(const Spec& spec, const ast::Ident& id, Diagnostics& diags) {
  const int f = spec.factor_index(id.name);
  if (f >= 0) return f;
  std::vector<std::string> names;
  for (const auto& factor : spec.factors) names.push_back(factor.name);
  diags.error(id.range, with_suggestion(fmt::format("unknown factor '{}'", id.name), id.name, names));
  return -1;
}

}  // namespace mirac
