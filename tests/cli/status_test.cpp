// status_test.cpp: `mirac status` by factor level, as text and JSON, with --only, on a store
// filled by a real run against the loopback fake provider (one seed scripted to fail).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

using mirac::test::invoke;
using Json = nlohmann::json;

namespace {

// 3 seeds x tone x size = 12 prompts, x 2 arms = 24 requests. Seed q2 always gets a 400.
std::string status_spec() {
  return "audit st { title \"status\" }\nuse stdlib.providers\n"
         "factor tone { plain warm }\nfactor size { short long }\n"
         "seeds {\n  seed q0 { question = \"First?\" }\n  seed q1 { question = \"Second?\" }\n"
         "  seed q2 { question = \"Third? [[fake fail=400]]\" }\n}\n"
         "text tone { plain \"\" warm \"Kindly: \" }\ntext size { short \"\" long \"In detail: \" }\n"
         "prompt { id \"{seed.id}_{tone}_{size}\" text tone.text ++ size.text ++ seed.question }\n"
         "model gpt = openai(\"gpt-test\") { max_tokens 64 }\n"
         "arm baseline { system none }\narm kind { system \"Be kind.\" }\n";
}

const Json& level(const Json& status, const std::string& factor, const std::string& name) {
  for (const auto& f : status["by_factor"])
    if (f["factor"] == factor)
      for (const auto& l : f["levels"])
        if (l["level"] == name) return l;
  FAIL("no level " << factor << "=" << name);
  static Json none;
  return none;
}

// The row of the text table for `lvl`, split on blanks: factor (or nothing), level, counts.
std::vector<std::string> table_row(const std::string& text, const std::string& lvl) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.size() >= 4 && w[w.size() - 4] == lvl) return {w.end() - 4, w.end()};
  }
  return {};
}

}  // namespace

TEST_CASE("mirac status: done, failed and pending per factor level, as text and JSON, with --only") {
  mirac::test::TempDir tmp("status");
  std::string spec = tmp.write("st.audit", status_spec()), store = tmp.path("store");

  // Before anything ran: everything pending, and no store is created.
  auto before = invoke({"status", spec, "--store", store, "--json"});
  REQUIRE(before.code == 0);
  Json j = Json::parse(before.out);
  CHECK(j["store_exists"] == false);
  CHECK(j["all"]["pending"] == 24);
  CHECK(level(j, "size", "long")["pending"] == 12);
  CHECK(!std::filesystem::exists(store));

  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  auto run = invoke({"run", spec, "--store", store, "--only", "tone=warm"}, server.base_url());
  CHECK(run.code == 4);  // seed q2's requests failed

  auto text = invoke({"status", spec, "--store", store});
  REQUIRE(text.code == 0);
  INFO(text.out);
  CHECK(text.out.find("all") != std::string::npos);
  CHECK(text.out.find("done 8, failed 4") != std::string::npos);
  CHECK(table_row(text.out, "warm") == std::vector<std::string>{"warm", "8", "4", "0"});
  CHECK(table_row(text.out, "plain") == std::vector<std::string>{"plain", "0", "0", "12"});
  CHECK(table_row(text.out, "short") == std::vector<std::string>{"short", "4", "2", "6"});

  auto json = invoke({"status", spec, "--store", store, "--json"});
  REQUIRE(json.code == 0);
  j = Json::parse(json.out);
  CHECK(j["store_exists"] == true);
  CHECK(j["requests"] == 24);
  CHECK(j["all"]["done"] == 8);
  CHECK(j["all"]["failed"] == 4);
  CHECK(j["all"]["failed_by_cause"].size() == 1);
  CHECK(j["by_model_arm"].size() == 2);
  CHECK(j["by_model_arm"][1]["arm"] == "kind");
  CHECK(j["by_model_arm"][1]["done"] == 4);
  CHECK(level(j, "tone", "warm")["failed"] == 4);
  CHECK(level(j, "tone", "plain")["pending"] == 12);
  // No judge in this spec: nothing to say about judging (score_export_test.cpp covers it).
  CHECK(j["judging"] == Json::array());
  CHECK(text.out.find("judging") == std::string::npos);

  // --only narrows every count; levels with nothing selected are left out.
  auto only = invoke({"status", spec, "--store", store, "--json", "--only", "tone=warm,arm=kind,seed=q0,seed=q1"});
  REQUIRE(only.code == 0);
  j = Json::parse(only.out);
  CHECK(j["requests"] == 4);
  CHECK(j["plan_requests"] == 24);
  CHECK(j["all"]["done"] == 4);
  CHECK(j["all"]["failed"] == 0);
  CHECK(j["by_factor"][0]["levels"].size() == 1);
  CHECK(j["by_model_arm"].size() == 1);

  // Misspelt filters are usage errors that name what is valid.
  auto bad_level = invoke({"status", spec, "--store", store, "--only", "tone=loud"});
  CHECK(bad_level.code == 2);
  CHECK(bad_level.err.find("plain, warm") != std::string::npos);
  CHECK(invoke({"status", spec, "--store", store, "--only", "colour=red"}).code == 2);
  CHECK(invoke({"status", spec, "--store", store, "--only", "tone"}).code == 2);
  server.stop();
}
