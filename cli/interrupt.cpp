#include "cli/interrupt.hpp"

#include <csignal>

namespace mirac::cli {

namespace {
// The one piece of process-wide state: a signal handler can only reach a global.
std::atomic<bool> g_cancel{false};
extern "C" void on_sigint(int) { g_cancel.store(true); }
}  // namespace

InterruptGuard::InterruptGuard() : previous_(std::signal(SIGINT, on_sigint)) { g_cancel.store(false); }

InterruptGuard::~InterruptGuard() { std::signal(SIGINT, previous_); }

const std::atomic<bool>& InterruptGuard::cancelled() const { return g_cancel; }

}  // namespace mirac::cli
