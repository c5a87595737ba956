// driver.hpp: the language's pipeline in one place: read and parse the spec and its
// modules, check it against its data, build the plan. The audit's driver, which goes on to
// send, judge, analyze and report, is engine/audit.hpp.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "interpreter/check/check.hpp"
#include "interpreter/merge/merge.hpp"
#include "interpreter/plan/plan.hpp"

namespace mirac {

struct Compilation {
  SourceManager sources;
  Diagnostics diags;
  /// Every file parsed, with the changes of extending specs merged into their bases.
  std::vector<ast::Module> modules;
  SpecChain chain;
  MergedSpec merged;
  Spec spec;
  Plan plan;
  bool ok() const { return !diags.has_errors(); }
};

/// Phase 1: parses the spec, its bases and the modules they use, and merges the changes
/// of extending specs (`c.modules`, `c.chain`, `c.merged`).
void load_merged(const std::filesystem::path& spec_path, Compilation& c);

/// parse -> check -> plan. Stops after the phase that found errors; the diagnostics say why.
std::unique_ptr<Compilation> compile(const std::filesystem::path& spec_path, const CheckOptions& options);
/// The same for spec text that stands for the file `spec_path` (nothing is read there):
/// diagnostics name it so, and its data and `use`d files are found beside it.
std::unique_ptr<Compilation> compile_text(const std::filesystem::path& spec_path, std::string text,
                                          const CheckOptions& options);

/// A compiled spec switched to the built-in offline provider and planned again, as if it had
/// been compiled with `offline`: for reading the store of an offline run, whose requests
/// carry the offline model strings and so other hashes.
void replan_offline(Compilation& c);

}  // namespace mirac
