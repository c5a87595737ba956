// fmt_tree_test.cpp: every .audit file of the source tree is in the layout `mirac fmt`
// writes, as the real binary's `fmt --check` sees it (docs/cli.md). A file that does not
// parse passes only when it is broken on purpose: a golden syntax-error case
// (tests/golden/syntax/) or one listed in kBrokenOnPurpose.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "mirac_binary.hpp"

namespace fs = std::filesystem;

namespace {

// Relative to the source dir, with '/'. Each is there for what the parser does with it.
const std::set<std::string> kBrokenOnPurpose = {
    "tests/fuzz/corpus/errors.audit",  // a fuzz seed: the error paths of the parser
};
const std::string kBrokenFolder = "tests/golden/syntax/";  // golden syntax errors

bool broken_on_purpose(const std::string& relative) {
  return kBrokenOnPurpose.count(relative) > 0 || relative.rfind(kBrokenFolder, 0) == 0;
}

// What is not the project's own: version control, npm packages, build trees (configured
// ones hold a CMakeCache.txt; /build*/ and /runs/ are what .gitignore leaves out).
bool skipped_dir(const fs::path& dir, bool top_level) {
  const std::string name = dir.filename().string();
  if (name == ".git" || name == "node_modules" || fs::exists(dir / "CMakeCache.txt")) return true;
  return top_level && (name.rfind("build", 0) == 0 || name == "runs");
}

std::vector<fs::path> audit_files(const fs::path& root) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && skipped_dir(it->path(), it.depth() == 0)) it.disable_recursion_pending();
    else if (it->is_regular_file() && it->path().extension() == ".audit") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

// The lines fmt would change: "-N text" for line N of the file, "+N text" for line N of
// fmt's output (a longest-common-subsequence diff; the files are small).
std::string line_diff(const std::string& before, const std::string& after) {
  const auto a = lines_of(before), b = lines_of(after);
  std::vector<std::vector<int>> common(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
  std::vector<std::string> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      ++i;
      ++j;
    } else if (j == b.size() || (i < a.size() && common[i + 1][j] >= common[i][j + 1])) {
      out.push_back("-" + std::to_string(i + 1) + " " + a[i]);
      ++i;
    } else {
      out.push_back("+" + std::to_string(j + 1) + " " + b[j]);
      ++j;
    }
  }
  if (out.empty()) return "  (the lines are the same: a byte order mark, \\r\\n line ends or the final newline differ)\n";
  constexpr std::size_t kShown = 40;
  std::string text;
  for (std::size_t k = 0; k < std::min(out.size(), kShown); ++k) text += "  " + out[k] + "\n";
  if (out.size() > kShown) text += "  ... and " + std::to_string(out.size() - kShown) + " more changed lines\n";
  return text;
}

struct TreeReport {
  std::vector<std::string> problems;  ///< one message per file that fails
  int canonical = 0, broken_on_purpose = 0;
};

// Runs `mirac fmt --check` on every .audit file under `root`; for a file it rejects, `mirac
// fmt` says whether it parses (exit 0 with the canonical text) or not (exit 1).
TreeReport check_tree(const fs::path& root) {
  TreeReport report;
  std::set<std::string> seen;
  for (const fs::path& file : audit_files(root)) {
    const std::string relative = fs::relative(file, root).generic_string();
    seen.insert(relative);
    if (kBrokenOnPurpose.count(relative) == 0 && mirac::test::invoke({"fmt", "--check", file.string()}).code == 0) {
      ++report.canonical;
      continue;
    }
    // --check exits 1 for both; printing tells a file that parses from one that does not.
    const auto printed = mirac::test::invoke({"fmt", file.string()});
    if (printed.code != 0) {
      if (broken_on_purpose(relative)) ++report.broken_on_purpose;
      else report.problems.push_back(relative + ": does not parse (mirac fmt exits " + std::to_string(printed.code) +
                                     ")\n" + printed.err);
      continue;
    }
    if (kBrokenOnPurpose.count(relative) > 0) {
      report.problems.push_back(relative + ": parses, but is listed as broken on purpose (take it off kBrokenOnPurpose)");
      continue;
    }
    report.problems.push_back(relative + ": not in canonical layout (run mirac fmt -i " + relative + "):\n" +
                              line_diff(mirac::test::read_text(file), printed.out));
  }
  for (const auto& listed : kBrokenOnPurpose)
    if (fs::exists(root / "tests") && seen.count(listed) == 0)
      report.problems.push_back(listed + ": listed as broken on purpose, but there is no such file");
  return report;
}

}  // namespace

TEST_CASE("every .audit file of the source tree is in canonical layout (mirac fmt --check)") {
  const char* source_dir = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(source_dir != nullptr);
  const TreeReport report = check_tree(source_dir);
  for (const auto& problem : report.problems) FAIL_CHECK(problem);
  MESSAGE(report.canonical << " files canonical, " << report.broken_on_purpose << " broken on purpose");
  CHECK(report.canonical >= 100);  // the walk found the specs, stdlib, examples and tests
  CHECK(report.broken_on_purpose >= 30);
}

TEST_CASE("the tree check fails on a file out of layout or broken by accident, not on what it skips") {
  mirac::test::TempDir tree("fmt_tree");
  const std::string canonical = "factor tone { plain warm }\n";
  const std::string compact = "factor tone { plain warm }\ndesign tone\n";  // fmt puts a blank line between
  const std::string broken = "factor tone { plain warm\n";
  fs::create_directories(tree.dir / "specs" / "more");
  fs::create_directories(tree.dir / "tests" / "golden" / "syntax");
  fs::create_directories(tree.dir / "tests" / "fuzz" / "corpus");
  tree.write("specs/ok.audit", canonical);
  tree.write("specs/more/compact.audit", compact);
  tree.write("specs/broken.audit", broken);
  tree.write("tests/golden/syntax/error_kept.audit", broken);
  tree.write("tests/golden/syntax/parses_but_compact.audit", compact);
  tree.write("tests/fuzz/corpus/errors.audit", broken);
  // Not the project's: skipped however they look.
  for (const char* dir : {"build", "build-fuzz", "web/node_modules/pkg", "out/tree", ".git"}) {
    fs::create_directories(tree.dir / dir);
    tree.write(std::string(dir) + "/compact.audit", compact);
  }
  tree.write("out/tree/CMakeCache.txt", "");

  const TreeReport report = check_tree(tree.dir);
  CHECK(report.canonical == 1);
  CHECK(report.broken_on_purpose == 2);
  REQUIRE(report.problems.size() == 3);
  CHECK(report.problems[0].rfind("specs/broken.audit: does not parse", 0) == 0);
  CHECK(report.problems[0].find("expected '}'") != std::string::npos);
  CHECK(report.problems[1] ==
        "specs/more/compact.audit: not in canonical layout (run mirac fmt -i specs/more/compact.audit):\n  +2 \n");
  CHECK(report.problems[2].rfind("tests/golden/syntax/parses_but_compact.audit: not in canonical layout", 0) == 0);
}

TEST_CASE("the diff shows the lines fmt changes, numbered in the file and in fmt's output") {
  CHECK(line_diff("a\nb  c\nd\n", "a\nb c\nd\n") == "  -2 b  c\n  +2 b c\n");
  CHECK(line_diff("x\r\n", "x\n") == "  -1 x\r\n  +1 x\n");
  CHECK(line_diff("x", "x\n").find("the final newline") != std::string::npos);
}
