// run_commands.cpp: `mirac run` (the whole audit) and `mirac analyze` (its analysis and
// report again), both through the driver (engine/audit.hpp), printed as they go.
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "engine/analyze/manifest.hpp"

namespace mirac::cli {

namespace {

// What the driver says, printed: results on standard output, diagnostics and progress on
// standard error.
class PrintedEvents : public AuditEvents {
 public:
  PrintedEvents(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}
  void compiled(const Audit& audit) override {
    spec_ = &audit.spec();  // the audit outlives the run's events
    print_compiled(audit, err_);
  }
  void selected(const Audit& audit, const Selection& selection) override {
    out_ << fmt::format("run {}{}: {} requests, store {}\n", audit.spec().name,
                        audit.options.offline ? " (offline: simulated answers)" : "", selection.rows.size(),
                        audit.run_dir.string());
  }
  RunHooks hooks(const std::string& phase) override { return progress_hooks(phase, err_); }
  void answered(const RunSummary& summary, const AnswerMarks& marks) override {
    out_ << format_summary(summary);
    if (spec_)
      for (const auto& w : marks_warnings(*spec_, marks)) out_ << (w.starts_with("  ") ? "" : "warning: ") << w << '\n';
  }
  void judged(const Judge& judge, const JudgePhaseSummary& s) override {
    out_ << fmt::format("judge {}: {} answers, {} scored, {} unusable replies, {} failed, {} pending\n", judge.name,
                        s.answers, s.scored, s.invalid, s.failed, s.pending);
    for (const auto& p : s.problems) out_ << "  unusable reply: " << p << '\n';
    if (spec_)
      for (const auto& w : unscored_skews(*spec_, s.by_level)) out_ << "  warning: " << w << '\n';
    for (const auto& r : s.rounds)
      if (!r.fatal_error.empty() || r.cancelled || !r.messages.empty()) out_ << format_summary(r);
  }
  void invariance_checked(const InvarianceSummary& s) override {
    out_ << s.describe() << '\n';
    for (const auto& r : s.rounds)
      if (!r.fatal_error.empty() || r.cancelled || !r.messages.empty()) out_ << format_summary(r);
  }
  void analyzed(const Audit& audit, const Analysis& analysis) override {
    if (!analysis.diagnostics.all().empty()) analysis.diagnostics.print(err_, audit.sources());
  }
  void reported(const Audit& audit, const Analysis& a) override {
    const std::string dir = a.out_dir.string();
    out_ << fmt::format("{}: {} score rows; wrote {}/results.json, {} tables and {}/report.html\n", audit.spec().name,
                        a.score_rows, dir, a.output.tables.size(), dir);
  }
  void up_to_date(const Audit& audit, const RecordedAnalysis& r) override {
    err_ << r.diagnostics;  // as the analysis said them
    const std::string dir = analysis_out_dir(audit).string();
    out_ << fmt::format("{}: {} score rows; results up to date in {} (analyzed {}, nothing has changed since; "
                        "`mirac analyze` computes them again)\n",
                        audit.spec().name, r.score_rows, dir, analyze::utc_iso8601(r.analyzed_at));
  }

 private:
  const Spec* spec_ = nullptr;
  std::ostream& out_;
  std::ostream& err_;
};

}  // namespace

void add_run_commands(Commands& commands) {
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;

  auto a = std::make_shared<AuditOptions>();
  CLI::App* analyze = commands.add("analyze", "compute means, contrasts, flags and analyses from scores", [a, &out, &err] {
    a->reads_run_store = a->scores.empty();  // a scores file needs no store
    PrintedEvents events(out, err);
    return finish(analyze_only(*a, events), err);
  });
  add_spec(analyze, *a);
  add_data(analyze, *a);
  add_answers(analyze, *a);
  analyze->add_option("--scores", a->scores, "scores CSV (seed, model, arm, one column per factor and per dimension)");
  analyze->add_option("--out", a->out_dir, "output directory (default: results)");
  analyze->add_option("--resamples", a->resamples, "bootstrap resamples per contrast interval (default 2000)");
  analyze->add_option("--seed", a->seed, "bootstrap seed (default 20260101)");
  analyze->add_option("--store", a->store, "without --scores: the run directory to read scores from (default: runs/<spec name>)");
  analyze->add_flag("--offline", a->offline, "without --scores: the scores of an --offline run");
  add_read_only(analyze, *a, "analyse");

  struct RunOptions {
    AuditOptions audit;
    double budget = 0;
    CLI::Option* budget_option = nullptr;
  };
  auto r = std::make_shared<RunOptions>();
  CLI::App* run = commands.add("run", "send the plan's requests to the providers; answers go to the run store", [r, &out, &err] {
    if (r->budget_option->count() > 0) r->audit.budget_usd = r->budget;
    PrintedEvents events(out, err);
    InterruptGuard interrupt;
    return finish(run_audit(r->audit, interrupt.cancelled(), events), err);
  });
  add_spec(run, r->audit);
  add_data(run, r->audit);
  add_answers(run, r->audit);
  add_store(run, r->audit, "use the built-in offline provider for every model and judge (no keys, no network)");
  run->add_flag("--answers-only", r->audit.answers_only, "stop after the answers: no judging, no analysis");
  run->add_flag("--batch", r->audit.batch,
                "send every paid request through its provider's batch API (half price, answers within 24 h)");
  run->add_option("--repairs", r->audit.repairs, "ask a judge again this often when its reply breaks the rubric (default 2)");
  run->add_option("--out", r->audit.out_dir, "results directory (default: <run dir>/results)");
  add_only(run, r->audit, "only requests matching key=value,... (factors, model, arm, seed)");
  run->add_option("--limit", r->audit.limit, "send at most N requests, the first in plan order");
  add_sample(run, r->audit);
  run->add_option("--concurrency", r->audit.concurrency, "requests in flight per provider (overrides the provider's setting)");
  run->add_option("--timeout", r->audit.timeout_s, "seconds one attempt may take in all (overrides each provider's timeout)")
      ->check(CLI::PositiveNumber);
  r->budget_option = run->add_option("--budget", r->budget, "stop sending before spending more than USD this run");
  run->add_option("--resamples", r->audit.resamples, "bootstrap resamples per interval of the analysis (default 2000)");
  run->add_option("--seed", r->audit.seed, "bootstrap seed of the analysis (default 20260101)");
}

}  // namespace mirac::cli
