#include "runtime/stats/mcnemar.hpp"

#include <algorithm>
#include <limits>

#include <boost/math/distributions/binomial.hpp>

#include "runtime/stats/p_value.hpp"

namespace mirac::stats {

double mcnemar_exact(std::size_t b, std::size_t c) {
  const std::size_t n = b + c;
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  boost::math::binomial_distribution<double> binomial(static_cast<double>(n), 0.5);
  const double tail = boost::math::cdf(binomial, static_cast<double>(std::min(b, c)));
  return std::min(1.0, floor_p(2.0 * tail));
}

}  // namespace mirac::stats
