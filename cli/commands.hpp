// commands.hpp: what the commands share: the table that ties each subcommand to the
// function that runs it, the options several commands take (spec, data, store, offline,
// only), and the printing every command does (diagnostics, outcomes, progress).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/audit.hpp"

namespace mirac::cli {

/// The subcommands and what runs each; a command's options live in storage its handler owns.
class Commands {
 public:
  Commands(CLI::App& app, std::ostream& out, std::ostream& err) : app_(app), out(out), err(err) {}
  CLI::App* add(const std::string& name, const std::string& help, std::function<int()> run);
  /// A subcommand of `parent` (`mirac annotate sample`), and what runs it.
  CLI::App* add(CLI::App* parent, const std::string& name, const std::string& help, std::function<int()> run);
  /// A command that only groups subcommands (`mirac annotate`): one of them is required.
  CLI::App* group(const std::string& name, const std::string& help);
  /// Runs the parsed subcommand; kUsageError when none was.
  int run_parsed() const;

 private:
  CLI::App& app_;
  std::vector<std::pair<CLI::App*, std::function<int()>>> list_;

 public:
  std::ostream& out;
  std::ostream& err;
};

// The options several commands share, bound to `o`.
void add_spec(CLI::App* cmd, AuditOptions& o);
void add_data(CLI::App* cmd, AuditOptions& o);
/// --store DIR and --offline (`offline_help` says what --offline means to this command).
void add_store(CLI::App* cmd, AuditOptions& o, const std::string& offline_help);
/// --store DIR and --offline for a command that reads the store a run wrote: without either
/// it finds the offline run's store when that is the only one (choose_store).
void add_read_store(CLI::App* cmd, AuditOptions& o);
/// `--answers K`: answers per prompt (the spec's `answers`), for every command that reads a run.
void add_answers(CLI::App* cmd, AuditOptions& o);
void add_only(CLI::App* cmd, AuditOptions& o, const std::string& help);
/// `--sample N`, `--stratify KEYS`, `--sample-seed S`: a balanced, seeded pilot.
void add_sample(CLI::App* cmd, AuditOptions& o);
/// --only, --limit and --sample as `mirac run` takes them, for check and plan: a pilot.
void add_selection(CLI::App* cmd, AuditOptions& o);
/// `--only` for a command that reads a run (analyze, view, export, annotate): it reads the
/// selected requests alone, and `seed=...` opens a pilot's spec (`what`: what it does to them).
void add_read_only(CLI::App* cmd, AuditOptions& o, const std::string& what);
/// open_narrowed_audit for a command that reads a run, with the compile's diagnostics
/// printed: kOk, or the exit status to stop with (its message printed).
int open_read_audit(const AuditOptions& options, Audit& audit, std::ostream& err);
/// A selection (--only, --sample, --limit) that names nothing of the spec: a usage error
/// printed, as in `mirac run`; else kOk.
int check_selection(const Audit& audit, std::ostream& err);

/// Prints the compile's diagnostics, and which store is read when that needs saying; the
/// exit status the diagnostics imply (kOk or kSpecError).
int print_compiled(const Audit& audit, std::ostream& err);
/// Prints a step's message (when it has one) and returns its exit status.
int finish(const Outcome& outcome, std::ostream& err);
/// Progress of a sending phase: a bar on a terminal, else a line every ten seconds (or only
/// the last, with `final_only`), each labelled `label` when it is not empty.
RunHooks progress_hooks(const std::string& label, std::ostream& err, bool final_only = false);

// Each file of cli/ adds its commands.
void add_compile_commands(Commands& commands);   ///< check, fmt, prompts, plan
void add_run_commands(Commands& commands);       ///< run, analyze
void add_status_command(Commands& commands);     ///< status
void add_transfer_commands(Commands& commands);  ///< export, import
void add_rewrite_command(Commands& commands);    ///< rewrite
void add_annotate_command(Commands& commands);   ///< annotate sample, annotate import
void add_simulate_command(Commands& commands);   ///< simulate
void add_view_command(Commands& commands);       ///< view

}  // namespace mirac::cli
