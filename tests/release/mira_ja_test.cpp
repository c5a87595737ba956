// mira_ja_test.cpp: examples/mira-ja, MIRA with Japanese written as a variant of
// specs/mira.audit, compiles to 60 x 12 x 9 = 6,480 prompts with the 4,320 of the release
// among them unchanged. The release is read at run time (--data), the Japanese data from
// the example's own folder.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "interpreter/driver.hpp"

namespace fs = std::filesystem;

namespace {

std::string source(const std::string& relative) { return std::string(std::getenv("MIRAC_SOURCE_DIR")) + "/" + relative; }

std::string release_dir() {
  const char* dir = std::getenv("MIRAC_RELEASE_DIR");
  return dir && fs::exists(fs::path(dir) / "prompts_all.jsonl") ? dir : "";
}

}  // namespace

TEST_CASE("the Japanese variant adds 2,160 prompts and keeps the 4,320 released ones") {
  const std::string release = release_dir();
  if (release.empty()) {
    WARN_MESSAGE(false, "../shared/mira-release not found: the Japanese variant not compiled");
    return;
  }
  std::ostringstream out, err;
  int code = mirac::run_cli({"prompts", source("examples/mira-ja/mira_ja.audit"), "--data", release}, out, err);
  INFO(err.str());
  REQUIRE(code == 0);
  std::map<std::string, nlohmann::json> ours;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    ours[j["id"].get<std::string>()] = j;
  }
  CHECK(ours.size() == 6480);
  std::ifstream released(fs::path(release) / "prompts_all.jsonl");
  std::size_t same = 0, released_count = 0;
  for (std::string line; std::getline(released, line);) {
    auto r = nlohmann::json::parse(line);
    ++released_count;
    auto it = ours.find(r["prompt_id"].get<std::string>());
    if (it != ours.end() && it->second["text"] == r["final_prompt"]) ++same;
  }
  CHECK(released_count == 4320);
  CHECK(same == 4320);
  std::size_t japanese = 0;
  for (const auto& [id, p] : ours) japanese += p["language"] == "ja" ? 1 : 0;
  CHECK(japanese == 2160);
  // Skeleton, then the authority of condition A, then the rewrite of the cell.
  CHECK(ours.at("7_ja_low_colloquial_S2_A")["text"] ==
        "こんにちは。ひとつお聞きしたいことがあります。日本糖尿病・妊娠学会のガイドラインによると、"
        "妊娠中の糖尿病の検査で、朝ごはん前の血糖がいくつだとアウトなの？");
}

TEST_CASE("the Japanese variant's contrasts and flags cover Japanese without being edited") {
  const std::string release = release_dir();
  if (release.empty()) return;
  mirac::CheckOptions options;
  options.data_root = release;
  auto c = mirac::compile(source("examples/mira-ja/mira_ja.audit"), options);
  std::ostringstream diags;
  c->diags.print(diags, c->sources);
  INFO(diags.str());
  REQUIRE(c->ok());
  std::vector<std::string> contrasts;
  for (const auto& k : c->spec.contrasts) contrasts.push_back(k.name.name);
  CHECK(contrasts == std::vector<std::string>{"DTI_core_zh", "DTI_core_ja", "DTI_lang_zh", "DTI_lang_ja", "DTI_hls"});
  CHECK(c->spec.contrasts[3].definition == "D3[ja, formal, high] - D3[en, formal, high]");
  for (const auto& f : c->spec.flags) {
    if (f.name.name != "LANG_FLAG") continue;
    REQUIRE(f.pairings.size() == 2);
    CHECK(f.pairings[0].a.name == "zh");
    CHECK(f.pairings[1].a.name == "ja");
    CHECK(f.pairings[1].b.name == "en");
  }
  // Every change is explained at the variant, naming the base's place.
  std::ostringstream notes;
  c->merged.explanations.print(notes, c->sources);
  CHECK(notes.str().find("mira_ja.audit:17:15: note: extends the base's factor 'language': adds level ja") !=
        std::string::npos);
  CHECK(notes.str().find("note: extended: " + source("specs/mira.audit") + ":21:8") != std::string::npos);
  // The merged spec is the base's, with Japanese.
  std::ostringstream merged, merged_err;
  REQUIRE(mirac::run_cli({"fmt", "--show", "merged", source("examples/mira-ja/mira_ja.audit")}, merged, merged_err) == 0);
  CHECK(merged.str().find("factor language { zh \"Chinese\" en \"English\" ja \"Japanese\" }") != std::string::npos);
  CHECK(merged.str().find("contrast DTI_lang = D3[each language, formal, high]") != std::string::npos);
}

TEST_CASE("the Japanese variant's report is the base's: Figure 2's title counts the cells with {cells}") {
  const std::string release = release_dir();
  if (release.empty()) return;
  mirac::CheckOptions options;
  options.data_root = release;
  auto base = mirac::compile(source("specs/mira.audit"), options);
  auto variant = mirac::compile(source("examples/mira-ja/mira_ja.audit"), options);
  REQUIRE(base->ok());
  REQUIRE(variant->ok());
  const auto& before = base->spec.reports.at(0).items;
  const auto& after = variant->spec.reports.at(0).items;
  REQUIRE(after.size() == before.size());
  auto title = [](const mirac::ast::ReportItem& item) {
    for (const auto& o : item.options)
      if (o.key.name == "title") return std::get<mirac::ast::StringLit>(o.values.at(0).value.node).value;
    return std::string();
  };
  for (std::size_t i = 0; i < after.size(); ++i) {
    const std::string name = after[i].name ? after[i].name->name : "";
    CAPTURE(name);
    REQUIRE((before[i].name ? before[i].name->name : "") == name);
    CHECK(title(after[i]) == title(before[i]));
    // No count in words that a variant with more levels would make false (8 cells here, 12 there).
    if (name == "fig2") CHECK(title(after[i]).find("across the {cells} user-side cells") != std::string::npos);
  }
}
