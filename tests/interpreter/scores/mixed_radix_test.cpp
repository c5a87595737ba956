// MixedRadix: packed keys are distinct, sort in the order of their parts, and refuse what
// does not fit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "interpreter/scores/scores.hpp"

namespace {

using mirac::analyze::MixedRadix;

TEST_CASE("packed keys sort as their digits do, and every key is distinct") {
  const MixedRadix radix({3, 1, 4, 2});
  REQUIRE(radix.fits());
  std::vector<std::tuple<int, int, int, int>> digits;
  std::vector<std::uint64_t> keys;
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 4; ++c)
      for (int d = 0; d < 2; ++d) {
        digits.emplace_back(a, 0, c, d);
        const auto k = radix.number().digit(a).digit(0).digit(c).digit(d).value();
        REQUIRE(k.has_value());
        keys.push_back(*k);
      }
  // The loops ran in lexicographic order, so the keys must rise strictly.
  CHECK(std::is_sorted(keys.begin(), keys.end()));
  CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
  CHECK(keys.front() == 0);
  CHECK(keys.back() == 3 * 1 * 4 * 2 - 1);
}

TEST_CASE("a digit out of its range, or the wrong number of digits, packs to nothing") {
  const MixedRadix radix({2, 5});
  CHECK_FALSE(radix.number().digit(2).digit(0).value());
  CHECK_FALSE(radix.number().digit(0).digit(5).value());
  CHECK_FALSE(radix.number().digit(-1).digit(0).value());
  CHECK_FALSE(radix.number().digit(1).value());
  CHECK_FALSE(radix.number().digit(1).digit(1).digit(0).value());
  CHECK(radix.number().digit(1).digit(4).value() == 9u);
}

TEST_CASE("a radix of zero counts as one, and a product past 64 bits does not fit") {
  const MixedRadix empty({0, 3});
  CHECK(empty.number().digit(0).digit(2).value() == 2u);
  const std::size_t big = std::size_t{1} << 40;
  const MixedRadix huge({big, big});
  CHECK_FALSE(huge.fits());
  CHECK_FALSE(huge.number().digit(0).digit(0).value());
}

}  // namespace
