#include "cli/export_command.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/data.hpp"
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

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
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

int cmd_import(const RunCommandOptions& o, const std::string& what, const std::string& file, std::ostream& out,
               std::ostream& err) {
  if (what != "responses") {
    err << fmt::format("mirac import: unknown table '{}'; expected 'responses'\n", what);
    return kUsageError;
  }
  auto c = compile_spec(o, err);
  if (!c->ok()) return kSpecError;
  const Spec& spec = c->spec;
  const Plan& plan = c->plan;
  SourceManager& sources = c->sources;
  Diagnostics& diags = c->diags;
  auto fail = [&] {
    diags.print(err, sources);
    return kSpecError;
  };
  {
    std::ifstream probe(file, std::ios::binary);
    if (file.empty() || !probe || std::filesystem::is_directory(file)) {
      diags.error_at(file, "cannot read import file");
      return fail();
    }
  }
  std::optional<DataTable> table = read_table(file, file, "jsonl", SourceRange{}, sources, diags);
  if (!table) return fail();

  // Lookups: prompt id, model name or model string, arm name -> index; (prompt, model, arm) -> request.
  std::unordered_map<std::string, std::size_t> prompt_index;
  for (std::size_t i = 0; i < plan.prompts.size(); ++i) prompt_index.emplace(plan.prompts[i].id, i);
  std::unordered_map<std::string, int> model_by_name, arm_by_name;
  std::unordered_map<std::string, std::vector<int>> models_by_string;
  std::vector<std::string> model_names, arm_names;
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    model_by_name.emplace(spec.models[m].name, static_cast<int>(m));
    models_by_string[spec.models[m].model].push_back(static_cast<int>(m));
    model_names.push_back(spec.models[m].name);
  }
  for (std::size_t a = 0; a < spec.arms.size(); ++a) {
    arm_by_name.emplace(spec.arms[a].name, static_cast<int>(a));
    arm_names.push_back(spec.arms[a].name);
  }
  const std::uint64_t n_models = spec.models.size(), n_arms = spec.arms.size();
  auto request_key = [&](std::size_t prompt, int model, int arm) {
    return (static_cast<std::uint64_t>(prompt) * n_models + static_cast<std::uint64_t>(model)) * n_arms +
           static_cast<std::uint64_t>(arm);
  };
  std::unordered_map<std::uint64_t, std::size_t> request_index;
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const auto& r = plan.requests[i];
    request_index.emplace(request_key(r.prompt, r.model, r.arm), i);
  }

  const std::string& text_of_file = sources.text(table->file);
  std::unordered_map<std::size_t, std::uint32_t> line_of_request;  // request -> line that answered it
  std::unordered_map<std::string, std::uint32_t> line_of_hash;
  std::vector<AnswerRecord> answers;
  std::size_t not_done = 0, suggestions_left = 20;
  const double now = unix_now();

  for (const DataRow& row : table->rows) {
    const auto& f = row.fields;
    const SourceRange whole = sources.range(row.file, row.line_begin, row.line_end);
    const std::size_t errors_before = diags.error_count();
    // The first of `keys` present and not null, or nullptr; `key` says which.
    auto field = [&](std::initializer_list<const char*> keys, std::string& key) -> const Row* {
      for (const char* k : keys) {
        auto it = f.find(k);
        if (it != f.end() && !it->is_null()) {
          key = k;
          return &*it;
        }
      }
      return nullptr;
    };
    std::string key;
    if (const Row* status = field({"status"}, key)) {
      if (!status->is_string()) {
        diags.error(field_range(sources, row, key), "'status' must be a string");
        continue;
      }
      if (status->get<std::string>() != "done") {  // a failure exported by `mirac export`
        ++not_done;
        continue;
      }
    }

    std::optional<std::size_t> prompt;
    std::string prompt_id;
    if (const Row* v = field({"prompt_id", "id"}, key); !v) {
      diags.error(whole, "row has no prompt id ('prompt_id' or 'id')");
    } else if (!v->is_string() && !v->is_number_integer()) {
      diags.error(field_range(sources, row, key), fmt::format("'{}' must be a string", key));
    } else {
      prompt_id = json_text(*v);
      if (auto it = prompt_index.find(prompt_id); it != prompt_index.end()) {
        prompt = it->second;
      } else if (suggestions_left > 0) {
        --suggestions_left;
        std::vector<std::string> ids;
        ids.reserve(plan.prompts.size());
        for (const auto& p : plan.prompts) ids.push_back(p.id);
        diags.error(field_range(sources, row, key), with_suggestion("unknown prompt id '" + prompt_id + "'", prompt_id, ids));
      } else {
        diags.error(field_range(sources, row, key), "unknown prompt id '" + prompt_id + "'");
      }
    }

    int model = -1;
    if (const Row* v = field({"model"}, key); !v) {
      diags.error(whole, "row has no 'model' (the spec's model name or its model string)");
    } else if (!v->is_string()) {
      diags.error(field_range(sources, row, key), "'model' must be a string");
    } else {
      const std::string name = v->get<std::string>();
      if (auto it = model_by_name.find(name); it != model_by_name.end()) {
        model = it->second;
      } else if (auto s = models_by_string.find(name); s != models_by_string.end() && s->second.size() == 1) {
        model = s->second.front();
      } else if (s != models_by_string.end()) {
        std::string which;
        for (int m : s->second) which += (which.empty() ? "" : ", ") + spec.models[static_cast<std::size_t>(m)].name;
        diags.error(field_range(sources, row, key),
                    fmt::format("model string '{}' belongs to several models ({}); use the model's name", name, which));
      } else {
        std::string message = "unknown model '" + name + "'";
        if (closest_name(name, model_names).empty())
          message += fmt::format("; the spec's models are {} (or their model strings)", fmt::join(model_names, ", "));
        else
          message = with_suggestion(message, name, model_names);
        diags.error(field_range(sources, row, key), message);
      }
    }

    int arm = -1;
    if (const Row* v = field({"arm"}, key); !v) {
      if (spec.arms.size() == 1) arm = 0;
      else diags.error(whole, fmt::format("row has no 'arm'; the spec has several ({})", fmt::join(arm_names, ", ")));
    } else if (!v->is_string()) {
      diags.error(field_range(sources, row, key), "'arm' must be a string");
    } else {
      const std::string name = v->get<std::string>();
      if (auto it = arm_by_name.find(name); it != arm_by_name.end()) arm = it->second;
      else diags.error(field_range(sources, row, key), with_suggestion("unknown arm '" + name + "'", name, arm_names));
    }

    std::string text;
    if (const Row* v = field({"response", "text"}, key); !v) {
      diags.error(whole, "row has no text ('response' or 'text')");
    } else if (!v->is_string()) {
      diags.error(field_range(sources, row, key), fmt::format("'{}' must be a string", key));
    } else if (v->get_ref<const std::string&>().empty()) {
      diags.error(field_range(sources, row, key), fmt::format("'{}' is empty: an answer without text cannot be imported", key));
    } else {
      text = v->get<std::string>();
    }

    // Optional details of the answer, when the file has them.
    AnswerRecord a;
    auto optional_string = [&](const char* k, std::string& target) {
      std::string ignored;
      if (const Row* v = field({k}, ignored)) {
        if (v->is_string()) target = v->get<std::string>();
        else diags.error(field_range(sources, row, k), fmt::format("'{}' must be a string", k));
      }
    };
    auto optional_number = [&](const char* k, double& target) {
      std::string ignored;
      if (const Row* v = field({k}, ignored)) {
        if (v->is_number() && v->get<double>() >= 0) target = v->get<double>();
        else diags.error(field_range(sources, row, k), fmt::format("'{}' must be a number, at least 0", k));
      }
    };
    auto optional_count = [&](const char* k, long long& target) {
      std::string ignored;
      if (const Row* v = field({k}, ignored)) {
        if (v->is_number_integer() && v->get<long long>() >= 0) target = v->get<long long>();
        else diags.error(field_range(sources, row, k), fmt::format("'{}' must be a whole number, at least 0", k));
      }
    };
    optional_string("finish_reason", a.finish_reason);
    optional_string("returned_model", a.returned_model);
    optional_string("system_fingerprint", a.system_fingerprint);
    optional_count("input_tokens", a.input_tokens);
    optional_count("output_tokens", a.output_tokens);
    optional_number("latency_s", a.latency_s);
    optional_number("cost_usd", a.cost_usd);
    a.started_at = a.ended_at = now;
    optional_number("started_at", a.started_at);
    optional_number("ended_at", a.ended_at);
    a.truncated = a.finish_reason == "length" || a.finish_reason == "max_tokens";
    if (const Row* v = field({"truncated"}, key)) {
      if (v->is_boolean()) a.truncated = v->get<bool>();
      else diags.error(field_range(sources, row, key), "'truncated' must be true or false");
    }

    if (diags.error_count() != errors_before || !prompt || model < 0 || arm < 0) continue;
    auto found = request_index.find(request_key(*prompt, model, arm));
    if (found == request_index.end()) {
      diags.error(whole, fmt::format("the plan has no request for prompt '{}', model '{}', arm '{}'", prompt_id,
                                     spec.models[static_cast<std::size_t>(model)].name,
                                     spec.arms[static_cast<std::size_t>(arm)].name));
      continue;
    }
    const RequestRow& r = plan.requests[found->second];
    if (auto [it, fresh] = line_of_request.emplace(found->second, row.line); !fresh) {
      diags.error(whole, fmt::format("duplicate answer for prompt '{}', model '{}', arm '{}'", prompt_id,
                                     spec.models[static_cast<std::size_t>(model)].name,
                                     spec.arms[static_cast<std::size_t>(arm)].name));
      diags.note(fmt::format("first given on line {}", it->second));
      continue;
    }
    if (auto [it, fresh] = line_of_hash.emplace(r.call.hash, row.line); !fresh) {
      diags.error(whole, "duplicate answer: this request is identical to the one answered on line " +
                             std::to_string(it->second) + " (same request hash)");
      diags.note("requests of different arms or models that send exactly the same thing share one answer");
      continue;
    }

    a.hash = r.call.hash;
    a.status = "done";
    a.provider = r.call.provider;
    a.model = r.call.model;
    a.request_body = canonical_request(r.call).dump();
    std::string line = text_of_file.substr(row.line_begin, row.line_end - row.line_begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    a.response_body = std::move(line);
    a.text = std::move(text);
    a.provider_request_id = "imported";
    a.cause = "ok";
    a.message = fmt::format("imported from {} line {}", file, row.line);
    a.attempts = 0;
    answers.push_back(std::move(a));
  }
  if (diags.has_errors()) {
    diags.print(err, sources);
    err << "nothing imported\n";
    return kSpecError;
  }

  std::filesystem::path dir = run_dir(spec, o);
  std::string error;
  auto store = Store::open(dir, error);
  if (!store) {
    err << "mirac: " << error << '\n';
    return kRunError;
  }
  if (!store->lock_for_run(error)) {
    err << "mirac: " << error << '\n';
    return kRunError;
  }
  std::size_t stored = 0, already = 0;
  if (!store->import_answers(answers, stored, already)) {
    err << "mirac: " << store->last_error() << "\nnothing imported\n";
    return kRunError;
  }
  out << fmt::format("import {}: {} answers stored, {} skipped (already answered)", file, stored, already);
  if (not_done > 0) out << fmt::format(", {} rows not done skipped", not_done);
  out << fmt::format("; store {}\n", dir.string());
  return kOk;
}

}  // namespace mirac
