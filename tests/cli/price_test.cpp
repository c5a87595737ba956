// price_test.cpp: prices reach `mirac run --budget` and the stored spend through the real
// binary: the stdlib's list price, a model's own price over it, and no price at all.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

namespace fs = std::filesystem;

namespace {

// `seeds` inline seeds x 2 tones, sent to `model` (a model declaration's right-hand side).
std::string priced_spec(int seeds, const std::string& model, const std::string& extra = "") {
  std::string s = "audit priced { title \"prices\" }\nuse stdlib.providers\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < seeds; ++i) s += "  seed q" + std::to_string(i) + " { question = \"Question " + std::to_string(i) + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n";
  s += "model m = " + model + "\n" + extra;
  return s;
}

// Runs the mirac binary against the fake provider (tests/cli/mirac_binary.hpp); its
// standard output, then its standard error, go to `output`.
int run_binary(const std::vector<std::string>& args, const std::string& base_url, std::string& output) {
  mirac::test::Outcome o = mirac::test::invoke(args, base_url);
  output = o.out + o.err;
  return o.code;
}

// The cost of every stored answer next to the cost its reported usage has at `input` and
// `output` USD per million tokens.
void check_costs(const std::string& spec, const std::string& store, const std::string& base_url, double input,
                 double output, std::size_t rows_expected) {
  std::string out;
  fs::path file = fs::path(store).parent_path() / "answers.jsonl";
  REQUIRE(run_binary({"export", spec, "responses", "--store", store, "-o", file.string()}, base_url, out) == 0);
  std::ifstream in(file);
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto row = nlohmann::json::parse(line);
    double expected = row["input_tokens"].get<double>() / 1e6 * input + row["output_tokens"].get<double>() / 1e6 * output;
    CHECK(row["cost_usd"].get<double>() > 0);
    CHECK(row["cost_usd"].get<double>() == doctest::Approx(expected));
    ++rows;
  }
  CHECK(rows == rows_expected);
}

}  // namespace

TEST_CASE("--budget runs on the stdlib's list price, and the spend is priced with it") {
  mirac::test::TempDir scratch("stdlib");
  // gpt-5.4-mini has a list price in stdlib/providers.audit (0.75 in, 4.5 out).
  std::ofstream(scratch.dir / "p.audit") << priced_spec(3, "openai(\"gpt-5.4-mini\") { max_tokens 64 }");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "p.audit").string(), store = (scratch.dir / "store").string(), out;
  CHECK(run_binary({"run", spec, "--store", store, "--budget", "1"}, server.base_url(), out) == 0);
  INFO(out);
  CHECK(server.stats().answered == 6);
  check_costs(spec, store, server.base_url(), 0.75, 4.5, 6);
  server.stop();
}

TEST_CASE("a model's own price wins over the stdlib's list price") {
  mirac::test::TempDir scratch("own");
  std::ofstream(scratch.dir / "p.audit")
      << priced_spec(2, "openai(\"gpt-5.4-mini\") { max_tokens 64 price { input 1000 output 2000 } }");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "p.audit").string(), store = (scratch.dir / "store").string(), out;
  CHECK(run_binary({"run", spec, "--store", store, "--budget", "10"}, server.base_url(), out) == 0);
  INFO(out);
  check_costs(spec, store, server.base_url(), 1000, 2000, 4);
  server.stop();
}

TEST_CASE("a spec's prices table extends its provider's, and a small budget stops the run") {
  mirac::test::TempDir scratch("table");
  // Each request may cost up to (prompt/4 + 16) * 1000 + 64 * 1000 USD per million tokens,
  // about $0.08, and costs about $0.02 (the fake reports ~13 input and 12 output tokens):
  // a $0.2 budget covers a few requests, not all ten.
  std::ofstream(scratch.dir / "p.audit")
      << priced_spec(5, "openai(\"my-finetune\") { max_tokens 64 }",
                     "prices openai { \"my-finetune\" { input 1000 output 1000 } }\n");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "p.audit").string(), store = (scratch.dir / "store").string(), out;
  int code = run_binary({"run", spec, "--store", store, "--budget", "0.2", "--concurrency", "1"}, server.base_url(), out);
  INFO(out);
  CHECK(code != 1);  // the spec is fine; what a budget stop exits with is the run command's business
  CHECK(out.find("budget: stopped sending") != std::string::npos);
  CHECK(server.stats().answered > 0);
  CHECK(server.stats().answered < 10);
  check_costs(spec, store, server.base_url(), 1000, 1000, server.stats().answered);
  server.stop();
}

TEST_CASE("--budget refuses a model with no price anywhere") {
  mirac::test::TempDir scratch("none");
  std::ofstream(scratch.dir / "p.audit") << priced_spec(1, "openai(\"gpt-unpriced\")");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "p.audit").string(), store = (scratch.dir / "store").string(), out;
  CHECK(run_binary({"run", spec, "--store", store, "--budget", "1"}, server.base_url(), out) == 4);
  CHECK(out.find("no price for: gpt-unpriced") != std::string::npos);
  CHECK(server.stats().requests == 0);
  server.stop();
}
