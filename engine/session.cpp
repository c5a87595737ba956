#include "engine/session.hpp"

namespace mirac {

const Environment& environment(const AuditOptions& options) {
  static const ProcessEnvironment process;  // stateless: reads getenv on each call
  return options.env ? *options.env : process;
}

CheckOptions check_options(const AuditOptions& options) {
  CheckOptions c;
  if (!options.data.empty()) c.data_root = options.data;
  if (auto root = environment(options).get("MIRAC_DATA")) c.env_data_root = *root;
  c.offline = options.offline;
  if (options.answers > 0) c.answers = options.answers;
  return c;
}

std::filesystem::path run_directory(const Spec& spec, const AuditOptions& options) {
  if (!options.store.empty()) return options.store;
  return std::filesystem::path("runs") / (options.offline ? spec.name + ".offline" : spec.name);
}

Audit adopt_compilation(const AuditOptions& options, std::unique_ptr<Compilation> compilation) {
  Audit audit;
  audit.options = options;
  audit.compilation = std::move(compilation);
  if (audit.ok()) audit.run_dir = run_directory(audit.spec(), options);
  return audit;
}

Audit open_audit(const AuditOptions& options) {
  return adopt_compilation(options, compile(options.spec, check_options(options)));
}

std::unique_ptr<Store> open_store(const Audit& audit, Outcome& outcome) {
  std::string error;
  auto store = Store::open(audit.run_dir, error);
  if (!store) outcome = Outcome::fail(kRunError, "mirac: " + error);
  return store;
}

}  // namespace mirac
