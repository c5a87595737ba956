// clock.hpp: time and randomness behind small interfaces, so scheduler tests are
// deterministic (a manual clock whose sleep() only advances a counter, a fixed RNG).
#pragma once

#include <cstdint>
#include <random>

namespace mirac {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic seconds (pacing, backoff, timeouts).
  virtual double now() = 0;
  /// Unix seconds (stored timestamps, absolute reset times in headers).
  virtual double wall() = 0;
  /// Blocks for `seconds` (a fake clock just advances).
  virtual void sleep(double seconds) = 0;
};

class SystemClock final : public Clock {
 public:
  double now() override;
  double wall() override;
  void sleep(double seconds) override;
};

/// Source of jitter. Returns values in [0, 1).
class Random {
 public:
  virtual ~Random() = default;
  virtual double uniform() = 0;
};

class SeededRandom final : public Random {
 public:
  explicit SeededRandom(std::uint64_t seed) : engine_(seed) {}
  double uniform() override { return dist_(engine_); }

 private:
  std::mt19937_64 engine_;
  std::uniform_real_distribution<double> dist_{0.0, 1.0};
};

}  // namespace mirac
