// annotation_scale_test.cpp: the annotation page of a rubric whose OVERALL dimension scores
// 1..10 beside D1 and D2 on the rubric's 1..5 (tests/cli/dim_scale_run.audit, issue 30): in
// headless Chromium each dimension offers the buttons of its own scale, no more, no fewer.
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "tests/browser/chromium.hpp"
#include "tests/cli/mirac_binary.hpp"

namespace {

namespace fs = std::filesystem;
using browser_test::run_chromium;

// The score buttons the page shows for dimension `dim`, in the order shown.
std::vector<std::string> buttons(const std::string& dom, const std::string& dim) {
  std::vector<std::string> values;
  const std::string open = "data-dim=\"" + dim + "\" data-value=\"";
  for (std::size_t at = dom.find(open); at != std::string::npos; at = dom.find(open, at + 1)) {
    const std::size_t begin = at + open.size();
    values.push_back(dom.substr(begin, dom.find('"', begin) - begin));
  }
  return values;
}

std::vector<std::string> range(int lo, int hi) {
  std::vector<std::string> v;
  for (int s = lo; s <= hi; ++s) v.push_back(std::to_string(s));
  return v;
}

}  // namespace

TEST_CASE("the annotation page offers each dimension its own scale: 1..10 for OVERALL, 1..5 for D1 and D2") {
  mirac::test::TempDir tmp("annotation_scale");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = (fs::path(root) / "tests/cli/dim_scale_run.audit").string();
  const std::string store = tmp.path("run"), sample_dir = tmp.path("sample");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--answers-only"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  auto sample = mirac::test::invoke({"annotate", "sample", spec, "--offline", "--store", store, "--n", "2", "-o", sample_dir});
  INFO(sample.out << sample.err);
  REQUIRE(sample.code == 0);

  std::string log;
  const fs::path page = fs::path(sample_dir) / "annotate.html";
  const std::string dom = run_chromium("file://" + page.string(), "--dump-dom --virtual-time-budget=3000", tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(buttons(dom, "D1") == range(1, 5));
  CHECK(buttons(dom, "D2") == range(1, 5));
  CHECK(buttons(dom, "OVERALL") == range(1, 10));
}
