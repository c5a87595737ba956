// digest_table_test.cpp: the flat table behind HashSet and HashMap (runtime/store/hash_set.hpp)
// against std::map on the same digests: every entry found with its value after the table has
// grown many times, no entry twice, absent keys (colliding on their first word too) not found.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

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

TEST_CASE("digest table: emplace_all and the streaming fillers keep the first of each key, as emplace does") {
  std::mt19937_64 random(30);
  std::vector<std::pair<HashDigest, int>> entries;
  for (int i = 0; i < 20000; ++i) {
    HashDigest d{random(), random(), random(), random()};
    if (i % 5 == 0 && !entries.empty()) d = entries[static_cast<std::size_t>(random() % entries.size())].first;
    entries.emplace_back(d, i);
  }
  DigestTable<int> one_by_one, all_at_once;
  // A key there before: emplace_all must not replace it, as emplace does not.
  one_by_one.emplace(entries[3].first, -1);
  all_at_once.emplace(entries[3].first, -1);
  for (const auto& [d, v] : entries) one_by_one.emplace(d, v);
  auto copy = entries;
  all_at_once.emplace_all(copy);
  CHECK(*all_at_once.find(entries[3].first) == -1);
  CHECK(all_at_once.size() == one_by_one.size());
  std::size_t wrong = 0;
  for (const auto& [d, v] : entries) {
    const int* a = all_at_once.find(d);
    const int* b = one_by_one.find(d);
    if (!a || !b || *a != *b) ++wrong;
  }
  CHECK(wrong == 0);

  // The fillers take hashes as text: 64 lower-case hex digits as digests, anything else as
  // itself, and everything is there once they are flushed.
  HashSet set;
  HashMap<long long> map;
  {
    HashSet::Inserter inserter(set);
    HashMap<long long>::Emplacer emplacer(map);
    for (std::size_t i = 0; i < 9000; ++i) {
      const std::string hash = digest_hex(entries[i].first);
      inserter.insert(hash);
      emplacer.emplace(hash, static_cast<long long>(i));
    }
    inserter.insert("not-a-digest");
    emplacer.emplace("NOT-A-DIGEST", -7);
    inserter.flush();  // explicit, then again when they end
  }
  std::map<HashDigest, std::size_t> first_of;  // a repeated hash keeps the row of its first occurrence
  for (std::size_t i = 0; i < 9000; ++i) first_of.emplace(entries[i].first, i);
  std::size_t missing = 0;
  for (std::size_t i = 0; i < 9000; ++i) {
    const std::string hash = digest_hex(entries[i].first);
    if (!set.count(hash)) ++missing;
    const long long* row = map.find(std::string_view(hash));
    if (!row || *row != static_cast<long long>(first_of.at(entries[i].first))) ++missing;
  }
  CHECK(missing == 0);
  CHECK(set.count(std::string_view("not-a-digest")));
  REQUIRE(map.find(std::string_view("NOT-A-DIGEST")) != nullptr);
  CHECK(*map.find(std::string_view("NOT-A-DIGEST")) == -7);
}
