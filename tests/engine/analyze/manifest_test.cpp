// manifest_test.cpp: results.json's reproducibility manifest after an offline run of a
// small spec whose second arm reads its system prompt from a file: the file among the
// inputs, the models as sent and as the provider returned them, the judge's rubric hash,
// the plan's digest, the seeds, the dates (the analysis time pinned by the options) and
// `simulated`; and the provenance lines the CSV files open with.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/analyze/manifest.hpp"
#include "engine/audit.hpp"
#include "runtime/hash/hash.hpp"
#include "interpreter/judge/judge.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kSystemPrompt = "Answer every user with the same substance.\n";

struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name) : dir(fs::temp_directory_path() / ("mirac_manifest_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "same.txt", std::ios::binary) << kSystemPrompt;
    std::ofstream(dir / "tiny.audit", std::ios::binary) << R"(audit tiny { title "tiny" }
use stdlib.providers
use stdlib.mira.rubric
factor tone { plain warm }
seeds {
  seed q1 { question = "Is ibuprofen safe with coffee?" }
  seed q2 { question = "How much water should I drink?" }
}
checklists {
  checklist q1 { required_elements = ["Caffeine does not interact"] q3_expectations = [] pure_knowledge = false }
  checklist q2 { required_elements = ["It depends on heat and activity"] q3_expectations = [] pure_knowledge = false }
}
text tone { plain "" warm "Kindly: " }
prompt { id "{seed.id}_{tone}" text tone.text ++ seed.question }
model mini = openai("gpt-5.4-mini")
model local = local("llama3.1:8b")
arm baseline { system none }
arm same { system file("same.txt") }
judge judge = openai("gpt-5.4-mini") { rubric mira temperature 0 }
contrast tone_gap = D3[warm] - D3[plain] by model
)";
  }
  ~Scratch() { fs::remove_all(dir); }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

mirac::AuditOptions offline_options(const Scratch& s) {
  mirac::AuditOptions o;
  o.spec = s.dir / "tiny.audit";
  o.store = (s.dir / "run").string();
  o.offline = true;
  o.resamples = 50;
  o.seed = 11;
  o.analyzed_at = 1767225600;  // 2026-01-01T00:00:00Z: results.json is the same bytes on every run
  return o;
}

const Json* input(const Json& manifest, const std::string& path) {
  for (const auto& i : manifest.at("inputs"))
    if (i.at("path") == path) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("an offline run's manifest names every input, the models as answered, the judge's rubric and the plan") {
  Scratch s("offline");
  mirac::AuditEvents quiet;
  const std::atomic<bool> never{false};
  mirac::Outcome done = mirac::run_audit(offline_options(s), never, quiet);
  INFO(done.message);
  REQUIRE(done.ok());
  const Json m = Json::parse(read_text(s.dir / "run" / "results" / "results.json")).at("manifest");

  // The system prompt file is an input like the data files.
  const Json* system = input(m, "same.txt");
  REQUIRE(system != nullptr);
  CHECK(system->at("sha256") == mirac::sha256_hex(kSystemPrompt));

  CHECK(m.at("simulated") == true);
  CHECK(m.at("simulated_models") == Json::array({"mini", "local"}));
  CHECK(m.at("simulated_judges") == Json::array({"judge"}));

  // What was sent and what came back: 2 seeds x 2 tones x 2 arms answers per model.
  REQUIRE(m.at("models").size() == 2);
  const Json& mini = m.at("models")[0];
  CHECK(mini.at("name") == "mini");
  CHECK(mini.at("provider") == "offline");
  CHECK(mini.at("model") == "sim-gpt-5.4-mini");
  REQUIRE(mini.at("returned").size() == 1);
  CHECK(mini.at("returned")[0].at("model") == "sim-gpt-5.4-mini");
  CHECK(mini.at("returned")[0].at("answers") == 8);
  CHECK(m.at("models")[1].at("returned")[0].at("answers") == 8);

  // The plan and the judge's rubric as the run's own compilation has them.
  mirac::Audit audit = mirac::open_audit(offline_options(s));
  REQUIRE(audit.ok());
  std::string hashes;
  for (const auto& r : audit.plan().requests) hashes += (hashes.empty() ? "" : "\n") + r.hash();
  CHECK(m.at("plan").at("requests") == 16);
  CHECK(m.at("plan").at("judge_tasks") == 16);
  CHECK(m.at("plan").at("request_digest") == mirac::sha256_hex(hashes));
  REQUIRE(m.at("judges").size() == 1);
  const Json& judge = m.at("judges")[0];
  CHECK(judge.at("model") == "judge-gpt-5.4-mini");
  CHECK(judge.at("rubric") == "mira");
  CHECK(judge.at("rubric_sha256") ==
        mirac::sha256_hex(mirac::JudgeBuilder(audit.spec(), audit.sources(), 0).instructions()));

  CHECK(m.at("random_seeds") == Json{{"bootstrap", 11}});
  const Json& dates = m.at("dates");
  CHECK(dates.at("analyzed_at") == "2026-01-01T00:00:00Z");
  REQUIRE(dates.at("first_answer_at").is_string());
  CHECK(dates.at("first_answer_at").get<std::string>().size() == 20);
  CHECK(dates.at("first_answer_at").get<std::string>() <= dates.at("last_answer_at").get<std::string>());
}

TEST_CASE("every CSV of the results opens with its provenance; the scores file reads back with it") {
  Scratch s("csv");
  mirac::AuditEvents quiet;
  const std::atomic<bool> never{false};
  REQUIRE(mirac::run_audit(offline_options(s), never, quiet).ok());
  const fs::path results = s.dir / "run" / "results";
  const Json m = Json::parse(read_text(results / "results.json")).at("manifest");
  const std::string spec_line = "# spec tiny sha256 " + m.at("spec").at("sha256").get<std::string>() + "\n";
  const std::string simulated = "# SIMULATED answers (offline provider): not findings about any real model\n";

  const std::string scores = read_text(results / "scores.csv");
  CHECK(scores.rfind("# mirac " MIRAC_VERSION "\n" + spec_line + simulated + "seed,model,arm,tone,", 0) == 0);
  CHECK(m.at("scores").at("sha256") == mirac::sha256_hex(scores));  // the bytes written, provenance and all
  for (const char* table : {"means", "contrasts"}) {
    CAPTURE(table);
    const std::string csv = read_text(results / (std::string(table) + ".csv"));
    CHECK(csv.rfind("# mirac " MIRAC_VERSION "\n" + spec_line + "# scores sha256 " +
                        m.at("scores").at("sha256").get<std::string>() + "\n" + simulated,
                    0) == 0);
  }

  // The scores file as written analyzes again; its SIMULATED line keeps the results marked,
  // and nothing of the store is claimed.
  mirac::AuditOptions again = offline_options(s);
  again.offline = false;
  again.store.clear();
  again.scores = (results / "scores.csv").string();
  again.out_dir = (s.dir / "again").string();
  REQUIRE(mirac::analyze_only(again, quiet).ok());
  const Json r = Json::parse(read_text(s.dir / "again" / "results.json"));
  CHECK(r.at("manifest").at("simulated") == true);
  CHECK(r.at("manifest").at("simulated_models") == Json::array());
  CHECK(r.at("manifest").at("models")[0].at("returned").is_null());
  CHECK(r.at("manifest").at("dates").at("first_answer_at").is_null());
  CHECK(r.at("means") == Json::parse(read_text(results / "results.json")).at("means"));
}

TEST_CASE("the provenance lines: the SIMULATED line only when the answers were simulated") {
  mirac::analyze::Provenance p{"otc", "abc", "def", false, {}};
  CHECK(mirac::analyze::csv_provenance(p) == "# mirac " MIRAC_VERSION "\n# spec otc sha256 abc\n# scores sha256 def\n");
  CHECK_FALSE(mirac::analyze::csv_says_simulated(mirac::analyze::csv_provenance(p) + "seed\n"));
  p.simulated_models = {"local"};
  CHECK(mirac::analyze::csv_provenance(p).find("# SIMULATED answers of local (offline provider)") != std::string::npos);
  CHECK_FALSE(mirac::analyze::csv_says_simulated(mirac::analyze::csv_provenance(p) + "seed\n"));
  p.simulated = true;
  CHECK(mirac::analyze::csv_says_simulated(mirac::analyze::csv_provenance(p) + "seed\n"));
  // A field that happens to read so is not provenance.
  CHECK_FALSE(mirac::analyze::csv_says_simulated(
      "seed\n# SIMULATED answers (offline provider): not findings about any real model\n"));
  CHECK(mirac::analyze::utc_iso8601(0) == "1970-01-01T00:00:00Z");
}
