// report_support.hpp: the report tests' fixture: examples/otc/otc.audit (or a variant of
// its text) compiled, a deterministic synthetic score table, and results.json from the
// real analysis, as `mirac analyze` would assemble it.
#pragma once

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/hash/hash.hpp"
#include "engine/analyze/analyze.hpp"
#include "interpreter/driver.hpp"

namespace report_test {

inline std::filesystem::path source_dir() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  return root ? std::filesystem::path(root) : std::filesystem::current_path();
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string otc_text() { return read_text(source_dir() / "examples/otc/otc.audit"); }

/// Compiles `text` written to a fresh temp directory as `name`.audit, next to the data
/// files `files` (name -> contents).
inline std::unique_ptr<mirac::Compilation> compile_text(const std::string& name, const std::string& text,
                                                       const std::map<std::string, std::string>& files = {}) {
  auto dir = std::filesystem::temp_directory_path() / ("mirac_report_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / (name + ".audit"), std::ios::binary) << text;
  for (const auto& [file, contents] : files) std::ofstream(dir / file, std::ios::binary) << contents;
  auto c = mirac::compile(dir / (name + ".audit"), mirac::CheckOptions{});
  if (!c->ok()) {
    std::ostringstream err;
    c->diags.print(err, c->sources);
    throw std::runtime_error("spec does not compile: " + err.str());
  }
  return c;
}

/// Every seed x cell x model x arm once, with scores from fixed effects plus a
/// deterministic wobble (no random generator, so the table is the same everywhere). One
/// Q3 is N/A, so that n differs from the number of answers somewhere.
inline mirac::analyze::ScoreTable synthetic_scores(const mirac::Spec& spec) {
  mirac::analyze::ScoreTable t;
  t.path = "scores.csv";
  t.dims = mirac::analyze::score_dimensions(spec);
  std::size_t line = 2;
  std::vector<int> levels(spec.factors.size(), 0);
  for (std::size_t s = 0; s < spec.seeds.size(); ++s)
    for (std::size_t m = 0; m < spec.models.size(); ++m)
      for (std::size_t a = 0; a < spec.arms.size(); ++a)
        for (int cell = 0; cell < 4; ++cell) {
          mirac::analyze::ScoreRow r;
          r.seed = static_cast<int>(s), r.model = static_cast<int>(m), r.arm = static_cast<int>(a);
          r.levels = {cell / 2, cell % 2};  // literacy (high, low) x tone (calm, anxious)
          r.line = line++;
          for (std::size_t d = 0; d < t.dims.size(); ++d) {
            const std::string& dim = t.dims[d];
            double wobble = static_cast<double>((s * 7 + m * 3 + a * 5 + static_cast<std::size_t>(cell) * 11 + d * 13) % 5) - 2.0;
            double latent = 2.4 + 0.4 * static_cast<double>(s) + 0.5 * r.levels[0] + 0.3 * r.levels[1] +
                            0.3 * static_cast<double>(m) - 0.4 * static_cast<double>(a) + 0.45 * wobble;
            double score = dim == "D1" || dim == "D2" ? 1.0 : std::min(5.0, std::max(1.0, std::nearbyint(latent)));
            if (dim == "Q3" && s == 0 && m == 0 && a == 0 && cell == 0) score = std::nan("");
            r.scores.push_back(score);
          }
          t.rows.push_back(std::move(r));
        }
  return t;
}

/// results.json as `mirac analyze` writes it: the manifest, then the analysis.
inline nlohmann::ordered_json results_for(mirac::Compilation& c) {
  mirac::analyze::ScoreTable table = synthetic_scores(c.spec);
  mirac::analyze::AnalyzeOptions options;
  options.resamples = 200;
  options.seed = 7;
  mirac::Diagnostics diags;
  mirac::analyze::Output out = mirac::analyze::analyze_scores(c.spec, table, options, c.sources, diags);
  // The scores file's bytes only feed the manifest's hash; a fixed text keeps it stable.
  nlohmann::ordered_json json{{"manifest", mirac::analyze::manifest(c.spec, "scores.csv", mirac::sha256_hex("synthetic scores\n"), table, options)}};
  json.update(out.json);
  // The version would change every golden file at each release without changing anything
  // the goldens are about.
  json["manifest"]["mirac_version"] = "VERSION";
  return json;
}

}  // namespace report_test
