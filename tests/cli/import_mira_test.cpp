// import_mira_test.cpp: `mirac import responses` reading the MIRA authors' judge-input
// records (prompt_id / original_prompt_id, model_judged and its alternatives, a boolean-ish
// `mitigation`, the prompt's metadata checked against the spec), on small synthetic files.
#include <doctest/doctest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_calls.hpp"
#include "interpreter/driver.hpp"
#include "mirac_binary.hpp"
#include "runtime/store/store.hpp"

using Json = nlohmann::json;

namespace {

// Two seeds x language x hls, two models; arms baseline and `second_arm`.
std::string mira_like_spec(const std::string& second_arm) {
  return "audit mi { title \"mira-like\" }\nuse stdlib.providers\n"
         "factor language { zh en }\nfactor hls { high low }\n"
         "seeds {\n  seed 1 { question = \"First question?\" }\n  seed 2 { question = \"Second question?\" }\n}\n"
         "text language { zh \"ZH: \" en \"EN: \" }\ntext hls { high \"\" low \"Simply: \" }\n"
         "prompt { id \"{seed.id}_{language}_{hls}\" text language.text ++ hls.text ++ seed.question }\n"
         "model gpt = openai(\"gpt-5.4\")\nmodel claude = anthropic(\"claude-test\") { max_tokens 64 }\n"
         "arm baseline { system none }\narm " + second_arm + " { system \"Be complete.\" }\n";
}

std::string lines(const std::vector<Json>& rows) {
  std::string s;
  for (const auto& r : rows) s += r.dump() + "\n";
  return s;
}

cli_call::SpecStore options(const std::string& spec, const std::string& store) {
  cli_call::SpecStore o;
  o.spec = spec;
  o.store = store;
  return o;
}

// The stored text of (prompt, model, arm), or "" when none.
std::string stored(const std::string& spec, const std::string& store, const std::string& prompt, const std::string& model,
                   const std::string& arm) {
  auto c = mirac::compile(spec, mirac::CheckOptions{});
  REQUIRE(c->ok());
  std::string error;
  auto s = mirac::Store::open(store, error);
  REQUIRE(s);
  for (const auto& r : c->plan.requests)
    if (c->plan.prompts[r.prompt].id == prompt && c->spec.models[static_cast<std::size_t>(r.model)].name == model &&
        c->spec.arms[static_cast<std::size_t>(r.arm)].name == arm) {
      auto a = s->answer(r.hash());
      return a ? a->text : "";
    }
  FAIL("no request " << prompt << " " << model << " " << arm);
  return "";
}

}  // namespace

TEST_CASE("mirac import reads the MIRA judge input: ids, model keys, mitigation as the arm") {
  mirac::test::TempDir tmp("import_mira");
  std::string spec = tmp.write("mi.audit", mira_like_spec("mitigation")), store = tmp.path("store");
  std::string file = tmp.write("responses.jsonl", lines({
      {{"prompt_id", "1_zh_low"}, {"seed_id", "1"}, {"language", "zh"}, {"HLS", "low"}, {"model_judged", "gpt-5.4"},
       {"mitigation", true}, {"response", "A1"}, {"final_prompt", "ZH: Simply: First question?"}, {"category", "any"}},
      {{"prompt_id", "1_en_high__gpt-5.4"}, {"original_prompt_id", "1_en_high"}, {"model", "gpt"},
       {"mitigation", "False"}, {"response", "A2"}},
      {{"prompt_id", "2_en_low"}, {"source_model", "claude-test"}, {"mitigation", 0}, {"response", "A3"}, {"seed_id", 2}},
      {{"prompt_id", "2_zh_high"}, {"provider_model", "claude"}, {"mitigation", "mitigation"}, {"response", "A4"}},
      {{"prompt_id", "1_zh_high"}, {"model", "gpt"}, {"arm", "baseline"}, {"response", "A5"}},  // mirac's own format
      {{"prompt_id", "1_en_low__claude"}, {"model_judged", "claude"}, {"mitigation", "yes"}, {"response", "A6"}},
      {{"prompt_id", "2_en_high"}, {"model_judged", "GPT-5.4 (as judged)"}, {"provider_model", "gpt-5.4"},
       {"mitigation", ""}, {"response", "A7"}},
  }));
  std::ostringstream out, err;
  REQUIRE(cli_call::import_rows(options(spec, store), "responses", file, out, err) == 0);
  INFO(err.str());
  CHECK(out.str().find("7 answers stored, 0 skipped") != std::string::npos);
  CHECK(out.str().find("6 rows read as MIRA judge input") != std::string::npos);
  CHECK(stored(spec, store, "1_zh_low", "gpt", "mitigation") == "A1");
  CHECK(stored(spec, store, "1_en_high", "gpt", "baseline") == "A2");
  CHECK(stored(spec, store, "2_en_low", "claude", "baseline") == "A3");
  CHECK(stored(spec, store, "2_zh_high", "claude", "mitigation") == "A4");
  CHECK(stored(spec, store, "1_zh_high", "gpt", "baseline") == "A5");
  CHECK(stored(spec, store, "1_en_low", "claude", "mitigation") == "A6");
  CHECK(stored(spec, store, "2_en_high", "gpt", "baseline") == "A7");
  CHECK(stored(spec, store, "2_en_high", "gpt", "mitigation").empty());

  SUBCASE("through the binary, too") {
    std::string more = tmp.write("more.jsonl", lines({{{"prompt_id", "2_zh_low"}, {"model_judged", "gpt-5.4"},
                                                       {"mitigation", 1}, {"response", "A8"}}}));
    auto run = mirac::test::invoke({"import", spec, "responses", more, "--store", store});
    CHECK(run.code == 0);
    CHECK(stored(spec, store, "2_zh_low", "gpt", "mitigation") == "A8");
  }
}

TEST_CASE("mirac import of MIRA records: metadata that disagrees with the spec is an error at its line") {
  mirac::test::TempDir tmp("import_mira_errors");
  std::string spec = tmp.write("mi.audit", mira_like_spec("mitigation")), store = tmp.path("store");
  std::string file = tmp.write("responses.jsonl", lines({
      {{"prompt_id", "1_zh_low"}, {"model_judged", "gpt"}, {"mitigation", true}, {"response", "fine"}},
      {{"prompt_id", "1_zh_high"}, {"language", "en"}, {"model_judged", "gpt"}, {"mitigation", true}, {"response", "x"}},
      {{"prompt_id", "1_en_low"}, {"HLS", "high"}, {"seed_id", "2"}, {"model_judged", "gpt"}, {"mitigation", true},
       {"response", "x"}},
      {{"prompt_id", "2_en_low"}, {"final_prompt", "EN: Plainly: Second question?"}, {"model_judged", "gpt"},
       {"mitigation", false}, {"response", "x"}},
      {{"prompt_id", "2_zh_low"}, {"model_judged", "gpt"}, {"mitigation", "maybe"}, {"response", "x"}},
      {{"prompt_id", "2_zh_high"}, {"model_judged", "gpt"}, {"mitigation", true}, {"arm", "baseline"}, {"response", "x"}},
      {{"prompt_id", "2_en_high__gpt"}, {"original_prompt_id", "1_en_high"}, {"model_judged", "gpt"},
       {"mitigation", true}, {"response", "x"}},
      {{"prompt_id", "1_en_high"}, {"model_judged", "gemini-9"}, {"mitigation", true}, {"response", "x"}},
  }));
  std::ostringstream out, err;
  CHECK(cli_call::import_rows(options(spec, store), "responses", file, out, err) == 1);
  const std::string e = err.str();
  INFO(e);
  CHECK(e.find(file + ":1:") == std::string::npos);
  CHECK(e.find(file + ":2:") != std::string::npos);
  CHECK(e.find("'language' is 'en' but prompt '1_zh_high' has language 'zh'") != std::string::npos);
  CHECK(e.find("'HLS' is 'high' but prompt '1_en_low' has hls 'low'") != std::string::npos);
  CHECK(e.find("'seed_id' is '2' but prompt '1_en_low' is of seed '1'") != std::string::npos);
  CHECK(e.find(file + ":4:") != std::string::npos);
  CHECK(e.find("'final_prompt' is not the text of the spec's prompt '2_en_low'") != std::string::npos);
  CHECK(e.find("they differ from byte 4") != std::string::npos);
  CHECK(e.find("'mitigation' is \"maybe\"; expected true or false") != std::string::npos);
  CHECK(e.find(file + ":6:") != std::string::npos);
  CHECK(e.find("row has both 'arm' and 'mitigation'") != std::string::npos);
  CHECK(e.find("'prompt_id' '2_en_high__gpt' is not 'original_prompt_id' '1_en_high'") != std::string::npos);
  CHECK(e.find("unknown model 'gemini-9'") != std::string::npos);
  CHECK(e.find("8 errors generated.") != std::string::npos);
  CHECK(e.find("nothing imported") != std::string::npos);
  CHECK(!std::filesystem::exists(std::filesystem::path(store) / "store.sqlite"));
}

TEST_CASE("mirac import of MIRA records: the mitigation arm must exist by name") {
  mirac::test::TempDir tmp("import_mira_arms");
  std::string spec = tmp.write("mi.audit", mira_like_spec("kind")), store = tmp.path("store");
  std::string file = tmp.write("responses.jsonl", lines({
      {{"prompt_id", "1_zh_low"}, {"model_judged", "gpt"}, {"mitigation", false}, {"response", "fine"}},
      {{"prompt_id", "1_zh_high"}, {"model_judged", "gpt"}, {"mitigation", true}, {"response", "x"}},
      {{"prompt_id", "1_en_high"}, {"model_judged", "gpt"}, {"response", "x"}},
  }));
  std::ostringstream out, err;
  CHECK(cli_call::import_rows(options(spec, store), "responses", file, out, err) == 1);
  const std::string e = err.str();
  INFO(e);
  CHECK(e.find(file + ":2:") != std::string::npos);
  CHECK(e.find("'mitigation' is true, which means the arm named 'mitigation', but the spec has no such arm (its arms: "
               "baseline, kind)") != std::string::npos);
  CHECK(e.find("row has no 'mitigation' (or 'arm'); the spec has several arms (baseline, kind)") != std::string::npos);
  CHECK(e.find("2 errors generated.") != std::string::npos);
}
