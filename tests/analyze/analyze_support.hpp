// analyze_support.hpp: helpers shared by the analyze tests: paths, running `mirac analyze` into
// a fresh directory, reading the reference JSON, tolerances.
#pragma once

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"

namespace analyze_test {

inline std::filesystem::path source_dir() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  return root ? std::filesystem::path(root) : std::filesystem::current_path();
}
inline std::filesystem::path reference_dir() { return source_dir() / "tests/analyze/reference"; }

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return nlohmann::json::parse(in);
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh, empty directory under the system temp directory.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("mirac_analyze_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

struct Run {
  int code = -1;
  std::string out, err;
  nlohmann::json results;
  std::filesystem::path dir;
};

inline Run run_analyze(const std::filesystem::path& spec, const std::filesystem::path& scores, const std::filesystem::path& dir,
                       int resamples = 200, std::uint64_t seed = 7, const std::string& data = "") {
  std::ostringstream out, err;
  Run r;
  r.dir = dir;
  std::vector<std::string> args = {"analyze", spec.string(), "--out", dir.string(), "--resamples",
                                   std::to_string(resamples), "--seed", std::to_string(seed)};
  if (!scores.empty()) args.insert(args.end(), {"--scores", scores.string()});
  if (!data.empty()) args.insert(args.end(), {"--data", data});
  r.code = mirac::run_cli(args, out, err);
  r.out = out.str();
  r.err = err.str();
  if (std::filesystem::exists(dir / "results.json")) r.results = read_json(dir / "results.json");
  return r;
}

/// |a - e| <= rel * |e| (NaN equals NaN; e == 0 needs |a| <= rel).
inline bool close_rel(double a, double e, double rel) {
  if (std::isnan(e)) return std::isnan(a);
  return std::fabs(a - e) <= rel * std::max(std::fabs(e), 1e-300) || (e == 0.0 && std::fabs(a) <= rel);
}

}  // namespace analyze_test
