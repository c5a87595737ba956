// store_fault_test.cpp: `mirac run` on a store whose disk fills up, through the real
// binary. A file-size limit (RLIMIT_FSIZE, no root needed) makes every write past it fail
// as on a full disk. No answer the provider served is lost: what the store refused is
// kept in the run's journal; the summary counts only what the store holds; a rerun on the
// still-full disk sends nothing; a rerun with room imports the journal first and pays for
// no answer twice.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

namespace fs = std::filesystem;

namespace {

std::string spec_text(int seeds) {
  std::string s = "audit full { title \"full disk\" }\nuse stdlib.providers\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < seeds; ++i)
    s += "  seed q" + std::to_string(i) + " { question = \"Question number " + std::to_string(i) + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
       "model gpt = openai(\"gpt-test\") { max_tokens 64 }\n";
  return s;
}

// "done N," of `mirac status`.
long status_done(const std::string& spec, const std::string& store, const std::string& base_url) {
  auto status = mirac::test::invoke({"status", spec, "--store", store}, base_url);
  const std::string text = status.out + status.err;
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex("done (\\d+), failed 0, pending (\\d+)")));
  return std::stol(m[1]);
}

}  // namespace

TEST_CASE("a full disk loses no answer, the summary equals the store, and a full rerun sends nothing") {
  mirac::test::TempDir tmp("store_full");
  const int seeds = 40, total = 2 * seeds;
  std::string spec = tmp.write("full.audit", spec_text(seeds)), store = tmp.path("store");
  mirac::fake::FakeServerOptions options;
  options.latency_s = 0.02;
  mirac::fake::FakeServer server(options);
  std::string error;
  REQUIRE(server.start(error));
  const std::vector<std::string> args = {"run", spec, "--store", store, "--concurrency", "2", "--answers-only"};
  const fs::path journal = fs::path(store) / "unsaved-answers.jsonl";

  // Room for the store's first answers, not for all of them.
  pid_t run = mirac::test::spawn(args, server.base_url(), tmp.dir / "full.log", 256 * 1024);
  CHECK(mirac::test::wait_exit(run) == 4);
  std::string log = mirac::test::read_text(tmp.dir / "full.log");
  INFO(log);
  CHECK(log.find("cannot write to the store, stopped sending") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(log, m, std::regex("(\\d+) answered now")));
  const long stored = std::stol(m[1]);
  long kept = 0;
  if (std::regex_search(log, m, std::regex("(\\d+) answer\\(s\\) received could not be written to the store")))
    kept = std::stol(m[1]);
  const std::size_t served = server.stats().answered;
  CHECK(served < static_cast<std::size_t>(total));  // sending stopped at the failure
  CHECK(stored == status_done(spec, store, server.base_url()));  // the summary is the store
  CHECK(static_cast<std::size_t>(stored + kept) == served);      // and nothing served is missing
  CHECK(fs::exists(journal) == (kept > 0));
  if (kept > 0) {  // `mirac status` says where they are
    auto st = mirac::test::invoke({"status", spec, "--store", store}, server.base_url());
    CHECK(st.out.find(std::to_string(kept) + " of the pending answers were paid for and wait in") != std::string::npos);
  }

  // The disk is still full: the run finds out before it sends anything.
  const std::size_t requests = server.stats().requests;
  run = mirac::test::spawn(args, server.base_url(), tmp.dir / "still_full.log", 4096);
  CHECK(mirac::test::wait_exit(run) == 4);
  log = mirac::test::read_text(tmp.dir / "still_full.log");
  INFO(log);
  // Refused as it opens the store (SQLite cannot even map its WAL index) or at the write check.
  CHECK((log.find("cannot write to the store") != std::string::npos ||
         log.find("cannot open store") != std::string::npos));
  CHECK(server.stats().requests == requests);

  // With room again: the journal goes in first, the rest is sent once.
  auto done = mirac::test::invoke(args, server.base_url());
  const std::string done_output = done.out + done.err;
  INFO(done_output);
  CHECK(done.code == 0);
  CHECK(status_done(spec, store, server.base_url()) == total);
  CHECK_FALSE(fs::exists(journal));
  CHECK(server.stats().paid_twice == 0);
  CHECK(server.stats().requests == static_cast<std::size_t>(total));
  server.stop();
}
