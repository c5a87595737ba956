// driver_test.cpp: the audit driver (engine/audit.hpp) as a program embedding mirac calls
// it: run_audit on the offline provider, step by step through its events; a rerun that
// pays for nothing; a cancelled run; analyze_only and the status step on the same store.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/audit.hpp"
#include "engine/status/status.hpp"

namespace {

namespace fs = std::filesystem;

fs::path otc_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return fs::path(root) / "examples/otc/otc.audit";
}

struct ScratchStore {
  fs::path dir;
  explicit ScratchStore(const std::string& name) : dir(fs::temp_directory_path() / ("mirac_driver_" + name)) {
    fs::remove_all(dir);
  }
  ~ScratchStore() { fs::remove_all(dir); }
};

// Every event, in the order the driver raised it.
struct Recorder : mirac::AuditEvents {
  std::vector<std::string> seen;
  std::size_t selected_rows = 0, answered_now = 0, skipped = 0, scored = 0, score_rows = 0;
  bool cancelled = false;
  void compiled(const mirac::Audit& audit) override { seen.push_back(audit.ok() ? "compiled" : "compile failed"); }
  void selected(const mirac::Audit&, const mirac::Selection& s) override {
    seen.push_back("selected");
    selected_rows = s.rows.size();
  }
  mirac::RunHooks hooks(const std::string& phase) override {
    seen.push_back("hooks " + phase);
    return {};
  }
  void answered(const mirac::RunSummary& s, const mirac::AnswerMarks&) override {
    seen.push_back("answered");
    answered_now = s.stored;
    skipped = s.skipped;
    cancelled = s.cancelled;
  }
  void judged(const mirac::Judge& judge, const mirac::JudgePhaseSummary& s) override {
    seen.push_back("judged " + judge.name);
    scored = s.scored;
  }
  void analyzed(const mirac::Audit&, const mirac::Analysis&) override { seen.push_back("analyzed"); }
  void reported(const mirac::Audit&, const mirac::Analysis& a) override {
    seen.push_back("reported");
    score_rows = a.score_rows;
  }
};

mirac::AuditOptions offline_options(const ScratchStore& store) {
  mirac::AuditOptions o;
  o.spec = otc_spec();
  o.store = store.dir.string();
  o.offline = true;
  o.resamples = 200;
  return o;
}

}  // namespace

TEST_CASE("run_audit goes compile, select, send, judge, analyze, report; a rerun pays for nothing") {
  ScratchStore store("run");
  const std::atomic<bool> never{false};
  Recorder first;
  mirac::Outcome done = mirac::run_audit(offline_options(store), never, first);
  INFO(done.message);
  REQUIRE(done.ok());
  CHECK(first.seen == std::vector<std::string>{"compiled", "selected", "hooks answers", "answered", "hooks judge",
                                               "judged judge", "analyzed", "reported"});
  CHECK(first.selected_rows == 48);
  CHECK(first.answered_now == 48);
  CHECK(first.scored == 48);
  CHECK(first.score_rows == 48);
  CHECK(fs::exists(store.dir / "results" / "results.json"));
  CHECK(fs::exists(store.dir / "results" / "report.html"));

  Recorder again;
  REQUIRE(mirac::run_audit(offline_options(store), never, again).ok());
  CHECK(again.skipped == 48);
  CHECK(again.answered_now == 0);

  // The other commands' steps on the same store.
  mirac::Audit audit = mirac::open_audit(offline_options(store));
  REQUIRE(audit.ok());
  mirac::RunStatus status;
  REQUIRE(mirac::audit_status(audit, status).ok());
  CHECK(status.all.report.done == 48);
  REQUIRE(status.judging.size() == 1);
  CHECK(status.judging[0].scored == 48);
  CHECK(mirac::status_json(audit, status)["all"]["pending"] == 0);

  mirac::AuditOptions reanalyze = offline_options(store);
  reanalyze.out_dir = (store.dir / "again").string();
  Recorder analysis;
  REQUIRE(mirac::analyze_only(reanalyze, analysis).ok());
  CHECK(analysis.seen == std::vector<std::string>{"compiled", "analyzed", "reported"});
  CHECK(fs::exists(store.dir / "again" / "results.json"));
}

TEST_CASE("a cancelled run sends nothing and stops before judging") {
  ScratchStore store("cancelled");
  const std::atomic<bool> cancelled{true};
  Recorder events;
  mirac::Outcome stopped = mirac::run_audit(offline_options(store), cancelled, events);
  CHECK(stopped.code == mirac::kRunError);
  CHECK(events.cancelled);
  CHECK(events.answered_now == 0);
  CHECK(events.seen.back() == "answered");
}

TEST_CASE("the driver's failures say why and with which exit status") {
  ScratchStore store("failures");
  const std::atomic<bool> never{false};
  mirac::AuditOptions o = offline_options(store);
  o.only = "tone=wram";
  Recorder events;
  mirac::Outcome bad_filter = mirac::run_audit(o, never, events);
  CHECK(bad_filter.code == mirac::kUsageError);
  CHECK(bad_filter.message.find("'wram' is not a level of factor 'tone'") != std::string::npos);
  CHECK(events.seen == std::vector<std::string>{"compiled"});  // nothing selected, nothing sent

  o = offline_options(store);
  o.spec = store.dir / "missing.audit";
  Recorder missing;
  CHECK(mirac::run_audit(o, never, missing).code == mirac::kSpecError);
  CHECK(missing.seen == std::vector<std::string>{"compile failed"});

  o = offline_options(store);
  o.resamples = 0;
  CHECK(mirac::analyze_only(o, missing).code == mirac::kUsageError);
  o.resamples = 200;
  mirac::Outcome no_store = mirac::analyze_only(o, missing);
  CHECK(no_store.code == mirac::kUsageError);
  CHECK(no_store.message.find("no run store at") != std::string::npos);
}
