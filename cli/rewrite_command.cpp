// rewrite_command.cpp: `mirac rewrite`: a variant's missing texts from its rewriter model,
// into a JSONL lock file for review (engine/rewrite).
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "engine/rewrite/rewrite.hpp"

namespace mirac::cli {

namespace {

void print_lock(const LockWrite& w, std::ostream& out) {
  if (w.written > 0) {
    out << fmt::format("wrote {} rewrites of '{}' to {}{}\n", w.written, w.field, w.lock.string(),
                       w.kept ? fmt::format(" (and kept its {} earlier records)", w.kept) : "");
    if (w.truncated > 0)
      out << fmt::format("warning: {} of them were cut by the token limit; raise max_tokens in the rewriter's settings "
                         "or edit them\n", w.truncated);
  }
  if (!w.problems.empty()) {
    out << fmt::format("{} rewrites of '{}' failed or were not sent (run again to retry):\n", w.problems.size(), w.field);
    for (std::size_t i = 0; i < w.problems.size() && i < 10; ++i) out << "  " << w.problems[i] << '\n';
    if (w.problems.size() > 10) out << fmt::format("  ... and {} more\n", w.problems.size() - 10);
  }
  if (w.written > 0)
    out << fmt::format("review {}, then read it in the spec: lock jsonl(\"{}\") in variant '{}' (a path relative to "
                       "the data root)\n", w.lock.string(), w.lock.filename().string(), w.field);
}

int rewrite(const AuditOptions& o, const std::string& output, std::ostream& out, std::ostream& err) {
  Rewrites rewrites;
  Outcome planned = plan_rewrites(o, rewrites);
  if (!rewrites.audit.diagnostics().all().empty()) rewrites.audit.diagnostics().print(err, rewrites.audit.sources());
  if (!planned.ok()) return finish(planned, err);
  for (const auto& path : rewrites.missing_locks) out << fmt::format("lock file '{}' does not exist yet\n", path);
  const Spec& spec = rewrites.audit.spec();
  if (rewrites.calls.empty()) {
    out << fmt::format("rewrite {}: nothing to rewrite: {}\n", spec.name,
                       o.only.empty() ? "every seed has a text in every cell" : "every selected seed and cell has a text");
    return kOk;
  }
  if (Outcome checked = check_lock_output(rewrites, output); !checked.ok()) return finish(checked, err);
  for (const VariantBatch& batch : rewrites.batches) {
    const Variant& v = spec.variants[batch.variant];
    out << fmt::format("rewrite {}: {} texts of '{}' to request from {}(\"{}\"), store {}\n", spec.name,
                       batch.requests.size(), v.field, v.rewriter->preset.name, v.rewriter->model.value,
                       rewrites.audit.run_dir.string());
  }
  RunSummary summary;
  {
    InterruptGuard interrupt;
    summary = send_rewrites(rewrites, interrupt.cancelled(), progress_hooks("", err, true));
  }
  out << format_summary(summary);
  if (!summary.fatal_error.empty() && summary.stored == 0 && summary.skipped == 0) return kRunError;
  std::vector<LockWrite> writes;
  Outcome written = write_locks(rewrites, output, writes);
  bool complete = true;
  for (const LockWrite& w : writes) {
    print_lock(w, out);
    complete = complete && w.problems.empty();
  }
  if (!written.ok()) return finish(written, err);
  return complete ? kOk : kRunError;
}

}  // namespace

void add_rewrite_command(Commands& commands) {
  struct RewriteOptions {
    AuditOptions audit;
    std::string output;
  };
  auto o = std::make_shared<RewriteOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  CLI::App* rewrite_cmd = commands.add("rewrite",
                                       "ask the rewriter model for the variant texts no lock holds yet; "
                                       "write them to a JSONL lock file for review",
                                       [o, &out, &err] { return rewrite(o->audit, o->output, out, err); });
  add_spec(rewrite_cmd, o->audit);
  add_data(rewrite_cmd, o->audit);
  add_store(rewrite_cmd, o->audit, "");
  rewrite_cmd->add_option("-o,--output", o->output, "lock file to write (default: <run dir>/<field>.lock.jsonl)");
  add_only(rewrite_cmd, o->audit, "only rewrites matching key=value,... (seed, the variant's factors)");
  rewrite_cmd->add_option("--limit", o->audit.limit, "request at most N rewrites (a pilot)");
}

}  // namespace mirac::cli
