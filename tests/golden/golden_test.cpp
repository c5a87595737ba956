// golden_test.cpp: every tests/golden/<category>/<name>.audit is run through the CLI and
// its output compared with <name>.golden (stdout, then stderr, then the exit code).
//
// The command is `mirac check <name>.audit` unless the file's first line says otherwise:
//   // args: plan --json
// A name starting with `error` must exit 1, any other must exit 0.
// MIRAC_UPDATE_GOLDEN=1 rewrites the .golden files instead of comparing (then review the diff).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli/cli.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Runs one case from inside its folder, so that paths print as written in the golden.
std::string run_case(const fs::path& spec, int& code) {
  std::string first_line = read_file(spec).substr(0, read_file(spec).find('\n'));
  std::vector<std::string> args = {"check"};
  const std::string marker = "// args:";
  if (first_line.rfind(marker, 0) == 0) args = split_words(first_line.substr(marker.size()));
  args.push_back(spec.filename().string());
  fs::path previous = fs::current_path();
  fs::current_path(spec.parent_path());
  std::ostringstream out, err;
  code = mirac::run_cli(args, out, err);
  fs::current_path(previous);
  std::string result = out.str();
  if (!err.str().empty()) result += "--- stderr\n" + err.str();
  result += "--- exit " + std::to_string(code) + "\n";
  return result;
}

}  // namespace

TEST_CASE("golden files") {
  const char* source_dir = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(source_dir != nullptr);
  bool update = std::getenv("MIRAC_UPDATE_GOLDEN") != nullptr;
  fs::path root = fs::path(source_dir) / "tests" / "golden";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.path().extension() == ".audit" && entry.path().parent_path().filename() != "modules") cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  CHECK(cases.size() >= 40);
  for (const auto& spec : cases) {
    std::string name = spec.stem().string();
    CAPTURE(spec.string());
    int code = 0;
    std::string actual = run_case(fs::absolute(spec), code);
    fs::path golden = spec;
    golden.replace_extension(".golden");
    if (update) {
      std::ofstream(golden, std::ios::binary) << actual;
      continue;
    }
    CHECK_MESSAGE(fs::exists(golden), "missing golden file; run with MIRAC_UPDATE_GOLDEN=1");
    CHECK(actual == read_file(golden));
    CHECK(code == (name.rfind("error", 0) == 0 ? 1 : 0));
  }
}
