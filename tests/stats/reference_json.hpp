// reference_json.hpp: loads the pinned reference values under tests/stats/reference/.
#pragma once

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mirac::stats::testing {

/// Reads $MIRAC_SOURCE_DIR/tests/stats/reference/<file> (CTest sets MIRAC_SOURCE_DIR).
inline nlohmann::json load_reference(const std::string& file) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  const std::string dir = root ? std::string(root) : std::string(".");
  const std::string path = dir + "/tests/stats/reference/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("load_reference: cannot open " + path + " (is MIRAC_SOURCE_DIR set?)");
  return nlohmann::json::parse(in);
}

inline std::vector<double> doubles(const nlohmann::json& j) { return j.get<std::vector<double>>(); }

/// |actual - expected| <= rel * |expected| (or <= rel when expected == 0).
inline bool close_rel(double actual, double expected, double rel) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::fabs(actual - expected) <= rel * std::max(std::fabs(expected), 1e-300) ||
         (expected == 0.0 && std::fabs(actual) <= rel);
}

}  // namespace mirac::stats::testing
