#include "interpreter/driver.hpp"

#include "interpreter/modules.hpp"

namespace mirac {

std::unique_ptr<Compilation> compile(const std::filesystem::path& spec_path, const CheckOptions& options) {
  auto c = std::make_unique<Compilation>();
  c->modules = load_modules(spec_path, c->sources, c->diags);  // phase 1: parse
  if (c->modules.empty() || !c->ok()) return c;
  c->spec = check(c->modules, options, c->sources, c->diags);  // phase 2: resolve and check
  if (!c->ok()) return c;
  if (options.offline) use_offline_provider(c->spec);
  c->plan = build_plan(c->spec, c->diags);  // phase 3: plan
  return c;
}

}  // namespace mirac
