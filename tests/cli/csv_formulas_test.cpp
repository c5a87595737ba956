// csv_formulas_test.cpp: the CSV files mirac writes for people carry no formula a
// spreadsheet would run. A real `mirac run` against a loopback model (hostile_provider.hpp)
// stores answers, prompts, seed ids and rationales that begin with `=`, `+`, `-`, `@`, a tab
// or a carriage return; `mirac export ... --format csv` (responses and scores), scores.csv
// and the results tables then hold them behind a ' and in quotes, numbers (a contrast of
// -0.5) stay numbers, `--csv-formulas keep` writes every cell as it is, and
// `mirac analyze --scores` reads scores.csv back to the same results.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "interpreter/model/data.hpp"
#include "runtime/text/csv_cells.hpp"
#include "tests/cli/hostile_provider.hpp"
#include "tests/cli/mirac_binary.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// OWASP's payloads as seed ids and as questions (which are the prompts of the `plain` tone,
// which the model echoes as its answers). `#k` numbers the seed for the judge.
const std::vector<std::string> kSeedIds = {"=HYPERLINK(\"http://x\",\"y\")", "=cmd|' /C calc'!A0", "@SUM(A1)", "+1",
                                           "-1+2", "-7", "'=quoted", "plain"};
const std::vector<std::string> kQuestions = {"=HYPERLINK(\"http://x\",\"y\") #0", "=cmd|' /C calc'!A0 #1", "@SUM(A1) #2",
                                             "+1 #3", "-1+2 #4", "\tleading tab #5", "\rleading CR #6", "-0.5 #7"};
const std::string kRationale = "=HYPERLINK(\"http://r\",\"why\")";

// The judge scores 3, but 2 for the warm prompts of seeds 0 to 3: warmth = C[warm] - C[plain]
// is then -0.5.
std::optional<int> score(const std::string& user) {
  const auto hash = user.find(" #");
  const int seed = hash == std::string::npos ? 0 : user[hash + 2] - '0';
  return user.find("Kindly: ") != std::string::npos && seed < 4 ? 2 : 3;
}

void write_spec(const fs::path& dir, const std::string& base_url) {
  std::ofstream(dir / "formulas.audit")
      << "audit formulas { title \"formulas\" }\n"
         "provider canned { protocol openai_chat base_url \"" << base_url << "\" key_env \"\" }\n"
         "factor tone { plain warm }\n"
         "seeds from jsonl(\"seeds.jsonl\") { id = seed_id question = question }\n"
         "text tone { plain \"\" warm \"Kindly: \" }\n"
         "prompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
         "model gpt = canned(\"gpt-1\")\n"
         "rubric r { scale 1..5 worst low dim C \"Completeness\" { describe \"How complete.\" } }\n"
         "judge grader = canned(\"grader-1\") { rubric r }\n"
         "contrast warmth = C[warm] - C[plain]\n";
  std::ofstream seeds(dir / "seeds.jsonl");
  for (std::size_t i = 0; i < kSeedIds.size(); ++i)
    seeds << Json{{"seed_id", kSeedIds[i]}, {"question", kQuestions[i]}}.dump() << "\n";
}

bool starts_formula(const std::string& cell) {
  return !cell.empty() && std::string("=+-@\t\r").find(cell[0]) != std::string::npos;
}

// A CSV file as mirac's own RFC 4180 reader reads it.
std::shared_ptr<const mirac::DataTable> read_csv(const fs::path& path) {
  mirac::SourceManager sources;
  mirac::Diagnostics diags;
  auto table = mirac::read_table(path, path.string(), "csv", {}, sources, diags);
  REQUIRE(table);
  CHECK_FALSE(diags.has_errors());
  return table;
}

std::string cell(const mirac::DataRow& row, const std::string& column) { return row.fields.at(column).get<std::string>(); }

std::vector<Json> jsonl(const std::string& text) {
  std::vector<Json> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(Json::parse(line));
  return rows;
}

std::size_t count_lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

bool has_number_cell(const std::string& csv, const std::string& number) {
  return std::regex_search(csv, std::regex("(^|,)" + std::regex_replace(number, std::regex(R"([.+])"), R"(\$&)") + "(,|\r?\n)"));
}

}  // namespace

TEST_CASE("CSV files for people hold formula-like text behind a '; numbers stay numbers; keep writes it as is") {
  mirac::test::TempDir tmp("csv_formulas");
  mirac::test::HostileProvider model([](const std::string& prompt) { return prompt; },
                                     {.model = "grader-1", .rationale = kRationale, .score = score});
  write_spec(tmp.dir, model.base_url());
  const std::string spec = tmp.path("formulas.audit"), store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  auto exported = mirac::test::invoke({"export", spec, "responses", "--store", store});
  REQUIRE(exported.code == 0);
  const std::vector<Json> answers = jsonl(exported.out);
  REQUIRE(answers.size() == 16);

  SUBCASE("export responses: text cells neutralised, read back by csv_text_read as exported in JSONL") {
    const fs::path path = tmp.dir / "answers.csv";
    auto csv = mirac::test::invoke({"export", spec, "responses", "--format", "csv", "--store", store, "-o", path.string()});
    INFO(csv.err);
    REQUIRE(csv.code == 0);
    const std::string text = mirac::test::read_text(path);
    CHECK(text.find("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\") #0\"") != std::string::npos);
    CHECK(text.find("\"'=cmd|' /C calc'!A0 #1\"") != std::string::npos);
    CHECK(text.find(",\"'@SUM(A1) #2\",") != std::string::npos);
    CHECK(text.find(",\"'+1 #3\",") != std::string::npos);
    CHECK(text.find(",\"'-1+2 #4\",") != std::string::npos);
    CHECK(text.find(",\"'\tleading tab #5\",") != std::string::npos);
    CHECK(text.find(",\"'\rleading CR #6\",") != std::string::npos);
    CHECK(text.find(",\"'-7\",") != std::string::npos);        // a seed id
    CHECK(text.find(",\"''=quoted\",") != std::string::npos);  // one ' more, so reading gives '=quoted
    auto table = read_csv(path);
    REQUIRE(table->rows.size() == answers.size());
    for (std::size_t r = 0; r < answers.size(); ++r) {
      for (const auto& column : table->columns) {
        const std::string value = cell(table->rows[r], column);
        CAPTURE(column);
        CAPTURE(value);
        CHECK_FALSE(starts_formula(value));
        const Json& expected = answers[r][column];
        if (expected.is_string()) CHECK(mirac::csv_text_read(value) == expected.get<std::string>());
        else if (expected.is_number()) CHECK(Json::parse(value) == expected);  // a number, as written
      }
    }
  }

  SUBCASE("--csv-formulas keep: every cell as it is, for programs") {
    const fs::path path = tmp.dir / "kept.csv";
    auto csv = mirac::test::invoke(
        {"export", spec, "responses", "--format", "csv", "--csv-formulas", "keep", "--store", store, "-o", path.string()});
    INFO(csv.err);
    REQUIRE(csv.code == 0);
    const std::string text = mirac::test::read_text(path);
    CHECK(text.find(",\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\") #0\",") != std::string::npos);
    CHECK(text.find(",@SUM(A1) #2,") != std::string::npos);
    CHECK(text.find(",-7,") != std::string::npos);
    auto table = read_csv(path);
    REQUIRE(table->rows.size() == answers.size());
    for (std::size_t r = 0; r < answers.size(); ++r)
      for (const char* column : {"prompt_id", "seed", "text"})
        CHECK(cell(table->rows[r], column) == answers[r][column].get<std::string>());  // no ' of mirac's
    auto json = mirac::test::invoke({"export", spec, "responses", "--csv-formulas", "keep", "--store", store});
    CHECK(json.code == 2);
    CHECK(json.err.find("--csv-formulas applies to --format csv only") != std::string::npos);
    auto wrong = mirac::test::invoke({"export", spec, "responses", "--format", "csv", "--csv-formulas", "drop", "--store", store});
    CHECK(wrong.code == 2);
  }

  SUBCASE("export scores: rationales neutralised, scores numbers") {
    auto csv = mirac::test::invoke({"export", spec, "scores", "--format", "csv", "--store", store});
    INFO(csv.err);
    REQUIRE(csv.code == 0);
    CHECK(count_lines(csv.out) == 17);
    CHECK(csv.out.find(",\"'=HYPERLINK(\"\"http://r\"\",\"\"why\"\")\",") != std::string::npos);
    CHECK(csv.out.find(",scored,2,\"'=HYPERLINK(") != std::string::npos);  // the score a number, as is
    CHECK(csv.out.find(",scored,3,\"'=HYPERLINK(") != std::string::npos);
  }

  SUBCASE("scores.csv and the results tables: seed ids neutralised, -0.5 a number; analyze --scores reads it back") {
    const fs::path results = fs::path(store) / "results";
    const std::string scores = mirac::test::read_text(results / "scores.csv");
    CHECK(scores.find("\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",gpt,") != std::string::npos);
    CHECK(scores.find("\n\"'-7\",gpt,") != std::string::npos);
    CHECK(scores.find("\n\"'+1\",gpt,") != std::string::npos);
    const std::string contrasts = mirac::test::read_text(results / "contrasts.csv");
    INFO(contrasts);
    CHECK(has_number_cell(contrasts, "-0.5"));
    const std::string out = tmp.path("again");
    auto again = mirac::test::invoke({"analyze", spec, "--scores", (results / "scores.csv").string(), "--out", out,
                                      "--resamples", "100"});
    INFO(again.out << again.err);
    REQUIRE(again.code == 0);
    const Json first = Json::parse(mirac::test::read_text(results / "results.json"));
    const Json second = Json::parse(mirac::test::read_text(fs::path(out) / "results.json"));
    CHECK(second["contrasts"][0]["groups"][0]["estimate"] == -0.5);
    CHECK(second["contrasts"] == first["contrasts"]);
    CHECK(second["manifest"]["scores"]["rows"] == 16);
  }
}
