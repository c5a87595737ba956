// digest_table_test.cpp: the flat table behind HashSet and HashMap (runtime/store/hash_set.hpp)
// against std::map on the same digests: every entry found with its value after the table has
// grown many times, no entry twice, absent keys (colliding on their first word too) not found.
#include <doctest/doctest.h>

#include <map>
#include <random>

#include "runtime/store/hash_set.hpp"

using namespace mirac;

TEST_CASE("digest table: as a std::map through growth, repeats and absent keys") {
  std::mt19937_64 random(29);
  DigestTable<int> table;
  std::map<HashDigest, int> reference;
  std::vector<HashDigest> keys;
  for (int i = 0; i < 50000; ++i) {
    HashDigest d{random(), random(), random(), random()};
    if (i % 7 == 0 && !keys.empty()) d = keys[static_cast<std::size_t>(random() % keys.size())];  // a repeat
    if (i % 11 == 0) d[0] = 0x1234567800000000ull;  // many share one place in the table
    const auto [value, fresh] = table.emplace(d, i);
    const auto [it, reference_fresh] = reference.emplace(d, i);
    CHECK(fresh == reference_fresh);
    CHECK(*value == it->second);
    keys.push_back(d);
  }
  CHECK(table.size() == reference.size());
  std::size_t wrong = 0;
  for (const auto& [d, v] : reference) {
    const int* found = table.find(d);
    if (!found || *found != v) ++wrong;
  }
  CHECK(wrong == 0);
  for (int i = 0; i < 1000; ++i) {
    HashDigest absent{random(), random(), random(), random()};
    if (i % 2) absent[0] = 0x1234567800000000ull;
    if (!reference.count(absent)) CHECK(table.find(absent) == nullptr);
  }
  table.clear();
  CHECK(table.size() == 0);
  CHECK(table.find(keys.front()) == nullptr);
}

TEST_CASE("digest table: reserved room is used without growing, and an empty table finds nothing") {
  DigestTable<long long> table;
  CHECK(table.find(HashDigest{1, 2, 3, 4}) == nullptr);
  table.reserve(1000);
  for (std::uint64_t i = 0; i < 1000; ++i) table.emplace(HashDigest{i << 40, i, 0, 0}, static_cast<long long>(i));
  for (std::uint64_t i = 0; i < 1000; ++i) REQUIRE(*table.find(HashDigest{i << 40, i, 0, 0}) == static_cast<long long>(i));
  HashSet set;
  CHECK(set.insert(HashDigest{5, 6, 7, 8}));
  CHECK_FALSE(set.insert(HashDigest{5, 6, 7, 8}));
  CHECK(set.count(digest_hex(HashDigest{5, 6, 7, 8})));
  CHECK(set.size() == 1);
}
