#include "cli/interrupt.hpp"

namespace mirac::cli {

namespace {
// The one piece of process-wide state: a signal handler can only reach a global, and a
// lock-free atomic is what it may safely set.
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_stop_signal(int) { g_cancel.store(true); }

void install(int signal, struct sigaction& previous) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: a write to the store or a read of a file the signal lands in resumes
  // rather than failing with EINTR; the event loop's poll wakes and sees the flag.
  action.sa_flags = SA_RESTART;
  sigaction(signal, &action, &previous);
}
}  // namespace

InterruptGuard::InterruptGuard() {
  g_cancel.store(false);
  install(SIGINT, previous_int_);
  install(SIGTERM, previous_term_);
  install(SIGHUP, previous_hup_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGHUP, &previous_hup_, nullptr);
}

const std::atomic<bool>& InterruptGuard::cancelled() const { return g_cancel; }

void ignore_write_signals() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace mirac::cli
