// run_command.hpp: `mirac run`: the plan's requests, their judging and analysis, through
// the durable store in the run directory; and what other commands share with it.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "runtime/scheduler/scheduler.hpp"

namespace mirac {

struct Compilation;
struct Spec;

struct RunCommandOptions {
  std::string spec;
  std::string data;
  std::string store;  ///< run directory; default runs/<spec name>
  std::string only;   ///< key=value,... over factors, model, arm, seed
  std::size_t limit = 0;
  int concurrency = 0;  ///< per provider; 0: the provider's own setting
  std::optional<double> budget_usd;
  bool offline = false;       ///< --offline: the built-in offline provider answers and judges
  bool answers_only = false;  ///< --answers-only: stop after the answer phase
  int repairs = 2;            ///< judge replies the rubric rejects are asked again this often
  std::string out_dir;        ///< results directory (default <run dir>/results)
};

/// Compiles `o.spec` (with `--data`, then $MIRAC_DATA) and prints its diagnostics to `err`.
std::unique_ptr<Compilation> compile_spec(const RunCommandOptions& o, std::ostream& err);
/// Limits per provider (their settings, `--concurrency`), prices by model string (models,
/// judges and rewriters, as check resolved them) and `--budget`: how every command that
/// sends (run, rewrite) drives the scheduler.
SchedulerOptions scheduler_options(const Spec& spec, const RunCommandOptions& o);
/// The run directory: `--store`, else runs/<spec name> (runs/<spec name>.offline with --offline).
std::filesystem::path run_dir(const Spec& spec, const RunCommandOptions& o);

int cmd_run(const RunCommandOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mirac
