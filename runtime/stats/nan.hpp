// nan.hpp: the one "no estimate" value of the statistics. An estimate, interval or p-value
// that the data cannot give (too few answers, no variance) is NaN, which results.json
// writes as null and the report shows as a dash; every file that returns one uses this.
#pragma once

#include <limits>

namespace mirac::stats {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace mirac::stats
