// results.cpp: assembling results.json and writing the output directory.
#include <fstream>

#include "engine/analyze/analyze.hpp"
#include "engine/analyze/parts.hpp"
#include "runtime/hash/hash.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac::analyze {

Output analyze_scores(const Spec& spec, const ScoreTable& scores, const AnalyzeOptions& options, SourceManager& sources,
                      Diagnostics& diags) {
  Context ctx{spec, scores, options, sources, diags};
  Output out;
  add_means(ctx, out);
  add_contrasts(ctx, out);
  add_flags(ctx, out);
  add_analyses(ctx, out);
  add_seeds(ctx, out);
  return out;
}

std::string spec_sha256(const Spec& spec) {
  for (const auto& [path, hash] : spec.inputs)
    if (path == spec.spec_path.string()) return hash;
  return sha256_hex("");  // not reached: check records the spec first
}

nlohmann::ordered_json manifest(const Spec& spec, const std::filesystem::path& scores_path, const std::string& scores_sha256,
                                const ScoreTable& scores, const AnalyzeOptions& options) {
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const auto& [path, hash] : spec.inputs) inputs.push_back({{"path", path}, {"sha256", hash}});
  return {{"mirac_version", MIRAC_VERSION},
          {"spec", {{"path", spec.spec_path.string()}, {"sha256", spec_sha256(spec)}}},
          {"inputs", inputs},
          {"scores", {{"path", scores_path.string()}, {"sha256", scores_sha256}, {"rows", scores.rows.size()}}},
          {"dimensions", scores.dims},
          {"bootstrap", {{"seed", options.seed}, {"resamples", options.resamples}, {"level", 0.95}, {"cluster", "seed"}}}};
}

std::string to_csv(const Table& table) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    // The cells are text: numbers as csv_number() wrote them, which stay numbers, and
    // labels (seed ids and fields among them), which a spreadsheet must not run.
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_number_or_text(cells[i]);
    out += '\n';
  };
  line(table.header);
  for (const auto& r : table.rows) line(r);
  return out;
}

std::string write_output(const Output& out, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create output directory '" + dir.string() + "': " + ec.message();
  auto write = [&](const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    return static_cast<bool>(f << text) && static_cast<bool>(f.flush());  // a full disk fails here
  };
  if (!write(dir / "results.json", out.json.dump(2) + "\n")) return "cannot write '" + (dir / "results.json").string() + "'";
  for (const auto& t : out.tables)
    if (!write(dir / (t.name + ".csv"), out.csv_preamble + to_csv(t))) return "cannot write '" + (dir / (t.name + ".csv")).string() + "'";
  return "";
}

}  // namespace mirac::analyze
