// api_test.cpp: the embedding API (mirac/mirac.hpp) as a program uses it: a spec compiled
// from text, its data found beside where it stands and its errors named by that path; the
// plan; a run whose every request goes through the caller's client, its results in memory
// and on disk (the manifest hashing the text that ran); a rerun that sends nothing.
// examples/embed is the same against the installed package (tests/embed/install_test.cmake),
// and docs/embedding.md shows it as it is.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/hash/hash.hpp"
#include "mirac/mirac.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name) : dir(fs::temp_directory_path() / ("mirac_embed_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
};

// Seeds from a CSV file, which compile_spec_text must find in the base directory.
const std::string kSpec = R"(audit api_demo { title "api" }
provider canned { protocol openai_chat base_url "https://llm.invalid/v1" key_env "" }
factor tone { calm worried }
seeds from csv("seeds.csv") { id = id question = question }
text tone { calm "" worried "I'm worried. " }
prompt { id "{seed.id}_{tone}" text tone.text ++ seed.question }
model assistant = canned("assistant-1")
rubric clarity { scale 1..5 worst low dim C "Clarity" { describe "How clear." } }
judge grader = canned("grader-1") { rubric clarity }
contrast worry_gap = C[worried] - C[calm]
)";

void write_seeds(const fs::path& dir) {
  std::ofstream(dir / "seeds.csv", std::ios::binary) << "id,question\nfever,Is ibuprofen safe?\nsleep,Does melatonin help?\n";
}

// Answers at once: short answers to worried prompts, which the judge scores 2 (else 4).
class Canned final : public mirac::HttpClient {
 public:
  void submit(std::uint64_t tag, mirac::HttpRequest request) override {
    const Json body = Json::parse(request.body);
    const std::string model = body.at("model"), user = body.at("messages").back().at("content");
    models.push_back(model);
    std::string text = model == "grader-1"
                           ? Json{{"C", user.find("fuller") != std::string::npos ? 4 : 2}, {"rationale", {{"C", "-"}}}}.dump()
                           : (user.find("worried") != std::string::npos ? "Yes." : "Yes, and here is a fuller answer.");
    mirac::HttpResponse r;
    r.status = 200;
    r.body = Json{{"model", model},
                  {"choices", {{{"message", {{"content", text}}}, {"finish_reason", "stop"}}}},
                  {"usage", {{"prompt_tokens", request.body.size() / 3}, {"completion_tokens", 5}}}}
                 .dump();
    done_.push_back({tag, std::move(r)});
  }
  std::vector<mirac::HttpCompletion> poll(double) override { return std::exchange(done_, {}); }
  std::size_t in_flight() const override { return done_.size(); }
  void abort_all() override {}
  std::vector<std::string> models;  ///< of every request, in order

 private:
  std::vector<mirac::HttpCompletion> done_;
};

struct Heard : mirac::AuditEvents {
  std::vector<std::string> seen;
  void selected(const mirac::Audit&, const mirac::Selection&) override { seen.push_back("selected"); }
  void answered(const mirac::RunSummary&, const mirac::AnswerMarks&) override { seen.push_back("answered"); }
  void judged(const mirac::Judge&, const mirac::JudgePhaseSummary&) override { seen.push_back("judged"); }
  void reported(const mirac::Audit&, const mirac::Analysis&) override { seen.push_back("reported"); }
};

}  // namespace

TEST_CASE("a spec compiled from text finds its data in the base directory and is named there") {
  Scratch scratch("compile");
  write_seeds(scratch.dir);
  mirac::Audit audit = mirac::compile_spec_text({kSpec, "demo.audit", scratch.dir});
  INFO(mirac::diagnostics_text(audit));
  REQUIRE(audit.ok());
  CHECK(mirac::diagnostics_text(audit).empty());
  CHECK(mirac::diagnostics_json(audit) == "[]");
  CHECK(audit.plan().prompts.size() == 4);
  CHECK(audit.plan().requests.size() == 4);
  CHECK(audit.plan().prompts[1].id == "fever_worried");
  CHECK(audit.plan().prompts[1].text == "I'm worried. Is ibuprofen safe?");
  CHECK(audit.spec().spec_path == scratch.dir / "demo.audit");

  // Elsewhere the data file is missing, and the error names the path the text stands for.
  mirac::Audit elsewhere = mirac::compile_spec_text({kSpec, "demo.audit", scratch.dir / "empty"});
  CHECK_FALSE(elsewhere.ok());
  const std::string text = mirac::diagnostics_text(elsewhere);
  CHECK(text.find((scratch.dir / "empty" / "demo.audit").string() + ":4:") == 0);
  CHECK(text.find("seeds.csv") != std::string::npos);
  const Json json = Json::parse(mirac::diagnostics_json(elsewhere));
  REQUIRE(json.size() == 1);
  CHECK(json[0]["line"] == 4);
  CHECK(json[0]["severity"] == "error");

  // A file compiles alike.
  std::ofstream(scratch.dir / "file.audit", std::ios::binary) << kSpec;
  mirac::Audit from_file = mirac::compile_spec(scratch.dir / "file.audit");
  REQUIRE(from_file.ok());
  CHECK(from_file.plan().requests.size() == 4);
}

TEST_CASE("run_compiled sends through the caller's client and returns the results; a rerun sends nothing") {
  Scratch scratch("run");
  write_seeds(scratch.dir);
  mirac::AuditOptions options;
  options.store = (scratch.dir / "run").string();
  options.resamples = 100;
  mirac::Audit audit = mirac::compile_spec_text({kSpec, "demo.audit", scratch.dir}, options);
  REQUIRE(audit.ok());

  Canned client;
  Heard heard;
  mirac::RunResult run = mirac::run_compiled(audit, {.http = &client, .events = &heard});
  INFO(run.outcome.message);
  REQUIRE(run.ok());
  CHECK(heard.seen == std::vector<std::string>{"selected", "answered", "judged", "reported"});
  CHECK(client.models == std::vector<std::string>{"assistant-1", "assistant-1", "assistant-1", "assistant-1",
                                                  "grader-1", "grader-1", "grader-1", "grader-1"});
  REQUIRE(run.answers);
  CHECK(run.answers->stored == 4);
  REQUIRE(run.judging.size() == 1);
  CHECK(run.judging[0].scored == 4);
  REQUIRE(run.analysis);
  const auto& contrast = run.analysis->output.json.at("contrasts").at(0);
  CHECK(contrast.at("name") == "worry_gap");
  CHECK(contrast.at("groups").at(0).at("estimate").get<double>() == doctest::Approx(-2));
  CHECK(run.results_json == scratch.dir / "run" / "results" / "results.json");
  std::ifstream written(run.results_json);
  const Json on_disk = Json::parse(written);
  CHECK(on_disk.at("contrasts") == Json::parse(run.analysis->output.json.at("contrasts").dump()));
  // The spec's hash is the text's that ran: there is no file to read.
  CHECK(on_disk.at("manifest").at("spec").at("sha256") == mirac::sha256_hex(kSpec));
  CHECK(audit.options.http == nullptr);  // the client is not kept past the call

  Canned again;
  mirac::RunResult rerun = mirac::run_compiled(audit, {.http = &again});
  REQUIRE(rerun.ok());
  CHECK(again.models.empty());
  CHECK(rerun.answers->skipped == 4);
  REQUIRE(rerun.judging.size() == 1);
  CHECK(rerun.judging[0].scored == 4);  // from the store
  CHECK(rerun.results_json == run.results_json);
}

TEST_CASE("run_compiled refuses a spec that did not compile") {
  mirac::Audit broken = mirac::compile_spec_text({"audit x {", "broken.audit", {}});
  CHECK_FALSE(broken.ok());
  CHECK(mirac::diagnostics_text(broken).find("broken.audit:1:") == 0);
  Canned client;
  mirac::RunResult run = mirac::run_compiled(broken, {.http = &client});
  CHECK(run.outcome.code == mirac::kSpecError);
  CHECK_FALSE(run.answers);
  CHECK(client.models.empty());
}

TEST_CASE("docs/embedding.md shows examples/embed/embed.cpp as it is") {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  auto read = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string example = read(fs::path(root) / "examples/embed/embed.cpp");
  REQUIRE(!example.empty());
  CHECK_MESSAGE(read(fs::path(root) / "docs/embedding.md").find("```cpp\n" + example + "```\n") != std::string::npos,
                "copy examples/embed/embed.cpp into docs/embedding.md's complete example");
}
