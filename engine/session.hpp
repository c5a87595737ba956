// session.hpp: what every step of an audit shares: the options (one struct for every
// command), the compiled spec and its plan, and the run directory. A step returns an
// Outcome: kOk, or the exit status and what to tell the user.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "interpreter/driver.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

class HttpClient;

/// Exit statuses of every command (docs/cli.md).
inline constexpr int kOk = 0, kSpecError = 1, kUsageError = 2, kInternalError = 3, kRunError = 4;

/// How a step ended: kOk, or an exit status and what to tell the user (whole lines without
/// the last newline; empty when the diagnostics already said it).
struct Outcome {
  int code = kOk;
  std::string message;
  bool ok() const { return code == kOk; }
  static Outcome fail(int code, std::string message = "") { return {code, std::move(message)}; }
};

struct AuditOptions {
  // The spec, its data and its run store.
  std::filesystem::path spec;
  std::string data;       ///< data root (`--data`); else $MIRAC_DATA; else the spec's own
  std::string store;      ///< run directory; default runs/<spec name> (runs/<spec name>.offline)
  bool offline = false;   ///< the built-in offline provider answers and judges everything
  /// The command reads a store a run wrote (status, export, analyze, view, annotate) instead
  /// of writing one: without `store` and `offline` it may read the offline run's store
  /// (choose_store). Commands that send or import leave it false, so real answers never go
  /// into an offline store.
  bool reads_run_store = false;
  /// Whether compiling checks that each analysis can run on the plan (CheckOptions); false
  /// for the commands that only read answers.
  bool check_analyses = true;
  // Which requests.
  std::string only;       ///< key=value,... over factors, model, arm and seed
  std::size_t limit = 0;  ///< at most this many requests (0: all)
  /// Answers per prompt, model and arm (`--answers K`) in place of the spec's `answers`; 0:
  /// the spec's. Every command that reads a run must be given the same.
  int answers = 0;
  /// A pilot of this many requests (0: none), spread evenly over the strata of `stratify`
  /// and picked at random (seeded by `sample_seed`) within each; docs/cli.md, `--sample`.
  std::size_t sample = 0;
  std::string stratify;           ///< keys separated by commas; empty: every factor, model and arm
  std::uint64_t sample_seed = 1;
  // Sending and judging.
  int concurrency = 0;    ///< requests in flight per provider; 0: the provider's setting
  std::optional<double> budget_usd;  ///< spend cap for the whole run (answers and judging)
  double timeout_s = 0;   ///< total time one attempt may take (`--timeout`); 0: the provider's setting
  int repairs = 2;        ///< judge replies the rubric rejects are asked again this often
  /// Every paid request through its provider's batch API (`--batch`), as if each model and
  /// judge declared `batch true`: half the price, answers within 24 hours.
  bool batch = false;
  bool answers_only = false;
  /// The transport every request goes through; null: libcurl. Not owned: it must outlive
  /// the steps that send. A program embedding mirac passes its own (docs/embedding.md);
  /// `offline:` requests never reach it.
  HttpClient* http = nullptr;
  /// Where $MIRAC_DATA and the API keys are read; null: the process environment. Not owned;
  /// tests and programs embedding mirac pass their own.
  const Environment* env = nullptr;
  // Analysis and report.
  std::string scores;     ///< analyze this scores CSV instead of the store's scores
  std::string out_dir;    ///< default <run dir>/results (`results` with `scores`)
  int resamples = 2000;   ///< bootstrap resamples per contrast interval
  std::uint64_t seed = 20260101;  ///< bootstrap seed
  /// When the analysis ran, in Unix seconds, as results.json's manifest records it; unset:
  /// the system clock's now. Tests pin it so that results.json is the same bytes each run.
  std::optional<double> analyzed_at;
};

/// A compiled spec and where its run lives.
struct Audit {
  AuditOptions options;  ///< `offline` set when choose_store picked the offline run's store
  std::unique_ptr<Compilation> compilation;
  std::filesystem::path run_dir;
  /// One line for standard error when the store read is not the one the options name
  /// plainly (choose_store); empty otherwise.
  std::string store_notice;

  bool ok() const { return compilation && compilation->ok(); }
  const Spec& spec() const { return compilation->spec; }
  const Plan& plan() const { return compilation->plan; }
  const SourceManager& sources() const { return compilation->sources; }
  const Diagnostics& diagnostics() const { return compilation->diags; }
  /// Whether the run directory holds a store yet.
  bool has_store() const { return std::filesystem::exists(run_dir / "store.sqlite"); }
};

/// The environment `options` read: its own, else the process's.
const Environment& environment(const AuditOptions& options);
/// The check options `options` imply: `data`, then $MIRAC_DATA, then the spec's own.
CheckOptions check_options(const AuditOptions& options);
/// The run directory: `options.store`, else runs/<spec name> (runs/<spec name>.offline with
/// `offline`, so simulated answers never mix with real ones).
std::filesystem::path run_directory(const Spec& spec, const AuditOptions& options);

/// Which store a command uses, and why when that needs saying.
struct StoreChoice {
  std::filesystem::path run_dir;
  bool offline = false;  ///< the offline run's store: the spec is read as with --offline
  std::string notice;    ///< one line for standard error; empty when the options said it all
};
/// The one rule every command goes by (docs/cli.md, "Which store"): `store` when given;
/// else runs/<spec name>.offline with `offline`; else runs/<spec name>, except that a command
/// that `reads_run_store` reads runs/<spec name>.offline when only that one holds a store,
/// and says so; when both do, it reads runs/<spec name> and names --offline for the other.
StoreChoice choose_store(const Spec& spec, const AuditOptions& options);
/// Why there is no store where a command looked, and what to add or run to get one: the
/// stores that do exist and the flag that reads each, else the `mirac run` that writes one.
std::string missing_store_advice(const Audit& audit);

/// Compile and plan: parse, check and plan the spec; the run directory. The diagnostics are
/// in the compilation whether or not it succeeded.
Audit open_audit(const AuditOptions& options);
/// Adopts a compilation made otherwise (`mirac rewrite` compiles without requiring locks).
Audit adopt_compilation(const AuditOptions& options, std::unique_ptr<Compilation> compilation);

/// The run store (created when absent). Null with a failure in `outcome`.
std::unique_ptr<Store> open_store(const Audit& audit, Outcome& outcome);

}  // namespace mirac
