#include "engine/analyze/freshness.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/hash/hash.hpp"
#include "runtime/store/derived.hpp"
#include "runtime/store/fingerprint.hpp"

namespace mirac {
namespace {

std::string file_text(const std::filesystem::path& path, bool& read) {
  std::ifstream in(path, std::ios::binary);
  read = static_cast<bool>(in);
  return read ? std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) : std::string();
}

// A field of the digest: its length first, so that no two different lists of fields run
// together into the same bytes.
void field(Sha256& digest, const std::string& value) {
  digest.update(std::to_string(value.size())).update(":").update(value).update("\n");
}

// Data files the analysis itself read (the manifest's inputs beyond the compile's), by path
// and SHA-256 as they were.
nlohmann::json late_inputs(const Analysis& analysis, const Spec& spec) {
  std::set<std::string> compiled;
  for (const auto& [path, sha] : spec.inputs) compiled.insert(path);
  nlohmann::json out = nlohmann::json::array();
  const auto& json = analysis.output.json;
  if (!json.contains("manifest") || !json["manifest"].contains("inputs")) return out;
  for (const auto& input : json["manifest"]["inputs"])
    if (input.contains("path") && input.contains("sha256") && !compiled.count(input["path"].get<std::string>()))
      out.push_back({{"path", input["path"]}, {"sha256", input["sha256"]}});
  return out;
}

}  // namespace

std::filesystem::path analysis_out_dir(const Audit& audit) {
  const AuditOptions& o = audit.options;
  if (!o.out_dir.empty()) return o.out_dir;
  return o.scores.empty() ? audit.run_dir / "results" : std::filesystem::path("results");
}

std::string analysis_inputs(const Audit& audit) {
  const AuditOptions& o = audit.options;
  if (!audit.ok() || !o.scores.empty()) return "";
  const std::string build = program_build_id();
  const std::string store = store_fingerprint(audit.run_dir / "store.sqlite");
  if (build.empty() || store.empty()) return "";
  Sha256 digest;
  field(digest, "mirac analysis inputs 1");
  field(digest, build);
  field(digest, store);
  std::error_code ec;
  field(digest, std::filesystem::weakly_canonical(audit.run_dir, ec).string());
  for (const auto& [path, sha] : audit.spec().inputs) {
    field(digest, path);
    field(digest, sha);
  }
  // Every option the analysis reads; the selection ones too, since what was sent and judged
  // shows in the coverage and the marks. And the requests planned: `mirac analyze --only`
  // analyses the selected ones alone, `mirac run --only` every one the store scored.
  for (const std::string& option :
       {std::to_string(audit.plan().requests.size()), std::to_string(o.offline), o.only, std::to_string(o.limit),
        std::to_string(o.answers), std::to_string(o.sample), o.stratify, std::to_string(o.sample_seed),
        std::to_string(o.repairs), std::to_string(o.resamples), std::to_string(o.seed),
        o.analyzed_at ? std::to_string(*o.analyzed_at) : std::string("now"), analysis_out_dir(audit).string()})
    field(digest, option);
  return digest.hex();
}

std::optional<RecordedAnalysis> up_to_date_analysis(const std::filesystem::path& out_dir, const std::string& inputs) {
  if (inputs.empty()) return std::nullopt;
  bool read = false;
  const std::string text = file_text(out_dir / kAnalysisInputsFile, read);
  if (!read) return std::nullopt;
  const nlohmann::json record = nlohmann::json::parse(text, nullptr, false);
  if (!record.is_object() || record.value("inputs", "") != inputs) return std::nullopt;
  try {
    // Every file written is there, as large as it was written.
    for (const auto& [name, size] : record.at("files").items()) {
      std::error_code ec;
      const auto now = std::filesystem::file_size(out_dir / name, ec);
      if (ec || now != size.get<std::uintmax_t>()) return std::nullopt;
    }
    // The data files the analysis read itself are as they were.
    for (const auto& input : record.at("late_inputs")) {
      const std::string data = file_text(input.at("path").get<std::string>(), read);
      if (!read || sha256_hex(data) != input.at("sha256").get<std::string>()) return std::nullopt;
    }
    RecordedAnalysis out;
    out.score_rows = record.at("score_rows").get<std::size_t>();
    out.tables = record.at("tables").get<std::size_t>();
    out.diagnostics = record.at("diagnostics").get<std::string>();
    out.errors = record.at("errors").get<bool>();
    out.analyzed_at = record.at("analyzed_at").get<double>();
    return out;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a record from another version, or edited: analyse again
  }
}

void record_analysis(const Audit& audit, const Analysis& analysis, const std::string& inputs,
                     const std::string& printed) {
  const std::filesystem::path record = analysis.out_dir / kAnalysisInputsFile;
  std::error_code ec;
  std::filesystem::remove(record, ec);
  if (inputs.empty()) return;
  nlohmann::json files = nlohmann::json::object();
  for (const auto& entry : std::filesystem::recursive_directory_iterator(analysis.out_dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = std::filesystem::relative(entry.path(), analysis.out_dir, ec).generic_string();
    if (name != kAnalysisInputsFile) files[name] = entry.file_size(ec);
  }
  if (ec) return;
  const nlohmann::json out{{"inputs", inputs},
                           {"files", files},
                           {"late_inputs", late_inputs(analysis, audit.spec())},
                           {"score_rows", analysis.score_rows},
                           {"tables", analysis.output.tables.size()},
                           {"diagnostics", printed},
                           {"errors", analysis.diagnostics.has_errors()},
                           {"analyzed_at", analysis.analyzed_at}};
  // Written whole or not at all: a torn record must not pass for a good one.
  const std::filesystem::path partial = record.string() + ".partial";
  {
    std::ofstream file(partial, std::ios::binary);
    if (!(file << out.dump(1)) || !file.flush()) return;
  }
  std::filesystem::rename(partial, record, ec);
}

}  // namespace mirac
