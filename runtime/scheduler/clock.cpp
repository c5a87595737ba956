// clock.cpp: the real clock.
#include "runtime/scheduler/clock.hpp"

#include <chrono>
#include <thread>

namespace mirac {

double SystemClock::now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double SystemClock::wall() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

void SystemClock::sleep(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace mirac
