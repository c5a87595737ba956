// lmm_reference.hpp: turns a tests/stats/reference/lmm_NAME.json data set into the lmm_fit
// inputs. Shared by the tests and bench/stats_lmm.cpp; no doctest dependency.
#pragma once

#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/stats/lmm.hpp"

namespace mirac::stats::testing {

inline std::string reference_path(const std::string& file) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  return (root ? std::string(root) : std::string(".")) + "/tests/stats/reference/" + file;
}

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("read_json_file: cannot open " + path + " (is MIRAC_SOURCE_DIR set?)");
  return nlohmann::json::parse(in);
}

struct LmmCase {
  DataFrame data;
  LmmSpec spec;
};

/// Rebuilds string-valued columns from the stored level codes, the response (null = missing),
/// the fixed terms, random intercepts and level orders (reference first) of the data set.
inline LmmCase lmm_case(const nlohmann::json& ds) {
  LmmCase c;
  for (const auto& [var, levels] : ds.at("levels").items()) {
    const auto codes = ds.at("codes").at(var).get<std::vector<int>>();
    const auto lv = levels.get<std::vector<std::string>>();
    CategoricalColumn col{var, {}};
    col.values.reserve(codes.size());
    for (int code : codes) col.values.push_back(lv.at(static_cast<std::size_t>(code)));
    c.data.columns.push_back(std::move(col));
    c.spec.levels[var] = LevelSpec{lv, lv.front()};
  }
  for (const auto& r : ds.at("response")) {
    c.data.response.push_back(r.is_null() ? std::numeric_limits<double>::quiet_NaN() : r.get<double>());
  }
  c.spec.fixed = ds.at("fixed").get<std::vector<FixedTerm>>();
  c.spec.random_intercepts = ds.at("random").get<std::vector<std::string>>();
  return c;
}

}  // namespace mirac::stats::testing
