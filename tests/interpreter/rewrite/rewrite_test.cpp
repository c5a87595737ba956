// rewrite_test.cpp: building the requests of `mirac rewrite` from a spec's variant (which
// (seed, cell) pairs, which instruction and seed text, the hash) and the lock records that
// the variant reads back; on specs written by the test.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include "runtime/hash/hash.hpp"
#include "interpreter/rewrite/rewrite.hpp"

namespace fs = std::filesystem;

namespace {

struct SpecDir {
  fs::path dir;
  SpecDir() : dir(fs::temp_directory_path() / ("mirac_rewrite_unit_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~SpecDir() { fs::remove_all(dir); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  }
};

// Two seeds x language x hls; seed s1 has a hand-written text in zh.high. `variant_items`
// goes inside the variant block.
std::string spec_text(const std::string& variant_items) {
  return "audit rw { title \"rewrite\" }\nuse stdlib.providers\nfactor language { zh en }\nfactor hls { high low }\n"
         "seeds {\n  seed s1 { question.zh = \"问题一\" question.en = \"Question one\" }\n"
         "  seed s2 { question.zh = \"问题二\" question.en = \"Question two\" }\n}\n"
         "variant question by language * hls {\n" + variant_items +
         "  seed s1 { zh.high \"手写的问题\" }\n}\n"
         "prompt { id \"{seed.id}_{language}_{hls}\" text seed.question }\nmodel gpt = openai(\"gpt-test\")\n";
}

const std::string kInstructions =
    "  instructions {\n    high { zh \"正式改写。\" en \"Rewrite formally.\" }\n    low \"Rewrite simply.\"\n  }\n";
const std::string kRewriter = "  rewriter openai(\"gpt-rw\") { temperature 0 max_tokens 200 }\n";

std::string printed(const mirac::Compilation& c) {
  std::ostringstream out;
  c.diags.print(out, c.sources);
  return out.str();
}

}  // namespace

TEST_CASE("rewrite requests: one per seed and cell without a text, with the cell's instruction and the seed's text") {
  SpecDir d;
  std::vector<std::string> missing;
  auto c = mirac::compile_for_rewrite(d.write("rw.audit", spec_text(kInstructions + kRewriter)), {}, missing);
  INFO(printed(*c));
  REQUIRE(c->ok());  // the texts missing in every cell but one are not errors here
  CHECK(missing.empty());
  auto requests = mirac::build_rewrite_requests(c->spec, c->diags);
  REQUIRE(c->ok());
  REQUIRE(requests.size() == 7);
  std::vector<std::string> order;
  for (const auto& r : requests) order.push_back(r.seed + ":" + r.cell);
  CHECK(order == std::vector<std::string>{"s1:zh.low", "s1:en.high", "s1:en.low", "s2:zh.high", "s2:zh.low",
                                          "s2:en.high", "s2:en.low"});

  const auto& zh_high = requests[3];
  CHECK(zh_high.call.provider == "openai");
  CHECK(zh_high.call.model == "gpt-rw");
  REQUIRE(zh_high.call.system);
  CHECK(*zh_high.call.system == "正式改写。");
  CHECK(zh_high.call.user == "问题二");
  CHECK(zh_high.call.params == nlohmann::json{{"temperature", 0}, {"max_tokens", 200}});
  CHECK(zh_high.call.key_env == "OPENAI_API_KEY");
  CHECK(*requests[6].call.system == "Rewrite simply.");  // one instruction for every language
  CHECK(requests[6].call.user == "Question two");
  CHECK(*requests[1].call.system == "Rewrite formally.");

  // Hashed over the canonical request, as plan requests are: same inputs, same hash.
  CHECK(zh_high.call.hash == mirac::sha256_hex(mirac::canonical_request(zh_high.call).dump()));
  CHECK(zh_high.call.hash == mirac::rewrite_call(c->spec, c->spec.variants[0], "正式改写。", "问题二").hash);
  CHECK(zh_high.call.hash != mirac::rewrite_call(c->spec, c->spec.variants[0], "正式改写。", "问题一").hash);

  auto record = mirac::lock_record(c->spec, requests[6], "A plain question two?");
  std::vector<std::string> keys;
  for (auto it = record.begin(); it != record.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"seed", "language", "hls", "text", "hash", "model"});
  CHECK(record["seed"] == "s2");
  CHECK(record["language"] == "en");
  CHECK(record["hls"] == "low");
  CHECK(record["model"] == "gpt-rw");

  SUBCASE("the records read back as the variant's lock, and the prompts compile from them") {
    std::ofstream lock(d.dir / "question.lock.jsonl", std::ios::binary);
    for (const auto& r : requests) lock << mirac::lock_record(c->spec, r, "rewritten " + r.seed + " " + r.cell).dump() << '\n';
    lock.close();
    auto full = mirac::compile(d.write("rw2.audit", spec_text(kInstructions + kRewriter +
                                                              "  lock jsonl(\"question.lock.jsonl\")\n")),
                               {});
    INFO(printed(*full));
    REQUIRE(full->ok());
    std::map<std::string, std::string> texts;
    for (const auto& p : full->plan.prompts) texts[p.id] = p.text;
    CHECK(texts["s2_en_low"] == "rewritten s2 en.low");
    CHECK(texts["s1_zh_high"] == "手写的问题");  // the hand-written text wins
    std::vector<std::string> none;
    auto again = mirac::compile_for_rewrite(d.dir / "rw2.audit", {}, none);
    CHECK(mirac::build_rewrite_requests(again->spec, again->diags).empty());
  }
}

TEST_CASE("rewrite requests: a lock file not written yet is no error; real problems are") {
  SpecDir d;
  std::vector<std::string> missing;
  auto c = mirac::compile_for_rewrite(
      d.write("rw.audit", spec_text(kInstructions + kRewriter + "  lock jsonl(\"later.jsonl\")\n")), {}, missing);
  INFO(printed(*c));
  CHECK(c->ok());
  CHECK(missing == std::vector<std::string>{"later.jsonl"});
  CHECK(mirac::build_rewrite_requests(c->spec, c->diags).size() == 7);

  SUBCASE("no rewriter") {
    auto n = mirac::compile_for_rewrite(d.write("n.audit", spec_text(kInstructions)), {}, missing);
    REQUIRE(n->ok());
    CHECK(mirac::build_rewrite_requests(n->spec, n->diags).empty());
    CHECK(printed(*n).find("variant 'question' has 7 seed and cell combinations without a text and no rewriter") !=
          std::string::npos);
  }
  SUBCASE("a cell without an instruction") {
    auto n = mirac::compile_for_rewrite(
        d.write("n.audit", spec_text("  instructions { high \"Formally.\" }\n" + kRewriter)), {}, missing);
    REQUIRE(n->ok());
    auto requests = mirac::build_rewrite_requests(n->spec, n->diags);
    CHECK(requests.size() == 3);  // the high cells only
    CHECK(printed(*n).find("variant 'question' has no rewrite instruction for cell zh.low") != std::string::npos);
  }
  SUBCASE("other errors of the spec stay errors") {
    std::string text = spec_text(kInstructions + kRewriter);
    text.replace(text.find("openai(\"gpt-test\")"), 6, "opnai");
    auto n = mirac::compile_for_rewrite(d.write("n.audit", text), {}, missing);
    CHECK(!n->ok());
    CHECK(printed(*n).find("unknown provider 'opnai'") != std::string::npos);
    CHECK(printed(*n).find("has no text for seed") == std::string::npos);
  }
}
