#include "engine/audit.hpp"

#include <sstream>

namespace mirac {

namespace {

// Analyze, report; an analysis with errors still writes what it could compute. With
// `reuse` (a run), results computed from the very same inputs are reported as they are.
Outcome analyze_and_report(Audit& audit, AuditEvents& events, bool reuse) {
  const std::string inputs = analysis_inputs(audit);
  const std::filesystem::path out_dir = analysis_out_dir(audit);
  if (reuse)
    if (std::optional<RecordedAnalysis> recorded = up_to_date_analysis(out_dir, inputs)) {
      events.up_to_date(audit, *recorded);
      return recorded->errors ? Outcome::fail(kSpecError) : Outcome{};
    }
  // From here until the new record, the results directory is being rewritten: no record.
  std::error_code ec;
  std::filesystem::remove(out_dir / kAnalysisInputsFile, ec);
  Analysis analysis;
  Outcome analyzed = analyze_audit(audit, analysis);
  events.analyzed(audit, analysis);
  if (!analyzed.ok()) return analyzed;
  if (Outcome written = write_report(audit, analysis); !written.ok()) return written;
  std::ostringstream printed;
  if (!analysis.diagnostics.all().empty()) analysis.diagnostics.print(printed, audit.sources());
  record_analysis(audit, analysis, inputs, printed.str());
  events.reported(audit, analysis);
  return analysis.diagnostics.has_errors() ? Outcome::fail(kSpecError) : Outcome{};
}

}  // namespace

Outcome run_audit(const AuditOptions& options, const std::atomic<bool>& cancel, AuditEvents& events) {
  if (options.resamples < 1) return Outcome::fail(kUsageError, "mirac run: --resamples must be at least 1");
  Audit audit = open_selected_audit(options);  // compile and plan; the analyses checked on the selection
  events.compiled(audit);
  return run_audit(audit, cancel, events);
}

Outcome run_audit(Audit& audit, const std::atomic<bool>& cancel, AuditEvents& events) {
  const AuditOptions& options = audit.options;
  if (options.resamples < 1) return Outcome::fail(kUsageError, "mirac run: --resamples must be at least 1");
  if (!audit.ok()) return Outcome::fail(kSpecError);
  Selection selection;
  if (Outcome selected = select_requests(audit, selection); !selected.ok()) return selected;
  events.selected(audit, selection);
  // Keys of the answers and judges, and prices of the judges, before paying for an answer.
  if (Outcome ready = check_ready_to_send(audit, selection, !options.answers_only); !ready.ok()) return ready;
  // One store, and its run lock, from the first request to the last write: a second run on
  // the same store is refused here rather than slipping in between two phases.
  Outcome opened;
  std::unique_ptr<Store> store = open_store(audit, opened);
  if (!store) return opened;
  if (std::string error; !store->lock_for_run(error)) return Outcome::fail(kRunError, "mirac: " + error);

  RunSummary answers = send_answers(audit, *store, selection, cancel, events.hooks("answers"));  // send
  events.answered(answers, count_marks(audit.spec(), audit.plan(), selection.rows,
                                       done_rows(*store, audit.plan(), selection.rows), store->marked_answers()));
  if (!answers.fatal_error.empty() || answers.cancelled) return Outcome::fail(kRunError);
  bool complete = answers.failed == 0 && answers.not_sent.empty();
  if (options.answers_only) return complete ? Outcome{} : Outcome::fail(kRunError);

  double spent = answers.spend_usd;
  for (std::size_t j = 0; j < audit.spec().judges.size(); ++j) {  // judge
    JudgePhaseSummary judged = judge_answers(audit, *store, j, selection, spent, cancel, events.hooks("judge"));
    events.judged(audit.spec().judges[j], judged);
    if (judged.stopped) return Outcome::fail(kRunError);
    spent += judged.spend_usd();
    complete = complete && judged.complete();
  }
  // Judge invariance: sampled answers translated and judged again.
  const std::vector<InvarianceSummary> checked_all =
      invariance_checks(audit.spec()).empty()
          ? std::vector<InvarianceSummary>{}
          : check_invariance(audit, *store, selection, spent, cancel, events.hooks("invariance"));
  for (const InvarianceSummary& checked : checked_all) {
    events.invariance_checked(checked);
    if (checked.stopped) return Outcome::fail(kRunError);
    spent += checked.spend_usd();
    complete = complete && checked.complete();
  }
  if (!audit.spec().judges.empty()) {  // analyze and report
    Outcome analyzed = analyze_and_report(audit, events, events.reuses_results());
    if (!analyzed.ok()) return {analyzed.code == kSpecError ? kSpecError : kRunError, analyzed.message};
  }
  return complete ? Outcome{} : Outcome::fail(kRunError);
}

Outcome analyze_only(const AuditOptions& options, AuditEvents& events) {
  if (options.resamples < 1) return Outcome::fail(kUsageError, "mirac analyze: --resamples must be at least 1");
  Outcome selected;
  Audit audit = open_narrowed_audit(options, selected);  // compile and plan; with --only, the selection's plan
  events.compiled(audit);
  if (!audit.ok()) return Outcome::fail(kSpecError);
  if (!selected.ok()) return selected;
  return analyze_and_report(audit, events, /*reuse=*/false);  // analyze and report
}

}  // namespace mirac
