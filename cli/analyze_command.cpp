#include "cli/analyze_command.hpp"

#include <cstdlib>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "interpreter/analyze/analyze.hpp"
#include "interpreter/driver.hpp"

namespace mirac {

int cmd_analyze(const std::string& spec, const std::string& data, const std::string& scores, const std::string& out_dir,
                int resamples, std::uint64_t seed, std::ostream& out, std::ostream& err) {
  constexpr int kOk = 0, kSpecError = 1, kUsageError = 2;
  if (scores.empty()) {
    err << "mirac analyze: --scores FILE.csv is required (scores from the run store are not available yet)\n";
    return kUsageError;
  }
  if (resamples < 1) {
    err << "mirac analyze: --resamples must be at least 1\n";
    return kUsageError;
  }
  CheckOptions options;
  if (!data.empty()) options.data_root = data;
  if (const char* env = std::getenv("MIRAC_DATA"); env && *env) options.env_data_root = env;
  auto c = compile(spec, options);
  if (!c->ok()) {
    c->diags.print(err, c->sources);
    return kSpecError;
  }
  std::optional<analyze::ScoreTable> table = analyze::load_scores(c->spec, scores, c->sources, c->diags);
  if (!table) {
    c->diags.print(err, c->sources);
    return kSpecError;
  }
  analyze::AnalyzeOptions ao;
  ao.resamples = static_cast<std::size_t>(resamples);
  ao.seed = seed;
  analyze::Output result = analyze::analyze_scores(c->spec, *table, ao, c->sources, c->diags);
  std::ifstream in(scores, std::ios::binary);
  std::string scores_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::ordered_json json{{"manifest", analyze::manifest(c->spec, scores, scores_text, *table, ao)}};
  json.update(result.json);
  result.json = std::move(json);
  if (!c->diags.all().empty()) c->diags.print(err, c->sources);
  const std::string dir = out_dir.empty() ? std::string("results") : out_dir;
  if (std::string problem = analyze::write_output(result, dir); !problem.empty()) {
    err << "mirac analyze: " << problem << '\n';
    return kUsageError;
  }
  out << fmt::format("{}: {} score rows; wrote {}/results.json and {} tables\n", spec, table->rows.size(), dir,
                     result.tables.size());
  return c->ok() ? kOk : kSpecError;
}

}  // namespace mirac
