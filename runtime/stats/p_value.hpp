// p_value.hpp: the one floor under every p-value, so that a tail probability too small
// for a double reads the same in results.json, the CSV tables and the report.
#pragma once

#include <limits>

namespace mirac::stats {

/// The smallest normal double (2.2250738585072014e-308). Below it a tail probability has
/// underflowed (to a subnormal or to 0, e.g. 2 Phi(-40)); it is reported as this bound,
/// to be read "at most", and never as 0, which no test of finite data can yield.
inline constexpr double kSmallestP = std::numeric_limits<double>::min();

/// `p`, or kSmallestP when `p` is below it; NaN stays NaN.
inline double floor_p(double p) { return p < kSmallestP ? kSmallestP : p; }

}  // namespace mirac::stats
