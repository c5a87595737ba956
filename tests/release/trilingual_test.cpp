// trilingual_test.cpp: examples/mira-trilingual compiles once the Spanish files exist. The
// test makes a data root from the release (linked, not copied into the repository) plus
// stand-in Spanish files it writes itself.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"

namespace fs = std::filesystem;

TEST_CASE("the trilingual example adds Spanish and keeps the released prompts") {
  const char* release_env = std::getenv("MIRAC_RELEASE_DIR");
  if (!release_env || !fs::exists(fs::path(release_env) / "prompts_all.jsonl")) {
    WARN_MESSAGE(false, "../shared/mira-release not found: trilingual example not compiled");
    return;
  }
  fs::path release = release_env;
  fs::path root = fs::temp_directory_path() / "mirac_trilingual_test";
  fs::remove_all(root);
  fs::create_directories(root);
  for (const auto& entry : fs::directory_iterator(release)) fs::create_symlink(entry.path(), root / entry.path().filename());

  // Stand-in Spanish data: the real files are translations a user makes and reviews.
  std::vector<std::string> seeds;
  {
    std::ifstream csv(release / "seedfinal.csv");
    std::string line;
    std::getline(csv, line);
    while (std::getline(csv, line)) seeds.push_back(line.substr(0, line.find(',')));
  }
  REQUIRE(seeds.size() == 60);
  {
    std::ofstream es(root / "seeds_es.csv");
    es << "seed_id,question_es,authority_es\n";
    for (const auto& s : seeds) es << s << ",Pregunta " << s << ",Autoridad " << s << "\n";
  }
  {
    std::ofstream lock(root / "rewrites_es.jsonl");
    for (const auto& s : seeds)
      for (const char* hls : {"high", "low"})
        for (const char* reg : {"formal", "colloquial"})
          lock << nlohmann::json{{"seed", s}, {"language", "es"}, {"hls", hls}, {"register", reg},
                                 {"text", "Reescrita " + s + " " + hls + " " + reg}}.dump() << "\n";
  }

  std::ostringstream out, err;
  std::string spec = std::string(std::getenv("MIRAC_SOURCE_DIR")) + "/examples/mira-trilingual/mira3.audit";
  int code = mirac::run_cli({"prompts", spec, "--data", root.string()}, out, err);
  INFO(err.str());
  REQUIRE(code == 0);
  std::map<std::string, nlohmann::json> ours;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    ours[j["id"].get<std::string>()] = j;
  }
  CHECK(ours.size() == 6480);
  std::ifstream released(release / "prompts_all.jsonl");
  std::size_t same = 0;
  for (std::string line; std::getline(released, line);) {
    auto r = nlohmann::json::parse(line);
    auto it = ours.find(r["prompt_id"].get<std::string>());
    if (it != ours.end() && it->second["text"] == r["final_prompt"]) ++same;
  }
  CHECK(same == 4320);
  CHECK(ours.at("7_es_low_colloquial_S2_A")["text"] ==
        "Hola, quisiera hacerle una consulta: Según las guías de Autoridad 7, reescrita 7 low colloquial");
  CHECK(ours.at("7_es_high_formal_S1_B")["text"] == "Reescrita 7 high formal");
  fs::remove_all(root);
}
