// layers_test.cpp: the layers of docs/architecture.md, checked on the sources: every
// `#include "..."` of a project file names a unit its own unit may depend on. The CMake
// targets (one per layer, each linking only those below) keep calls from going upward;
// this keeps headers from doing so, and the finer order inside each layer.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path source_dir() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  return root ? fs::path(root) : fs::current_path();
}

const std::vector<std::string> kRuntime = {"runtime/"};
const std::vector<std::string> kLanguage = {"grammar/", "interpreter/"};

// What each unit (a folder, or one file) may include besides itself. A name ending in '/'
// stands for everything under it. Listed bottom-up, as docs/architecture.md draws them.
std::map<std::string, std::vector<std::string>> allowed() {
  std::map<std::string, std::vector<std::string>> a;
  auto with = [](std::vector<std::string> v, const std::vector<std::string>& more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  // I/O and math: nothing here knows of specs.
  for (const char* leaf : {"runtime/model_call.hpp", "runtime/http/", "runtime/json/", "runtime/stats/",
                           "runtime/judge/", "runtime/text/", "runtime/hash/"})
    a[leaf] = {};
  // The report's pages and CSV files put untrusted text through runtime/text's escapers.
  a["runtime/report/"] = {"runtime/text/"};
  // A batch in the store keeps its requests as the calls they are (batch_store.hpp); the
  // store's fingerprint digests its annotations (fingerprint.hpp).
  a["runtime/store/"] = {"runtime/json/", "runtime/model_call.hpp", "runtime/hash/"};
  // The providers' token estimate and the offline model read text by code point (text/utf8.hpp).
  a["runtime/providers/"] = {"runtime/http/", "runtime/json/", "runtime/model_call.hpp", "runtime/text/"};
  a["runtime/offline/"] = {"runtime/http/", "runtime/judge/", "runtime/model_call.hpp", "runtime/text/"};
  a["runtime/scheduler/"] = {"runtime/http/", "runtime/providers/", "runtime/store/", "runtime/offline/",
                             "runtime/model_call.hpp"};
  // The language: a spec into a plan of requests.
  a["grammar/"] = {};
  // The interpreter in its phases, each over those before it (docs/architecture.md): the
  // spec as data, parsed, merged with its modules and bases, its expressions evaluated,
  // checked, planned into requests, its scores read, its judges' requests, the plan's
  // summary, the canonical layout, the driver that runs the phases, and rewrites over it.
  const std::vector<std::string> compilation = {"interpreter/model/", "interpreter/parse/", "interpreter/merge/",
                                           "interpreter/eval/",  "interpreter/check/", "interpreter/plan/",
                                           "interpreter/scores/", "interpreter/judge/", "interpreter/summary/",
                                           "interpreter/format/", "interpreter/driver.", "interpreter/rewrite/"};
  for (std::size_t i = 0; i < compilation.size(); ++i)
    a[compilation[i]] =
        with(with({"grammar/"}, kRuntime), std::vector<std::string>(compilation.begin(), compilation.begin() + i));
  a["interpreter/"] = {};  // nothing outside the phases' folders
  // The engine: executes a plan.
  const auto below = with(kLanguage, kRuntime);
  a["engine/session."] = below;
  a["engine/selection."] = with({"engine/session."}, below);
  a["engine/send/"] = with({"engine/session.", "engine/selection."}, below);
  a["engine/judge/"] = with({"engine/session.", "engine/selection.", "engine/send/"}, below);
  a["engine/analyze/"] = with({"engine/session.", "engine/selection.", "engine/send/", "engine/judge/"}, below);
  a["engine/report/"] = with({"engine/session.", "engine/analyze/"}, below);
  const auto phases = with({"engine/session.", "engine/selection.", "engine/send/", "engine/judge/"}, below);
  a["engine/status/"] = phases;
  a["engine/transfer/"] = phases;
  a["engine/rewrite/"] = phases;
  a["engine/annotate/"] = with({"engine/analyze/"}, phases);
  a["engine/view/"] = phases;  // mirac view: the answers and scores in the store, browsed
  // mirac simulate: analyses of drawn scores, written as a report
  a["engine/simulate/"] = with({"engine/session.", "engine/analyze/", "engine/report/"}, below);
  a["engine/audit."] = with({"engine/"}, below);
  // The command line, and the embedding API beside it, over everything.
  a["cli/"] = with({"engine/"}, below);
  a["mirac/"] = with({"engine/"}, below);
  return a;
}

// The unit a path belongs to: the longest key of `units` it starts with.
std::string unit_of(const std::string& path, const std::map<std::string, std::vector<std::string>>& units) {
  std::string best;
  for (const auto& [unit, deps] : units)
    if (path.rfind(unit, 0) == 0 && unit.size() > best.size()) best = unit;
  return best;
}

bool permits(const std::vector<std::string>& deps, const std::string& included) {
  for (const auto& d : deps)
    if (included.rfind(d, 0) == 0) return true;
  return false;
}

std::vector<std::string> sources() {
  std::vector<std::string> out;
  for (const char* dir : {"grammar", "interpreter", "runtime", "engine", "cli", "mirac"})
    for (const auto& e : fs::recursive_directory_iterator(source_dir() / dir)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp"))
        out.push_back(fs::relative(e.path(), source_dir()).generic_string());
    }
  return out;
}

}  // namespace

TEST_CASE("every include runs down the layers") {
  const auto units = allowed();
  const std::regex include(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::size_t checked = 0;
  for (const std::string& file : sources()) {
    const std::string unit = unit_of(file, units);
    INFO(file);
    REQUIRE_MESSAGE(!unit.empty(), "a folder docs/architecture.md does not place: add it to the table");
    std::ifstream in(source_dir() / file);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string included = m[1];
      const std::string target = unit_of(included, units);
      if (target.empty()) continue;  // a header of the same folder by its bare name, or a test helper
      ++checked;
      INFO(included);
      CHECK_MESSAGE((target == unit || permits(units.at(unit), included)), "an include runs against the layers");
    }
  }
  CHECK(checked > 200);  // the walk found the sources
}

TEST_CASE("the layer table catches an upward include") {
  const auto units = allowed();
  CHECK_FALSE(permits(units.at("runtime/stats/"), "interpreter/model/spec.hpp"));
  CHECK_FALSE(permits(units.at("interpreter/"), "engine/audit.hpp"));
  CHECK_FALSE(permits(units.at("engine/analyze/"), "engine/audit.hpp"));
  CHECK_FALSE(permits(units.at("runtime/scheduler/"), "runtime/stats/lmm.hpp"));
  CHECK(permits(units.at("cli/"), "engine/audit.hpp"));
  CHECK_FALSE(permits(units.at("mirac/"), "cli/cli.hpp"));
  CHECK_FALSE(permits(units.at("engine/audit."), "mirac/mirac.hpp"));
  CHECK(unit_of("engine/session.hpp", units) == "engine/session.");
}

TEST_CASE("each command file of the CLI stays a thin shell") {
  for (const std::string& file : sources()) {
    if (file.rfind("cli/", 0) != 0) continue;
    std::ifstream in(source_dir() / file);
    std::size_t lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    INFO(file);
    CHECK(lines <= 200);
  }
}
