// send.hpp: the answer phase: the selected requests through the scheduler into the run
// store, with the limits, prices and budget the spec and the options set; and the checks
// that must pass before anything is paid for.
#pragma once

#include <atomic>

#include "engine/selection.hpp"
#include "runtime/scheduler/run_plan.hpp"

namespace mirac {

/// Limits per provider (their settings, `concurrency`), prices by model string (models,
/// judges and rewriters, as check resolved them) and the budget: how every command that
/// sends (run, rewrite) drives the scheduler.
SchedulerOptions scheduler_options(const Spec& spec, const AuditOptions& options);

/// Before any answer is bought: every API key the selected requests still to send need, and
/// (with `judging`) every judge's, reported all at once; under a budget every judge has a
/// price. A run that could not judge what it bought would stop halfway.
Outcome check_ready_to_send(const Audit& audit, const Selection& selection, bool judging);

/// Sends the selected requests (those already answered in `store` are skipped).
RunSummary send_answers(const Audit& audit, Store& store, const Selection& selection, const std::atomic<bool>& cancel,
                        const RunHooks& hooks);

}  // namespace mirac
