// mirac.hpp: the C++ API for programs that build or run audits (docs/embedding.md). A thin
// layer over the driver (engine/audit.hpp): compile a spec from a file or from text, read
// its diagnostics and its plan, run it through the caller's HTTP client, read the results.
// Installed with the library; `find_package(mirac)` and `mirac::mirac` bring it in.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/audit.hpp"
#include "runtime/http/http_client.hpp"

namespace mirac {

/// The library's version, as `mirac --version` prints it ("0.1.0").
const char* library_version();

/// A spec held in memory rather than in a file.
struct SpecText {
  std::string text;
  /// The spec's file name. Diagnostics name it `base_dir / name`, as they name a spec file
  /// by the path it was opened with; without an `audit NAME` header its stem names the audit.
  std::string name = "spec.audit";
  /// The directory the spec stands in: its data files (`csv("seeds.csv")`, `file(...)`) and
  /// the modules it `use`s by path are found there. Nothing is read at `base_dir / name`.
  /// Empty: the current directory.
  std::filesystem::path base_dir;
};

/// Compiles the spec file at `path`: parse, check against its data, plan. `options` (the
/// store, `only`, `limit`, the budget, ...) go with the audit to every later step; their
/// `spec` is set to `path`. Never throws for a problem in the spec: `ok()` is false and
/// the diagnostics say why.
Audit compile_spec(const std::filesystem::path& path, AuditOptions options = {});

/// Compiles spec text: the same as compiling the file `source.base_dir / source.name`
/// holding `source.text`.
Audit compile_spec_text(const SpecText& source, AuditOptions options = {});

/// Every diagnostic of the compilation as `mirac check` prints them: sorted, each
/// `file:line:col: error: message` with the source line and a caret, then the count.
/// Empty when there is none.
std::string diagnostics_text(const Audit& audit);
/// The same as one JSON array (`mirac check --format json`'s).
std::string diagnostics_json(const Audit& audit);

/// What a run did.
struct RunResult {
  /// kOk when everything selected was answered, judged and analyzed; otherwise the exit
  /// status `mirac run` would give and, when the events did not already say it, why.
  Outcome outcome;
  std::optional<RunSummary> answers;       ///< the answer phase, when it ran
  std::vector<JudgePhaseSummary> judging;  ///< one per judge phase that ran, in spec order
  /// The analysis, when it ran: `analysis->output.json` is results.json's content,
  /// `analysis->diagnostics` the analysis's own warnings and errors.
  std::optional<Analysis> analysis;
  /// `<out dir>/results.json` once written (with the CSV tables and reports beside it);
  /// empty otherwise.
  std::filesystem::path results_json;
  bool ok() const { return outcome.ok(); }
};

/// How to run a compiled audit.
struct RunControls {
  /// Every request but those to the built-in `offline` provider goes through it; null:
  /// the audit's AuditOptions::http, else libcurl. Not owned; it must outlive the call.
  HttpClient* http = nullptr;
  /// Progress, notices and each step as it ends; null: nothing is reported.
  AuditEvents* events = nullptr;
  /// Set it (from another thread, a signal handler) to stop sending; what was answered is
  /// kept, and the next run resumes. Null: never.
  const std::atomic<bool>* cancel = nullptr;
};

/// Runs a compiled audit as `mirac run` does: select, send, judge, analyze, report, into
/// the run store of `audit.run_dir` (AuditOptions::store). A second call resumes and pays
/// for nothing twice. kSpecError when the audit did not compile.
RunResult run_compiled(Audit& audit, const RunControls& controls = {});

}  // namespace mirac
