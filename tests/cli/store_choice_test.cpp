// store_choice_test.cpp: which store the commands that read one use without --store or
// --offline (engine/session.cpp, choose_store; docs/cli.md, "Which store"). A new user's
// first audit runs offline into runs/<spec name>.offline; status, export, annotate and
// analyze then read it and say so. With both stores they read the real one and name
// --offline; with none they say what to run or add.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>

#include "mirac_binary.hpp"

namespace {

std::string otc_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/otc/otc.audit").string();
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kOfflineNotice =
    "mirac: reading runs/otc.offline, the store of an --offline run (simulated answers): runs/otc holds none\n";

}  // namespace

TEST_CASE("after an offline run, the commands that read a store read it without flags, and say so") {
  mirac::test::TempDir tmp("store_choice_offline");
  const std::string spec = otc_spec();
  auto in_tmp = [&](const std::vector<std::string>& args) { return mirac::test::invoke(args, "http://127.0.0.1:9/v1", tmp.dir); };
  auto run = in_tmp({"run", spec, "--offline", "--resamples", "50"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  REQUIRE(std::filesystem::exists(tmp.dir / "runs/otc.offline/store.sqlite"));
  REQUIRE(!std::filesystem::exists(tmp.dir / "runs/otc"));

  auto status = in_tmp({"status", spec});
  INFO(status.out << status.err);
  CHECK(status.code == 0);
  CHECK(has(status.out, "status otc: 48 requests, store runs/otc.offline\n"));
  CHECK(has(status.out, "done 48, failed 0, pending 0"));
  CHECK(!has(status.out, "nothing run yet"));
  CHECK(status.err == kOfflineNotice);

  auto responses = in_tmp({"export", spec, "responses"});
  CHECK(responses.code == 0);
  CHECK(count_lines(responses.out) == 48);
  CHECK(has(responses.out, "\"model_string\":\"sim-"));  // read as the offline run planned its requests
  CHECK(has(responses.err, kOfflineNotice));

  auto scores = in_tmp({"export", spec, "scores", "--format", "csv"});
  CHECK(scores.code == 0);
  CHECK(count_lines(scores.out) == 49);  // a header and 48 scored answers
  CHECK(has(scores.err, kOfflineNotice));

  auto sample = in_tmp({"annotate", "sample", spec, "--n", "4"});
  INFO(sample.err);
  CHECK(sample.code == 0);
  CHECK(has(sample.out, "4 of 48 stored answers"));
  CHECK(std::filesystem::exists(tmp.dir / "runs/otc.offline/annotation/sheet.csv"));
  CHECK(has(sample.err, kOfflineNotice));

  std::filesystem::remove_all(tmp.dir / "runs/otc.offline/results");
  auto analyze = in_tmp({"analyze", spec, "--resamples", "50"});
  INFO(analyze.err);
  CHECK(analyze.code == 0);
  CHECK(has(analyze.err, kOfflineNotice));
  // The results say what the answers are, as after `analyze --offline`.
  const std::string scores_csv = mirac::test::read_text(tmp.dir / "runs/otc.offline/results/scores.csv");
  CHECK(has(scores_csv, "# SIMULATED answers (offline provider)"));
}

TEST_CASE("with a real and an offline store the real one is read, and --offline named for the other") {
  mirac::test::TempDir tmp("store_choice_both");
  const std::string spec = otc_spec();
  auto in_tmp = [&](const std::vector<std::string>& args) { return mirac::test::invoke(args, "http://127.0.0.1:9/v1", tmp.dir); };
  REQUIRE(in_tmp({"run", spec, "--offline", "--answers-only", "--limit", "4"}).code == 0);
  // Answers from elsewhere go to runs/otc: an import writes, so it never picks the offline store.
  const std::string answers = tmp.write(
      "answers.jsonl", "{\"prompt_id\":\"ibuprofen_high_calm\",\"model\":\"mini\",\"arm\":\"baseline\",\"response\":\"Rest.\"}\n");
  auto imported = in_tmp({"import", spec, "responses", answers});
  INFO(imported.out << imported.err);
  REQUIRE(imported.code == 0);
  CHECK(has(imported.out, "store runs/otc\n"));
  CHECK(imported.err.empty());

  auto status = in_tmp({"status", spec});
  CHECK(status.code == 0);
  CHECK(has(status.out, "store runs/otc\n"));
  CHECK(status.err == "mirac: reading runs/otc; runs/otc.offline holds an --offline run's store too: add --offline "
                      "to read that one\n");
  auto offline = in_tmp({"status", spec, "--offline"});
  CHECK(has(offline.out, "store runs/otc.offline\n"));
  CHECK(offline.err.empty());
}

TEST_CASE("without a store, the commands that read one say what to run, or which flag reads the one there is") {
  mirac::test::TempDir tmp("store_choice_none");
  const std::string spec = otc_spec();
  auto in_tmp = [&](const std::vector<std::string>& args) { return mirac::test::invoke(args, "http://127.0.0.1:9/v1", tmp.dir); };
  const std::string advice = "no run store at runs/otc/store.sqlite, nor at runs/otc.offline/store.sqlite: run `mirac "
                             "run " + spec + "` first (add --offline without API keys), or add --store DIR where a "
                             "run wrote its store";
  auto exported = in_tmp({"export", spec, "responses"});
  CHECK(exported.code == 4);
  CHECK(exported.err == "mirac export: " + advice + "\n");
  auto status = in_tmp({"status", spec});
  CHECK(status.code == 0);  // before the first run every request is pending
  CHECK(has(status.out, "(nothing run yet)"));
  CHECK(status.err == "mirac status: " + advice + "\n");
  auto view = in_tmp({"view", spec, "--port", "0"});
  CHECK(view.code == 2);
  CHECK(view.err == "mirac view: " + advice + "\n");
  CHECK(!std::filesystem::exists(tmp.dir / "runs"));  // reading creates no store

  // Only the offline store, and --store names a directory without one: the flags that read it.
  REQUIRE(in_tmp({"run", spec, "--offline", "--answers-only", "--limit", "2"}).code == 0);
  auto elsewhere = in_tmp({"annotate", "sample", spec, "--store", "other"});
  CHECK(elsewhere.code == 2);
  CHECK(elsewhere.err == "mirac annotate sample: no run store at other/store.sqlite; runs/otc.offline holds an "
                         "--offline run's store: leave out --store and add --offline to read it\n");
}
