// helpers.hpp: shared fixtures for the runtime tests (not compiled on its own).
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "runtime/model_call.hpp"
#include "runtime/scheduler/clock.hpp"

namespace mirac::test {

/// Real time, except that sleep() returns at once and moves the clock forward: the
/// scheduler's backoff and pacing waits are skipped, yet real transfers still complete.
class SkipSleepClock final : public Clock {
 public:
  double now() override { return real_.now() + offset_; }
  double wall() override { return real_.wall() + offset_; }
  void sleep(double s) override {
    if (s > 0) offset_ += s;
  }
  double skipped() const { return offset_; }

 private:
  SystemClock real_;
  double offset_ = 0;
};

/// Fully manual time, for the in-memory fake HTTP client.
class ManualClock final : public Clock {
 public:
  double now() override { return t_; }
  double wall() override { return 1'700'000'000.0 + t_; }
  void sleep(double s) override {
    if (s > 0) t_ += s;
  }
  void advance(double s) { t_ += s; }

 private:
  double t_ = 1000;
};

class FixedRandom final : public Random {
 public:
  explicit FixedRandom(double v = 0.5) : v_(v) {}
  double uniform() override { return v_; }

 private:
  double v_;
};

/// A fresh directory removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/mirac-runtime-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline ModelCall make_call(const std::string& hash, const std::string& user,
                           const std::string& provider = "openai",
                           WireProtocol protocol = WireProtocol::openai_chat,
                           const std::string& base_url = "http://127.0.0.1:9/v1",
                           const std::string& key_env = "OPENAI_API_KEY",
                           const std::string& model = "gpt-4.1-mini") {
  ModelCall c;
  c.hash = hash;
  c.provider = provider;
  c.protocol = protocol;
  c.base_url = base_url;
  c.key_env = key_env;
  c.model = model;
  c.user = user;
  c.params = {{"temperature", 0}, {"max_tokens", 64}};
  return c;
}

}  // namespace mirac::test
