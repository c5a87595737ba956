// interrupt.hpp: how a sending command ends when it is told to stop. Ctrl-C (SIGINT), a
// service manager or a time limit (SIGTERM: docker stop, systemd, Slurm, CI) and a closed
// terminal (SIGHUP) all mean "stop sending, keep what was paid for": the guard every
// sending command (run, rewrite) holds turns each into a flag the scheduler checks, so
// answers in flight are still stored and the run ends with its summary instead of dying.
#pragma once

#include <atomic>
#include <csignal>

namespace mirac::cli {

class InterruptGuard {
 public:
  InterruptGuard();   ///< installs the handlers, clears the flag
  ~InterruptGuard();  ///< restores the previous handlers
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// Set once SIGINT, SIGTERM or SIGHUP arrived.
  const std::atomic<bool>& cancelled() const;

 private:
  struct sigaction previous_int_{}, previous_term_{}, previous_hup_{};
};

/// For the whole process, before any command runs: a closed standard output (`mirac run |
/// head`) or a file-size limit must fail the write that hit it, not kill the process with
/// SIGPIPE or SIGXFSZ while answers are in flight. Writes then fail with EPIPE or EFBIG,
/// which the store and the streams report as errors.
void ignore_write_signals();

}  // namespace mirac::cli
