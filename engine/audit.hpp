// audit.hpp: the driver. The whole audit, one step a call: compile and plan, select, send,
// judge, analyze, report. What `mirac run` and `mirac analyze` call, and what a C++ program
// embedding mirac calls; the other commands (status, export, import, rewrite) open the
// same Audit and run their own steps on it. The steps return what happened; what they say
// while they work goes to the caller's AuditEvents. Nothing here prints.
#pragma once

#include <atomic>
#include <string>

#include "engine/analyze/analyze_step.hpp"
#include "engine/analyze/freshness.hpp"
#include "engine/judge/invariance_phase.hpp"
#include "engine/judge/judge_phase.hpp"
#include "engine/report/report_step.hpp"
#include "engine/selection.hpp"
#include "engine/send/answer_marks.hpp"
#include "engine/send/send.hpp"
#include "engine/session.hpp"

namespace mirac {

/// What an audit tells its caller as it goes. Every method has a default that ignores it.
class AuditEvents {
 public:
  virtual ~AuditEvents() = default;
  /// After compiling (also when it failed): the spec's diagnostics.
  virtual void compiled(const Audit&) {}
  /// The requests the run will send.
  virtual void selected(const Audit&, const Selection&) {}
  /// Progress and notices of a sending phase ("answers", "judge").
  virtual RunHooks hooks(const std::string& phase) { (void)phase; return {}; }
  /// After the answer phase: what it sent and stored, and the selected answers the servers
  /// did not treat as asked (cut, past an ignored limit, from a shortened prompt).
  virtual void answered(const RunSummary&, const AnswerMarks&) {}
  virtual void judged(const Judge&, const JudgePhaseSummary&) {}
  /// After an invariance analysis's translations and their judgments (docs/judging.md).
  virtual void invariance_checked(const InvarianceSummary&) {}
  /// After analyzing (also when it failed): the analysis's own diagnostics.
  virtual void analyzed(const Audit&, const Analysis&) {}
  /// After writing results.json, the tables and the reports.
  virtual void reported(const Audit&, const Analysis&) {}
  /// Instead of analyzed and reported, when a run's results were computed from exactly the
  /// inputs it has (freshness.hpp): what that analysis reported.
  virtual void up_to_date(const Audit&, const RecordedAnalysis&) {}
  /// Whether a run may report such results instead of analysing again. A caller that needs
  /// the analysis itself in memory (the embedding API's RunResult) says no.
  virtual bool reuses_results() const { return true; }
};

/// `mirac run`: compile, plan, send, judge, analyze, report, stopping at the first step that
/// cannot go on. Every step reads and writes the store, so a rerun picks up where this one
/// stopped and pays for nothing twice. `cancel` (Ctrl-C) stops sending and keeps every
/// answer served. kOk only when everything selected was answered, judged and analyzed.
Outcome run_audit(const AuditOptions& options, const std::atomic<bool>& cancel, AuditEvents& events);
/// The same from the select step on, for an audit already compiled (from text, say: the
/// embedding API, mirac/mirac.hpp). kSpecError when it did not compile.
Outcome run_audit(Audit& audit, const std::atomic<bool>& cancel, AuditEvents& events);

/// `mirac analyze`: compile, plan, analyze (a scores CSV, else the run store), report. With
/// `--only`, the plan is the selected requests' (open_narrowed_audit): their scores alone.
Outcome analyze_only(const AuditOptions& options, AuditEvents& events);

}  // namespace mirac
