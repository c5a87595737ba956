// selection_test.cpp: which requests a pilot sends. `--sample N --stratify KEYS` spreads N
// requests evenly over the strata and picks at random within each, the same pilot for the
// same options on every run (so a rerun resumes it); `--limit N` takes the first N.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "engine/audit.hpp"

namespace {

mirac::Audit otc(std::size_t sample, const std::string& stratify, std::uint64_t sample_seed = 1) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  mirac::AuditOptions o;
  o.spec = std::filesystem::path(root) / "examples/otc/otc.audit";
  o.offline = true;
  o.sample = sample;
  o.stratify = stratify;
  o.sample_seed = sample_seed;
  mirac::Audit audit = mirac::open_audit(o);
  REQUIRE(audit.ok());
  return audit;
}

std::vector<std::size_t> pick(const mirac::Audit& audit) {
  mirac::Selection s;
  REQUIRE(mirac::select_requests(audit, s).ok());
  return s.rows;
}

// The level of `factor` (by index) of a request.
std::string level(const mirac::Audit& audit, std::size_t row, std::size_t factor) {
  const auto& p = audit.plan().prompts[audit.plan().requests[row].prompt];
  return audit.spec().factors[factor].levels[static_cast<std::size_t>(p.levels[factor])].name.name;
}

}  // namespace

TEST_CASE("a sample spreads over the strata, in plan order, the same each time") {
  // otc: 3 seeds x literacy 2 x tone 2 x 2 models x 2 arms = 48 requests.
  mirac::Audit audit = otc(8, "literacy,tone");
  REQUIRE(audit.plan().requests.size() == 48);
  const auto rows = pick(audit);
  REQUIRE(rows.size() == 8);
  CHECK(std::is_sorted(rows.begin(), rows.end()));
  std::map<std::string, int> per_cell;
  std::set<std::string> seeds;
  for (std::size_t r : rows) {
    ++per_cell[level(audit, r, 0) + "/" + level(audit, r, 1)];
    seeds.insert(audit.plan().prompts[audit.plan().requests[r].prompt].seed);
  }
  CHECK(per_cell.size() == 4);
  for (const auto& [cell, n] : per_cell) CHECK_MESSAGE(n == 2, cell);
  CHECK(seeds.size() > 1);  // unlike --limit, which takes the first seed's requests
  CHECK(pick(otc(8, "literacy,tone")) == rows);  // a rerun resumes the same pilot
  CHECK(pick(otc(8, "literacy,tone", 2)) != rows);  // another seed, another pilot
}

TEST_CASE("an uneven sample gives the strata one more or one less; a large one keeps everything") {
  const auto five = pick(otc(5, "literacy,tone"));
  CHECK(five.size() == 5);
  mirac::Audit audit = otc(5, "literacy,tone");
  std::map<std::string, int> per_cell;
  for (std::size_t r : five) ++per_cell[level(audit, r, 0) + "/" + level(audit, r, 1)];
  CHECK(per_cell.size() == 4);
  for (const auto& [cell, n] : per_cell) CHECK((n == 1 || n == 2));
  CHECK(pick(otc(100, "model")).size() == 48);
  // Default strata: every factor, model and arm (16 of them): 16 requests, one each.
  mirac::Audit by_default = otc(16, "");
  const auto rows = pick(by_default);
  std::set<std::string> strata;
  for (std::size_t r : rows) {
    const auto& req = by_default.plan().requests[r];
    strata.insert(level(by_default, r, 0) + level(by_default, r, 1) + std::to_string(req.model) + std::to_string(req.arm));
  }
  CHECK(strata.size() == 16);
  // A seed field is a stratum key too.
  CHECK(pick(otc(3, "seed.category")).size() == 3);
}

TEST_CASE("a stratum key that names nothing is a usage error with a suggestion") {
  mirac::Audit audit = otc(4, "literacy,tnoe");
  mirac::Selection s;
  const mirac::Outcome o = mirac::select_requests(audit, s);
  CHECK_FALSE(o.ok());
  CHECK(o.message.find("--stratify: 'tnoe' is neither a factor nor model, arm, seed or a seed field; did you mean "
                       "'tone'?") != std::string::npos);
}
