// simulate_support.hpp: what the simulate tests share: their fixtures' paths and JSON lines.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simulate_test {

/// tests/simulate/fixtures/NAME, under $MIRAC_SOURCE_DIR (else the working directory).
inline std::filesystem::path fixture(const std::string& name) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  return std::filesystem::path(root ? root : ".") / "tests/simulate/fixtures" / name;
}

/// One JSON value per non-empty line (what `mirac export` writes).
inline std::vector<nlohmann::json> jsonl(const std::string& text) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

}  // namespace simulate_test
