#include "engine/session.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace mirac {

namespace {

bool holds_store(const std::filesystem::path& dir) { return std::filesystem::exists(dir / "store.sqlite"); }

std::filesystem::path default_run_dir(const Spec& spec) { return std::filesystem::path("runs") / spec.name; }
std::filesystem::path offline_run_dir(const Spec& spec) { return std::filesystem::path("runs") / (spec.name + ".offline"); }

}  // namespace

const Environment& environment(const AuditOptions& options) {
  static const ProcessEnvironment process;  // stateless: reads getenv on each call
  return options.env ? *options.env : process;
}

CheckOptions check_options(const AuditOptions& options) {
  CheckOptions c;
  if (!options.data.empty()) c.data_root = options.data;
  if (auto root = environment(options).get("MIRAC_DATA")) c.env_data_root = *root;
  c.offline = options.offline;
  c.check_analyses = options.check_analyses;
  if (options.answers > 0) c.answers = options.answers;
  return c;
}

std::filesystem::path run_directory(const Spec& spec, const AuditOptions& options) {
  if (!options.store.empty()) return options.store;
  return options.offline ? offline_run_dir(spec) : default_run_dir(spec);
}

StoreChoice choose_store(const Spec& spec, const AuditOptions& options) {
  StoreChoice choice{run_directory(spec, options), options.offline, ""};
  if (!options.reads_run_store || !options.store.empty() || options.offline) return choice;
  const std::filesystem::path real = default_run_dir(spec), offline = offline_run_dir(spec);
  if (!holds_store(offline)) return choice;
  if (holds_store(real)) {
    choice.notice = fmt::format("mirac: reading {}; {} holds an --offline run's store too: add --offline to read that one",
                                real.string(), offline.string());
    return choice;
  }
  // The offline run is the only one there is: a new user's first audit, run without keys.
  choice.run_dir = offline;
  choice.offline = true;
  choice.notice = fmt::format("mirac: reading {}, the store of an --offline run (simulated answers): {} holds none",
                              offline.string(), real.string());
  return choice;
}

std::string missing_store_advice(const Audit& audit) {
  const Spec& spec = audit.spec();
  const AuditOptions& o = audit.options;
  const std::filesystem::path real = default_run_dir(spec), offline = offline_run_dir(spec);
  std::string said = fmt::format("no run store at {}", (audit.run_dir / "store.sqlite").string());
  // Where a store is after all, and the flags that read it from here.
  std::vector<std::string> elsewhere;
  if (audit.run_dir != real && holds_store(real)) {
    std::vector<std::string> drop;
    if (!o.store.empty()) drop.push_back("--store");
    if (o.offline) drop.push_back("--offline");
    elsewhere.push_back(fmt::format("{} holds a run's store: leave out {} to read it", real.string(),
                                    fmt::join(drop, " and ")));
  }
  if (audit.run_dir != offline && holds_store(offline)) {
    std::vector<std::string> change;
    if (!o.store.empty()) change.push_back("leave out --store");
    if (!o.offline) change.push_back("add --offline");
    elsewhere.push_back(fmt::format("{} holds an --offline run's store: {} to read it", offline.string(),
                                    fmt::join(change, " and ")));
  }
  if (!elsewhere.empty()) return said + "; " + fmt::format("{}", fmt::join(elsewhere, "; "));
  const std::string spec_path = o.spec.string();
  if (!o.store.empty())
    return said + fmt::format(" (check --store; `mirac run {} --store {}` writes one there)", spec_path, o.store);
  if (o.offline) return said + fmt::format(" (`mirac run {} --offline` writes it)", spec_path);
  return said + fmt::format(", nor at {}: run `mirac run {}` first (add --offline without API keys), or add --store "
                            "DIR where a run wrote its store",
                            (offline / "store.sqlite").string(), spec_path);
}

Audit adopt_compilation(const AuditOptions& options, std::unique_ptr<Compilation> compilation) {
  Audit audit;
  audit.options = options;
  audit.compilation = std::move(compilation);
  if (!audit.ok()) return audit;
  StoreChoice choice = choose_store(audit.spec(), options);
  audit.run_dir = std::move(choice.run_dir);
  audit.store_notice = std::move(choice.notice);
  if (choice.offline && !options.offline) {
    audit.options.offline = true;  // the results say the answers are simulated
    replan_offline(*audit.compilation);
  }
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
