// stdlib_modules.hpp: the stdlib .audit modules compiled into the binary.
#pragma once

#include <span>
#include <string_view>

namespace mirac {

struct EmbeddedModule {
  std::string_view name;  ///< module name as written after `use`, e.g. "stdlib.providers"
  std::string_view path;  ///< path shown in diagnostics, e.g. "stdlib/providers.audit"
  std::string_view text;
};

/// Every module of stdlib/, sorted by name. Generated at build time.
std::span<const EmbeddedModule> embedded_stdlib();

}  // namespace mirac
