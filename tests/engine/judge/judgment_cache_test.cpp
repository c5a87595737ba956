// judgment_cache_test.cpp: the scored judgments a store keeps (engine/judge/judgment_cache):
// read back exactly as resolving them in full gives them, derived again when missing, never
// read when another build wrote them, when they are not this answer's, or when they took
// more repairs than a command allows.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/audit.hpp"
#include "engine/judge/judge_phase.hpp"
#include "runtime/store/derived.hpp"

namespace {

namespace fs = std::filesystem;
using mirac::JudgeState;

struct NoEvents : mirac::AuditEvents {};

struct OfflineRun {
  fs::path dir = fs::temp_directory_path() / "mirac_judgment_cache";
  mirac::AuditOptions options;
  OfflineRun() {
    fs::remove_all(dir);
    const char* root = std::getenv("MIRAC_SOURCE_DIR");
    REQUIRE(root != nullptr);
    options.spec = fs::path(root) / "examples/otc/otc.audit";
    options.store = dir.string();
    options.offline = true;
    options.resamples = 200;
    const std::atomic<bool> never{false};
    NoEvents events;
    REQUIRE(mirac::run_audit(options, never, events).ok());
  }
  ~OfflineRun() { fs::remove_all(dir); }
  void sql(const std::string& statement) const {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir / "store.sqlite").c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
};

std::size_t from_cache(const std::vector<JudgeState>& states) {
  std::size_t n = 0;
  for (const auto& s : states) n += s.from_cache ? 1 : 0;
  return n;
}

// What a command reads of a judgment is the same whichever way it was found.
void check_same(const std::vector<JudgeState>& full, const std::vector<JudgeState>& kept) {
  REQUIRE(full.size() == kept.size());
  for (std::size_t i = 0; i < full.size(); ++i) {
    CAPTURE(i);
    CHECK(kept[i].kind == full[i].kind);
    CHECK(kept[i].round == full[i].round);
    CHECK(kept[i].judge_hash == full[i].judge_hash);
    REQUIRE(kept[i].scores.scores.size() == full[i].scores.scores.size());
    for (std::size_t d = 0; d < full[i].scores.scores.size(); ++d) {
      const double a = full[i].scores.scores[d], b = kept[i].scores.scores[d];
      CHECK(((a != a && b != b) || a == b));  // NaN (N/A) kept as NaN
    }
    REQUIRE(kept[i].scores.criteria.size() == full[i].scores.criteria.size());
    for (std::size_t c = 0; c < full[i].scores.criteria.size(); ++c)
      CHECK(kept[i].scores.criteria[c].met == full[i].scores.criteria[c].met);
  }
}

}  // namespace

TEST_CASE("kept judgments: the same as resolved in full, derived again when dropped, per build") {
  OfflineRun run;
  mirac::Audit audit = mirac::open_audit(run.options);
  REQUIRE(audit.ok());
  std::string error;
  auto store = mirac::Store::open(audit.run_dir, error);
  REQUIRE_MESSAGE(store, error);
  const mirac::JudgeBuilder judge(audit.spec(), audit.sources(), 0);
  std::vector<std::size_t> rows(audit.plan().requests.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  auto resolve = [&](mirac::JudgmentDetail detail, int repairs = 2) {
    return mirac::resolve_judging(audit.spec(), audit.plan(), judge, *store, rows, repairs, detail);
  };
  const std::vector<JudgeState> full = resolve(mirac::JudgmentDetail::texts);
  REQUIRE(from_cache(full) == 0);
  for (const auto& s : full) REQUIRE(s.kind == JudgeState::Kind::scored);

  // The run kept what its judge phase resolved.
  std::vector<JudgeState> kept = resolve(mirac::JudgmentDetail::scores);
  CHECK(from_cache(kept) == rows.size());
  check_same(full, kept);

  // The same spec named by another path finds them.
  {
    mirac::AuditOptions other = run.options;
    other.spec = run.options.spec.parent_path() / ".." / run.options.spec.parent_path().filename() /
                 run.options.spec.filename();
    REQUIRE(other.spec.string() != run.options.spec.string());
    mirac::Audit renamed = mirac::open_audit(other);
    REQUIRE(renamed.ok());
    const mirac::JudgeBuilder same(renamed.spec(), renamed.sources(), 0);
    const auto found = mirac::resolve_judging(renamed.spec(), renamed.plan(), same, *store, rows, 2,
                                              mirac::JudgmentDetail::scores);
    CHECK(from_cache(found) == rows.size());
  }

  // Dropped: resolved in full, and kept again.
  run.sql("DELETE FROM derived");
  kept = resolve(mirac::JudgmentDetail::scores);
  CHECK(from_cache(kept) == 0);
  check_same(full, kept);
  CHECK(from_cache(resolve(mirac::JudgmentDetail::scores)) == rows.size());

  // Written by another build of mirac: never read, and replaced.
  run.sql("UPDATE meta SET value = 'another build' WHERE key = 'derived_build'");
  CHECK(from_cache(resolve(mirac::JudgmentDetail::scores)) == 0);
  CHECK(from_cache(resolve(mirac::JudgmentDetail::scores)) == rows.size());

  // An entry that names another answer, or that took more repairs than allowed, is not used.
  run.sql("UPDATE derived SET value = substr(value, 1, 3) || X'00' || substr(value, 5) "
          "WHERE key = (SELECT min(key) FROM derived)");
  run.sql("UPDATE derived SET value = substr(value, 1, 2) || X'02' || substr(value, 4) "
          "WHERE key = (SELECT max(key) FROM derived)");
  kept = resolve(mirac::JudgmentDetail::scores, 1);
  CHECK(from_cache(kept) == rows.size() - 2);
  CHECK_FALSE(kept.front().from_cache);
  CHECK_FALSE(kept.back().from_cache);
  check_same(full, kept);
  // Both put right again.
  CHECK(from_cache(resolve(mirac::JudgmentDetail::scores, 1)) == rows.size());
}

TEST_CASE("derived values: by prefix, in key order, only this build's") {
  const fs::path dir = fs::temp_directory_path() / "mirac_derived_values";
  fs::remove_all(dir);
  std::string error;
  {
    auto store = mirac::Store::open(dir, error);
    REQUIRE_MESSAGE(store, error);
  }
  REQUIRE_FALSE(mirac::program_build_id().empty());
  auto values = mirac::DerivedValues::open(dir / "store.sqlite");
  REQUIRE(values);
  CHECK(values->with_prefix("a").empty());  // nothing kept yet, not even the table
  const std::string ff = "\xff", ff2 = "\xff\xff";
  REQUIRE(values->put({{"ab", "1"}, {"a" + ff, "2"}, {"b", "3"}, {ff2 + "x", "4"}, {ff2, "5"}}));
  using Entries = std::vector<std::pair<std::string, std::string>>;
  CHECK(values->with_prefix("a") == Entries{{"ab", "1"}, {"a" + ff, "2"}});
  CHECK(values->with_prefix(ff2) == Entries{{ff2, "5"}, {ff2 + "x", "4"}});
  CHECK(values->with_prefix("c").empty());
  REQUIRE(values->put({{"ab", "replaced"}}));
  CHECK(values->with_prefix("ab") == Entries{{"ab", "replaced"}});
  CHECK_FALSE(mirac::DerivedValues::open(dir / "missing" / "store.sqlite"));
  fs::remove_all(dir);
}
