// rerun_freshness_test.cpp: a rerun that changes nothing reports the results it has instead
// of computing them again (engine/analyze/freshness.hpp), and any change to what the
// analysis reads (an option, a results file, a write to the store by any program, people's
// scores) makes it compute them again.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <cstdlib>

#include "mirac_binary.hpp"
#include "runtime/store/annotations.hpp"

namespace {

std::string otc_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/otc/otc.audit").string();
}

bool analysed(const mirac::test::Outcome& run) { return run.out.find("score rows; wrote ") != std::string::npos; }
bool reused(const mirac::test::Outcome& run) { return run.out.find("score rows; results up to date in ") != std::string::npos; }

// Runs one statement on the store with SQLite itself, as another program would.
void sql(const std::string& store, const char* statement) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((store + "/store.sqlite").c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, statement, nullptr, nullptr, &error);
  INFO((error ? error : ""));
  sqlite3_free(error);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("a rerun with nothing changed reports its results as they are; any change computes them again") {
  mirac::test::TempDir tmp("rerun_freshness");
  const std::string store = tmp.path("run");
  const std::vector<std::string> run = {"run", otc_spec(), "--offline", "--store", store};
  auto again = [&](std::vector<std::string> extra = {}) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    auto outcome = mirac::test::invoke(args);
    INFO(outcome.out << outcome.err);
    REQUIRE(outcome.code == 0);
    return outcome;
  };
  const auto results = std::filesystem::path(store) / "results";
  auto first = again();
  CHECK(analysed(first));
  const std::string json = mirac::test::read_text(results / "results.json");
  REQUIRE(std::filesystem::exists(results / "analysis-inputs.json"));

  SUBCASE("nothing changed: the same results, not written again, and the same warnings") {
    const auto written = std::filesystem::last_write_time(results / "results.json");
    auto second = again();
    CHECK(reused(second));
    CHECK_FALSE(analysed(second));
    CHECK(mirac::test::read_text(results / "results.json") == json);  // analyzed_at included
    CHECK(std::filesystem::last_write_time(results / "results.json") == written);
    // The analysis's own warning, said again although nothing was computed.
    const std::string warning = "warning: analysis main: boundary (singular) fit";
    REQUIRE(first.err.find(warning) != std::string::npos);
    CHECK(second.err.find(warning) != std::string::npos);
    // `mirac analyze` always computes; a run after it reuses what it wrote.
    auto analyze = mirac::test::invoke({"analyze", otc_spec(), "--offline", "--store", store});
    INFO(analyze.out << analyze.err);
    REQUIRE(analyze.code == 0);
    CHECK(analysed(analyze));
    CHECK(reused(again()));
  }
  SUBCASE("an option the analysis reads") {
    CHECK(analysed(again({"--resamples", "500"})));
    CHECK(reused(again({"--resamples", "500"})));
    CHECK(analysed(again()));
  }
  SUBCASE("a results file removed or changed") {
    std::filesystem::remove(results / "report.html");
    CHECK(analysed(again()));
    REQUIRE(std::filesystem::exists(results / "report.html"));
    { std::ofstream(results / "results.json", std::ios::app) << " "; }
    CHECK(analysed(again()));
    CHECK(reused(again()));
  }
  SUBCASE("a write to the store's answers by another program, even one that changes nothing") {
    sql(store, "UPDATE answers SET warnings = warnings WHERE id = 1");
    CHECK(analysed(again()));
    CHECK(reused(again()));
  }
  SUBCASE("people's scores imported") {
    std::string error;
    auto annotations = mirac::AnnotationStore::open(store, error);
    REQUIRE(annotations);
    mirac::Annotation a;
    a.answer_hash = "0000";
    a.annotator = "ana";
    a.dimension = "accuracy";
    a.value = 3;
    a.source = "test";
    REQUIRE(annotations->put({a}, error));
    annotations.reset();
    CHECK(analysed(again()));
    CHECK(reused(again()));
  }
  SUBCASE("a store that predates the change count is analysed, then counts") {
    sql(store, "DROP TRIGGER answers_inserted; DROP TRIGGER answers_updated; DROP TRIGGER answers_deleted; "
               "DELETE FROM meta WHERE key = 'answers_changes'");
    CHECK(analysed(again()));  // the run opened it for writing: the count is back
    CHECK(reused(again()));
  }
}
