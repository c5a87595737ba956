// block_send.hpp: a phase whose calls are made as it goes (a judge phase builds each judge
// request from its answer) sends them in blocks of bounded size, so that only a block's
// calls are in memory at once rather than the phase's: at ten times MIRA, 432,000 judge
// requests of a few kilobytes each. To the user it is still one phase: one progress line
// whose counts run across blocks, one summary, one budget.
//
// A block ends when it is full; the scheduler then sends it and waits for its last answer
// before the next block starts, so each block costs one request's latency of idle tail.
// Blocks are large enough (kBlockCalls) for that to stay a few percent of a rate-limited
// phase. Calls that go through a batch API are not cut into blocks: their batches run at
// the provider together, and a block each would wait for one batch after another.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "runtime/scheduler/clock.hpp"
#include "runtime/scheduler/run_plan.hpp"

namespace mirac {

class BlockSend {
 public:
  /// Calls per block: 16,384 judge requests are about 60 MB.
  static constexpr std::size_t kBlockCalls = 16384;

  /// `phase` is announced through hooks.on_phase before the first block is sent. `clock`
  /// (null: the system's) times the phase for its progress line: from the first block on,
  /// including the caller's work between blocks, so that rate and ETA are the phase's.
  BlockSend(Store& store, const SchedulerOptions& options, const std::atomic<bool>& cancel, const RunHooks& hooks,
            std::string phase, std::size_t block_calls = kBlockCalls, Clock* clock = nullptr);

  /// Adds a call, and sends the block if it is now full. After the phase has stopped
  /// (cancelled, a fatal error, the budget spent) the call is counted as not sent.
  void add(ModelCall call);
  /// Counts `n` calls the caller found answered already: skipped, as the scheduler counts
  /// a call whose answer is stored.
  void skip(std::size_t n);
  /// How many calls the whole phase is expected to make, for the progress line's total and
  /// ETA while calls are still being made (the caller's estimate; exact once it stops
  /// adding).
  void expect(std::size_t total) { expected_ = total; }
  /// Sends what is left; the phase's summary, its counts added up over the blocks.
  RunSummary finish();

  /// Cancelled, a fatal error or the budget spent: nothing more is sent.
  bool stopped() const { return stopped_; }
  /// Calls handed over so far (sent, queued, or counted as not sent).
  std::size_t added() const { return added_; }

 private:
  void send_block();
  void report(const Progress& block, bool last);
  Store& store_;
  SchedulerOptions options_;
  const std::atomic<bool>& cancel_;
  RunHooks hooks_;
  std::string phase_;
  std::size_t block_calls_;
  std::vector<ModelCall> block_;
  RunSummary summary_;
  bool any_sent_ = false, stopped_ = false, batched_ = false, finishing_ = false;
  std::size_t added_ = 0, expected_ = 0;
  std::string stop_reason_;  ///< how calls after a stop are counted in not_sent
  Progress before_;          ///< the finished blocks' progress, added up
  SystemClock system_clock_;
  Clock& clock_;
  double started_ = 0;       ///< when the first block was sent
  std::optional<Progress> last_;  ///< the last report, to end the phase's line with
};

/// `more`'s counts added to `into`'s (messages appended; the first fatal error kept).
void add_summary(RunSummary& into, const RunSummary& more);

}  // namespace mirac
