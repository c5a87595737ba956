#include "cli/export_command.hpp"

#include <cstdlib>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "interpreter/driver.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

namespace {

constexpr int kOk = 0, kSpecError = 1, kUsageError = 2, kRunError = 4;

using Row = nlohmann::ordered_json;

// The columns of an exported row other than the factors (which follow `seed`).
const std::vector<std::string> kFixedColumns = {
    "prompt_id", "seed", "model", "model_string", "provider", "arm", "hash", "status", "text",
    "finish_reason", "truncated", "returned_model", "provider_request_id", "system_fingerprint",
    "input_tokens", "output_tokens", "latency_s", "started_at", "ended_at", "cost_usd", "attempts",
    "cause", "message"};

// A factor is exported under its own name unless that name is one of the fixed columns
// (a factor called `model`), then as `factor.<name>`.
std::vector<std::string> factor_keys(const Spec& spec) {
  std::vector<std::string> keys;
  for (const auto& f : spec.factors) {
    bool clash = std::find(kFixedColumns.begin(), kFixedColumns.end(), f.name) != kFixedColumns.end();
    keys.push_back(clash ? "factor." + f.name : f.name);
  }
  return keys;
}

std::vector<std::string> columns(const std::vector<std::string>& factors) {
  std::vector<std::string> all = {kFixedColumns[0], kFixedColumns[1]};
  all.insert(all.end(), factors.begin(), factors.end());
  all.insert(all.end(), kFixedColumns.begin() + 2, kFixedColumns.end());
  return all;
}

Row export_row(const Spec& spec, const Plan& plan, const RequestRow& r, const AnswerRecord& a,
               const std::vector<std::string>& fkeys) {
  const PromptRow& p = plan.prompts[r.prompt];
  const Model& m = spec.models[static_cast<std::size_t>(r.model)];
  Row row;
  row["prompt_id"] = p.id;
  row["seed"] = p.seed;
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    row[fkeys[f]] = spec.factors[f].levels[static_cast<std::size_t>(p.levels[f])].name.name;
  row["model"] = m.name;
  row["model_string"] = r.call.model;
  row["provider"] = r.call.provider;
  row["arm"] = spec.arms[static_cast<std::size_t>(r.arm)].name;
  row["hash"] = r.call.hash;
  row["status"] = a.status;
  row["text"] = a.text;
  row["finish_reason"] = a.finish_reason;
  row["truncated"] = a.truncated;
  row["returned_model"] = a.returned_model;
  row["provider_request_id"] = a.provider_request_id;
  row["system_fingerprint"] = a.system_fingerprint;
  row["input_tokens"] = a.input_tokens;
  row["output_tokens"] = a.output_tokens;
  row["latency_s"] = a.latency_s;
  row["started_at"] = a.started_at;
  row["ended_at"] = a.ended_at;
  row["cost_usd"] = a.cost_usd;
  row["attempts"] = a.attempts;
  row["cause"] = a.cause;
  row["message"] = a.message;
  return row;
}

// RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes doubled.
std::string csv_field(const Row& value) {
  std::string s = value.is_string() ? value.get<std::string>() : value.dump();
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  quoted += '"';
  return quoted;
}

}  // namespace

int cmd_export(const RunCommandOptions& o, const std::string& what, const std::string& output,
               const std::string& format, std::ostream& out, std::ostream& err) {
  if (what != "responses") {
    err << fmt::format("mirac export: unknown table '{}'; expected 'responses'\n", what);
    return kUsageError;
  }
  const std::string fmt_name = format.empty() ? "jsonl" : format;
  if (fmt_name != "jsonl" && fmt_name != "csv") {
    err << fmt::format("mirac export: unknown format '{}'; expected jsonl or csv\n", format);
    return kUsageError;
  }
  auto c = compile_spec(o, err);
  if (!c->ok()) return kSpecError;
  const Spec& spec = c->spec;
  const Plan& plan = c->plan;
  std::filesystem::path dir = run_dir(spec, o);
  if (!std::filesystem::exists(dir / "store.sqlite")) {
    err << fmt::format("mirac export: no store at {} (nothing run or imported yet)\n", (dir / "store.sqlite").string());
    return kRunError;
  }
  std::string error;
  auto store = Store::open(dir, error);
  if (!store) {
    err << "mirac: " << error << '\n';
    return kRunError;
  }

  std::ofstream file;
  std::ostream* target = &out;
  const bool to_file = !output.empty() && output != "-";
  if (to_file) {
    file.open(output, std::ios::binary | std::ios::trunc);
    if (!file) {
      err << output << ": error: cannot write output file\n";
      return kUsageError;
    }
    target = &file;
  }

  const std::vector<std::string> fkeys = factor_keys(spec);
  const std::vector<std::string> header = columns(fkeys);
  const bool csv = fmt_name == "csv";
  if (csv) {
    for (std::size_t i = 0; i < header.size(); ++i) *target << (i ? "," : "") << csv_field(header[i]);
    *target << "\r\n";
  }
  std::size_t done = 0, failed = 0, skipped = 0;
  for (const auto& r : plan.requests) {
    std::optional<AnswerRecord> a = store->answer(r.call.hash);
    if (!a) {
      ++skipped;
      continue;
    }
    (a->status == "done" ? done : failed) += 1;
    Row row = export_row(spec, plan, r, *a, fkeys);
    if (csv) {
      for (std::size_t i = 0; i < header.size(); ++i) *target << (i ? "," : "") << csv_field(row[header[i]]);
      *target << "\r\n";
    } else {
      // UTF-8 as is (not \u-escaped); bytes that are not UTF-8 become U+FFFD.
      *target << row.dump(-1, ' ', false, Row::error_handler_t::replace) << '\n';
    }
  }
  target->flush();
  if (!*target) {
    err << (to_file ? output : std::string("standard output")) << ": error: write failed\n";
    return kUsageError;
  }
  err << fmt::format("export {}: {} answers ({} done, {} failed) to {}; {} of {} requests have no answer and were skipped\n",
                     spec.name, done + failed, done, failed, to_file ? output : std::string("standard output"), skipped,
                     plan.requests.size());
  return kOk;
}

}  // namespace mirac
