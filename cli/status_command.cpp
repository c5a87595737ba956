// status_command.cpp: `mirac status`: what is done, failed and pending in the run store
// (engine/status), as text or JSON.
#include <algorithm>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/status/status.hpp"
#include "runtime/store/journal.hpp"

namespace mirac::cli {

namespace {

void print_counts(const Spec& spec, const RunStatus& g, std::ostream& out) {
  std::size_t width = 3;
  for (const auto& [name, t] : g.model_arm) width = std::max(width, name.size());
  out << fmt::format("{:<{}}  {}\n", "all", width, format_status(g.all.report));
  for (const auto& [name, t] : g.model_arm) out << fmt::format("{:<{}}  {}\n", name, width, format_status(t.report));
  // One compact table: a row per level of every factor (levels with no selected request left out).
  std::size_t fw = 6, lw = 5;
  for (const auto& f : spec.factors) {
    fw = std::max(fw, f.name.size());
    for (const auto& l : f.levels) lw = std::max(lw, l.name.name.size());
  }
  out << fmt::format("\n{:<{}}  {:<{}}  {:>8}  {:>8}  {:>8}\n", "factor", fw, "level", lw, "done", "failed", "pending");
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    bool first = true;
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) {
      if (g.level_requests[f][l] == 0) continue;
      const StatusReport& r = g.levels[f][l].report;
      out << fmt::format("{:<{}}  {:<{}}  {:>8}  {:>8}  {:>8}\n", first ? spec.factors[f].name : "", fw,
                         spec.factors[f].levels[l].name.name, lw, r.done, r.failed_total(), r.pending);
      first = false;
    }
  }
}

// The wording of `mirac run`'s judge summary, so the two read alike.
// The wording of `mirac run`'s judge summary, so the two read alike; then the levels whose
// unscored share stands out, since the analyses leave those answers out.
void print_judging(const Spec& spec, const std::vector<JudgingCounts>& judging, int repairs, std::ostream& out) {
  if (judging.empty()) return;
  out << fmt::format("\njudging (at most {} repair rounds):\n", repairs);
  for (const auto& j : judging) {
    out << fmt::format("judge {}: {} answers, {} scored, {} unusable replies, {} failed, {} pending\n", j.judge,
                       j.answers, j.scored, j.invalid, j.failed, j.pending);
    for (const auto& w : unscored_skews(spec, j.by_level)) out << "  warning: " << w << '\n';
  }
}

// Open batches one per line (where each is at the provider); collected ones in one line.
void print_batches(const std::vector<BatchRecord>& batches, std::ostream& out) {
  if (batches.empty()) return;
  std::size_t collected = 0, collected_requests = 0;
  std::vector<const BatchRecord*> open;
  for (const auto& b : batches) {
    if (b.state == batch_state::collected) {
      ++collected;
      collected_requests += b.requests;
    } else {
      open.push_back(&b);
    }
  }
  out << fmt::format("\nbatches: {} collected ({} requests), {} open\n", collected, collected_requests, open.size());
  for (const BatchRecord* b : open) {
    const std::string where = b->state == batch_state::submitted
                                  ? fmt::format("{} at the provider as {}, {} of {} finished", b->remote_status,
                                                b->remote_id, b->finished, b->requests)
                                  : fmt::format("{} requests, not yet confirmed at the provider (the next run looks for it "
                                                "before sending it)",
                                                b->requests);
    out << fmt::format("  {} {} {}: {}{}\n", b->local_id, b->provider, b->model, where,
                       b->message.empty() ? "" : " (" + b->message + ")");
  }
  if (!open.empty()) out << "  `mirac run` polls the open batches and stores their answers; nothing is sent twice\n";
}

int print_status(const AuditOptions& o, bool json, std::ostream& out, std::ostream& err) {
  Audit audit = open_selected_audit(o, false);  // a pilot's --only seed=... compiles on those seeds
  if (int code = print_compiled(audit, err); code != kOk) return code;
  RunStatus status;
  if (Outcome counted = audit_status(audit, status); !counted.ok()) return finish(counted, err);
  // Every request pending is right before the first run, and wrong when the run wrote elsewhere.
  if (!status.store_exists) err << "mirac status: " << missing_store_advice(audit) << '\n';
  if (json) {
    out << status_json(audit, status).dump(2) << '\n';
    return kOk;
  }
  std::string chosen_by;
  if (!o.only.empty()) chosen_by = "--only " + o.only;
  if (o.sample > 0)
    chosen_by += fmt::format("{}--sample {}{}", chosen_by.empty() ? "" : ", ", o.sample,
                             o.stratify.empty() ? "" : " --stratify " + o.stratify);
  const std::string selection = chosen_by.empty() ? fmt::format("{} requests", status.requests)
                                                  : fmt::format("{} of {} requests ({})", status.requests,
                                                                status.plan_requests, chosen_by);
  out << fmt::format("status {}: {}, store {}{}\n", audit.spec().name, selection, audit.run_dir.string(),
                     status.store_exists ? "" : " (nothing run yet)");
  print_counts(audit.spec(), status, out);
  if (status.journaled > 0)
    out << fmt::format("\n{} of the pending answers were paid for and wait in {} (the store refused them); the next "
                       "`mirac run` stores them before it sends anything\n",
                       status.journaled, journal_path(audit.run_dir).string());
  if (status.marks.all.any()) out << '\n';
  for (const auto& w : marks_warnings(audit.spec(), status.marks)) out << (w.starts_with("  ") ? "" : "warning: ") << w << '\n';
  print_judging(audit.spec(), status.judging, o.repairs, out);
  if (!status.invariance.empty()) out << '\n';
  for (const auto& check : status.invariance) out << check.describe() << '\n';
  print_batches(status.batches, out);
  out << fmt::format("spend so far: ${:.2f}\n", status.spend_usd);
  return kOk;
}

}  // namespace

void add_status_command(Commands& commands) {
  struct StatusOptions {
    AuditOptions audit;
    bool json = false;
  };
  auto o = std::make_shared<StatusOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  CLI::App* status = commands.add("status", "what is done, failed and pending in the run store",
                                  [o, &out, &err] { return print_status(o->audit, o->json, out, err); });
  add_spec(status, o->audit);
  add_data(status, o->audit);
  add_answers(status, o->audit);
  add_read_store(status, o->audit);
  add_only(status, o->audit, "only requests matching key=value,... (factors, model, arm, seed)");
  add_sample(status, o->audit);
  status->add_flag("--json", o->json, "print the counts as JSON");
}

}  // namespace mirac::cli
