#include "cli/commands.hpp"

#include <ostream>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

namespace mirac::cli {

CLI::App* Commands::add(const std::string& name, const std::string& help, std::function<int()> run) {
  CLI::App* cmd = app_.add_subcommand(name, help);
  list_.emplace_back(cmd, std::move(run));
  return cmd;
}

CLI::App* Commands::add(CLI::App* parent, const std::string& name, const std::string& help, std::function<int()> run) {
  CLI::App* cmd = parent->add_subcommand(name, help);
  list_.emplace_back(cmd, std::move(run));
  return cmd;
}

CLI::App* Commands::group(const std::string& name, const std::string& help) {
  CLI::App* cmd = app_.add_subcommand(name, help);
  cmd->require_subcommand(1);
  return cmd;
}

int Commands::run_parsed() const {
  for (const auto& [cmd, run] : list_)
    if (cmd->parsed()) return run();
  return kUsageError;
}

void add_spec(CLI::App* cmd, AuditOptions& o) {
  cmd->add_option("spec", o.spec, "the .audit spec file")->required();
}

void add_data(CLI::App* cmd, AuditOptions& o) {
  cmd->add_option("--data", o.data, "data root for relative data paths (overrides $MIRAC_DATA and the spec)");
}

void add_store(CLI::App* cmd, AuditOptions& o, const std::string& offline_help) {
  cmd->add_option("--store", o.store, "run directory holding store.sqlite (default: runs/<spec name>)");
  if (!offline_help.empty()) cmd->add_flag("--offline", o.offline, offline_help);
}

void add_read_store(CLI::App* cmd, AuditOptions& o) {
  o.reads_run_store = true;
  cmd->add_option("--store", o.store,
                  "run directory holding store.sqlite (default: runs/<spec name>, else the --offline run's when only "
                  "that one exists)");
  cmd->add_flag("--offline", o.offline, "read the store of an --offline run (runs/<spec name>.offline)");
}

void add_answers(CLI::App* cmd, AuditOptions& o) {
  cmd->add_option("--answers", o.answers,
                  "answers per prompt, model and arm, in place of the spec's `answers` (give a run's other "
                  "commands the same)")
      ->check(CLI::Range(1, 100));
}

void add_only(CLI::App* cmd, AuditOptions& o, const std::string& help) { cmd->add_option("--only", o.only, help); }

void add_selection(CLI::App* cmd, AuditOptions& o) {
  add_only(cmd, o, "check a pilot: only requests matching key=value,... (factors, model, arm, seed); with seed=... only "
                   "those seeds' data is checked");
  cmd->add_option("--limit", o.limit, "at most N requests, the first in plan order");
  add_sample(cmd, o);
}

void add_read_only(CLI::App* cmd, AuditOptions& o, const std::string& what) {
  add_only(cmd, o, what + " only the requests matching key=value,... (factors, model, arm, seed); with seed=... a "
                          "pilot's spec whose data covers those seeds");
}

int open_read_audit(const AuditOptions& options, Audit& audit, std::ostream& err) {
  Outcome selected;
  AuditOptions reading = options;
  reading.check_analyses = false;  // these commands show answers; they run no analysis
  audit = open_narrowed_audit(reading, selected);
  if (int code = print_compiled(audit, err); code != kOk) return code;
  return finish(selected, err);
}

int check_selection(const Audit& audit, std::ostream& err) {
  if (!audit.ok() || selection_said(audit.options).empty()) return kOk;
  Selection unused;
  return finish(select_requests(audit, unused), err);
}

void add_sample(CLI::App* cmd, AuditOptions& o) {
  cmd->add_option("--sample", o.sample, "a pilot of N requests spread evenly over the strata of --stratify");
  cmd->add_option("--stratify", o.stratify,
                  "strata of --sample: factors, model, arm, seed, seed.FIELD, e.g. language,hls (default: every "
                  "factor, model and arm)");
  cmd->add_option("--sample-seed", o.sample_seed, "which pilot --sample picks (default 1)");
}

int print_compiled(const Audit& audit, std::ostream& err) {
  audit.diagnostics().print(err, audit.sources());
  if (!audit.store_notice.empty()) err << audit.store_notice << '\n';
  return audit.ok() ? kOk : kSpecError;
}

int finish(const Outcome& outcome, std::ostream& err) {
  if (!outcome.message.empty()) err << outcome.message << '\n';
  return outcome.code;
}

namespace {

// The terminal's width: what the kernel says of stderr's terminal, else $COLUMNS, else 80.
std::size_t terminal_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"))
    if (long n = std::strtol(columns, nullptr, 10); n > 0) return static_cast<std::size_t>(n);
  return 80;
}

}  // namespace

RunHooks progress_hooks(const std::string& label, std::ostream& err, bool final_only) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  // The phase's name, which a phase that sends in rounds updates ("judge j repair 1").
  auto phase = std::make_shared<std::string>(label);
  RunHooks hooks;
  // Off a terminal (a log, a CI job) a line per ten seconds at most, whatever the rate of
  // progress reports (`mirac simulate` reports every replicate), and the last one.
  auto last_printed = std::make_shared<long>(-1);
  hooks.on_phase = [phase, last_printed](const std::string& name) {
    *phase = name;
    *last_printed = -1;  // a new phase's first report is printed
  };
  hooks.on_progress = [&err, phase, terminal, final_only, last_printed](const Progress& p) {
    // One line that fits the terminal, redrawn in place and cleared to its end.
    if (terminal) {
      err << '\r' << format_progress_line(p, *phase, terminal_columns()) << "\x1b[K" << (p.final ? "\n" : "") << std::flush;
      return;
    }
    const long window = static_cast<long>(p.elapsed_s / 10);
    if (p.final || (!final_only && window != *last_printed)) {
      *last_printed = window;
      err << (phase->empty() ? "" : fmt::format("{:<8} ", *phase)) << format_progress(p) << '\n';
    }
  };
  hooks.log = [&err, terminal](const std::string& line) { err << (terminal ? "\n" : "") << line << '\n'; };
  return hooks;
}

}  // namespace mirac::cli
