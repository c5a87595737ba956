// interrupt.hpp: Ctrl-C while a command sends. The one guard every sending command (run,
// rewrite) holds: SIGINT sets a flag the scheduler checks, so answers in flight are still
// stored and the run ends with its summary instead of dying.
#pragma once

#include <atomic>

namespace mirac::cli {

class InterruptGuard {
 public:
  InterruptGuard();   ///< installs the handler, clears the flag
  ~InterruptGuard();  ///< restores the previous handler
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// Set once Ctrl-C was pressed.
  const std::atomic<bool>& cancelled() const;

 private:
  void (*previous_)(int);
};

}  // namespace mirac::cli
