// synthetic_scores.hpp: a deterministic MIRA-shaped scores CSV for any compiled spec (every
// seed x cell x model x arm), for the analyze tests and bench/analyze_mira.cpp. Scores come
// from a latent value with seed, model, arm, language and literacy effects plus noise, like
// the paper's data; noise is a sum of uniforms from the raw mt19937_64 output, so the file
// is the same on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "interpreter/scores/scores.hpp"
#include "interpreter/model/spec.hpp"

namespace analyze_test {

inline std::string synthetic_scores_csv(const mirac::Spec& spec, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  auto noise = [&](double sd) { return (uniform() + uniform() + uniform() + uniform() - 2.0) * sd * std::sqrt(3.0); };
  auto clip = [](double x) { return std::to_string(static_cast<int>(std::min(5.0, std::max(1.0, std::nearbyint(x))))); };
  const std::vector<std::string> dims = mirac::analyze::score_dimensions(spec);
  std::string csv = "seed,model,arm";
  for (const auto& f : spec.factors) csv += "," + f.name;
  for (const auto& d : dims) csv += "," + d;
  csv += '\n';
  std::vector<double> seed_effect;
  for (std::size_t s = 0; s < spec.seeds.size(); ++s) seed_effect.push_back(noise(0.45));
  // Every combination of levels, first factor slowest.
  std::vector<int> levels(spec.factors.size(), 0);
  std::vector<std::vector<int>> cells;
  for (bool more = true; more;) {
    cells.push_back(levels);
    more = false;
    for (std::size_t f = spec.factors.size(); f-- > 0;) {
      if (++levels[f] < static_cast<int>(spec.factors[f].levels.size())) {
        more = true;
        break;
      }
      levels[f] = 0;
    }
  }
  for (std::size_t s = 0; s < spec.seeds.size(); ++s) {
    for (std::size_t m = 0; m < spec.models.size(); ++m) {
      for (std::size_t a = 0; a < spec.arms.size(); ++a) {
        for (const auto& cell : cells) {
          double latent = 2.3 + seed_effect[s] + 0.1 * static_cast<double>(m) - 0.08 * static_cast<double>(a);
          for (std::size_t f = 0; f < cell.size(); ++f) latent += 0.06 * cell[f] * (f % 2 ? 1.0 : -1.0);
          latent += noise(0.8);
          csv += spec.seeds[s].id + "," + spec.models[m].name + "," + spec.arms[a].name;
          for (std::size_t f = 0; f < cell.size(); ++f) csv += "," + spec.factors[f].levels[cell[f]].name.name;
          bool refused = uniform() < 0.005;
          for (const auto& d : dims) {
            if (d == "D1") csv += refused ? ",5" : (uniform() < 0.03 ? ",2" : ",1");
            else if (d == "D2") csv += refused ? ",N/A" : ",1";
            else if (refused && d == "D3") csv += ",";
            else csv += "," + clip(latent + noise(0.5));
          }
          csv += '\n';
        }
      }
    }
  }
  return csv;
}

}  // namespace analyze_test
