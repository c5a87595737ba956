// rewrite.hpp: `mirac rewrite`: the texts a variant still lacks, asked of its rewriter model
// through the same scheduler and store as a run, and written to a JSONL lock file for
// review, which the spec then reads back. Three steps: plan, send, write.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "engine/session.hpp"
#include "interpreter/rewrite/rewrite.hpp"
#include "runtime/scheduler/run_plan.hpp"

namespace mirac {

/// The rewrites of one variant that this command requests.
struct VariantBatch {
  std::size_t variant = 0;  ///< index into spec.variants
  std::vector<const RewriteRequest*> requests;
};

struct Rewrites {
  Audit audit;                             ///< compiled without requiring the locks' texts
  std::vector<std::string> missing_locks;  ///< lock files that do not exist yet
  std::vector<RewriteRequest> requests;    ///< every text missing
  std::vector<VariantBatch> batches;       ///< those selected (`only`, `limit`), by variant
  std::vector<ModelCall> calls;            ///< their calls
};

/// Compiles the spec (the diagnostics in rewrites.audit), and selects the missing texts
/// `options.only` (seeds and the variants' factors) and `options.limit` keep.
Outcome plan_rewrites(const AuditOptions& options, Rewrites& rewrites);

/// kUsageError when `output` names one lock file and several variants need rewrites.
Outcome check_lock_output(const Rewrites& rewrites, const std::string& output);

/// Sends the selected rewrites (those already answered in the store are skipped).
RunSummary send_rewrites(const Rewrites& rewrites, const std::atomic<bool>& cancel, const RunHooks& hooks);

/// What became of one variant's rewrites.
struct LockWrite {
  std::string field;             ///< the variant's seed field
  std::filesystem::path lock;    ///< the lock file
  std::size_t written = 0;       ///< rewrites written now
  std::size_t kept = 0;          ///< earlier records kept
  std::size_t truncated = 0;     ///< written but cut by the token limit
  std::vector<std::string> problems;  ///< rewrites failed or not sent (a rerun retries them)
};

/// Writes each variant's answered rewrites into its lock file (`output`, else
/// `<run dir>/<field>.lock.jsonl`), keeping the records already there that were not
/// rewritten now. `writes` gets one entry per variant handled, also when a later one fails.
/// Checks check_lock_output first.
Outcome write_locks(const Rewrites& rewrites, const std::string& output, std::vector<LockWrite>& writes);

}  // namespace mirac
