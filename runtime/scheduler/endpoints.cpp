// endpoints.cpp: choosing among a provider's base URLs (endpoints.hpp).
#include "runtime/scheduler/endpoints.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mirac {

Endpoints::Endpoints(std::vector<std::string> base_urls) {
  for (auto& u : base_urls) endpoints_.push_back({std::move(u)});
}

double Endpoints::out_for(int failures) {
  // 10 s, 20 s, 40 s, ... up to 5 minutes: long enough not to feed a dead server requests,
  // short enough that a restarted one is used again soon.
  return std::min(300.0, 10.0 * std::pow(2.0, std::max(0, failures - 1)));
}

std::size_t Endpoints::take(double now) {
  std::size_t best = endpoints_.size();
  for (std::size_t k = 0; k < endpoints_.size(); ++k) {
    const std::size_t i = (next_ + k) % endpoints_.size();
    if (!in_service(i, now)) continue;
    if (best == endpoints_.size() || endpoints_[i].in_flight < endpoints_[best].in_flight) best = i;
  }
  if (best == endpoints_.size()) {  // all out: the one due back first
    best = 0;
    for (std::size_t i = 1; i < endpoints_.size(); ++i)
      if (endpoints_[i].out_until < endpoints_[best].out_until) best = i;
  }
  next_ = (best + 1) % endpoints_.size();
  ++endpoints_[best].in_flight;
  return best;
}

double Endpoints::done(std::size_t endpoint, bool healthy, double now) {
  Endpoint& e = endpoints_[endpoint];
  --e.in_flight;
  if (healthy) {
    e.failures = 0;
    return 0;
  }
  // Several requests in flight fail together when a server goes down: count that as one
  // failure, not as many that would keep it out for minutes.
  if (e.out_until > now || endpoints_.size() < 2) return 0;
  ++e.failures;
  e.out_until = now + out_for(e.failures);
  return e.out_until - now;
}

}  // namespace mirac
