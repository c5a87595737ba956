#include "runtime/report/numbers.hpp"

#include <cmath>

#include <limits>

#include <fmt/format.h>

namespace mirac::report {

namespace {

bool defined(std::optional<double> x) { return x && std::isfinite(*x); }

// A negative number that rounds to zero would print as "-0.00", which reads as a sign
// where there is none.
std::string drop_negative_zero(std::string s) {
  if (s.size() > 1 && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

}  // namespace

std::string fixed(std::optional<double> x, int decimals) {
  if (!defined(x)) return kMissing;
  return drop_negative_zero(fmt::format("{:.{}f}", *x, decimals));
}

std::string mean_with_n(std::optional<double> mean, std::optional<double> n) {
  return fmt::format("{} ({})", fixed(mean, 2), count(n));
}

std::string estimate(std::optional<double> x) { return fixed(x, 3); }

std::string signed_estimate(std::optional<double> x) {
  std::string s = estimate(x);
  return defined(x) && *x > 0 && s != "0.000" ? "+" + s : s;
}

std::string p_value(std::optional<double> p) {
  if (!defined(p)) return kMissing;
  // At the floor the statistics put under every p-value (the smallest normal double,
  // which results.json and the CSV tables hold as 2.2250738585072014e-308) a p-value has
  // underflowed: it is at most that, never 0.
  if (*p <= std::numeric_limits<double>::min()) return "≤ 2.2e-308";
  if (*p < 0.001) return fmt::format("{:.1e}", *p);
  return fixed(p, 3);
}

std::string interval(std::optional<double> lower, std::optional<double> upper) {
  if (!defined(lower) || !defined(upper)) return kMissing;
  return fmt::format("[{}, {}]", estimate(lower), estimate(upper));
}

std::string count(std::optional<double> n) {
  if (!defined(n)) return kMissing;
  return fmt::format("{:.0f}", *n);
}

std::string percent(std::optional<double> rate) {
  if (!defined(rate)) return kMissing;
  return fixed(*rate * 100.0, 1) + "%";
}

std::string level(std::optional<double> l) {
  if (!defined(l)) return "";
  return fmt::format("{:g}%", std::round(*l * 1000.0) / 10.0);
}

}  // namespace mirac::report
