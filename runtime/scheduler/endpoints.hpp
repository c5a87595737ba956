// endpoints.hpp: a provider served by several base URLs (replicas of a vLLM or llama.cpp
// server behind no load balancer). Each request goes to the endpoint with the fewest
// requests in flight among those in service; an endpoint whose transfer fails (no
// connection, a timeout, a reset) or that answers 5xx is taken out of service for a while,
// longer each time it fails again, and back in when that time is up, when its next request
// tells whether it has recovered. With every endpoint out, the one due back first serves.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mirac {

class Endpoints {
 public:
  /// `base_urls` must not be empty.
  explicit Endpoints(std::vector<std::string> base_urls);

  /// The endpoint for the next request at time `now`, counted as in flight.
  std::size_t take(double now);
  /// The request sent to `endpoint` has ended; `healthy` false when the endpoint failed it
  /// (transport error or 5xx). Returns how long this took the endpoint out of service (0:
  /// it was not; nor is the only endpoint, whose failures the retry policy handles alone).
  double done(std::size_t endpoint, bool healthy, double now);

  const std::string& base_url(std::size_t endpoint) const { return endpoints_[endpoint].base_url; }
  std::size_t size() const { return endpoints_.size(); }
  int in_flight(std::size_t endpoint) const { return endpoints_[endpoint].in_flight; }
  bool in_service(std::size_t endpoint, double now) const { return endpoints_[endpoint].out_until <= now; }
  /// How long a failing endpoint stays out after `failures` failures in a row.
  static double out_for(int failures);

 private:
  struct Endpoint {
    std::string base_url;
    int in_flight = 0;
    int failures = 0;  ///< in a row
    double out_until = 0;
  };
  std::vector<Endpoint> endpoints_;
  std::size_t next_ = 0;  ///< where ties start, so equal endpoints take turns
};

}  // namespace mirac
