// import.cpp: `mirac import SPEC responses FILE`: answers produced elsewhere, matched to the
// plan's requests and stored as done answers. Two record formats, told apart record by
// record: mirac's own (`arm`, what `mirac export` writes) and the MIRA authors' judge input
// (`mitigation`, `model_judged`, ...; see import_mira.hpp).
#include <chrono>
#include <fstream>
#include <ostream>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/transfer/import.hpp"
#include "engine/transfer/import_mira.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

namespace {

using Row = nlohmann::ordered_json;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Names of the spec resolved to indices, and (prompt, model, arm) to the plan's request.
struct Lookups {
  std::unordered_map<std::string, std::size_t> prompt_index;
  std::unordered_map<std::string, int> model_by_name, arm_by_name;
  std::unordered_map<std::string, std::vector<int>> models_by_string;
  std::vector<std::string> model_names, arm_names;
  std::unordered_map<std::uint64_t, std::size_t> request_index;
  std::uint64_t n_models = 0, n_arms = 0;

  Lookups(const Spec& spec, const Plan& plan) : n_models(spec.models.size()), n_arms(spec.arms.size()) {
    for (std::size_t i = 0; i < plan.prompts.size(); ++i) prompt_index.emplace(plan.prompts[i].id, i);
    for (std::size_t m = 0; m < spec.models.size(); ++m) {
      model_by_name.emplace(spec.models[m].name, static_cast<int>(m));
      models_by_string[spec.models[m].model].push_back(static_cast<int>(m));
      model_names.push_back(spec.models[m].name);
    }
    for (std::size_t a = 0; a < spec.arms.size(); ++a) {
      arm_by_name.emplace(spec.arms[a].name, static_cast<int>(a));
      arm_names.push_back(spec.arms[a].name);
    }
    for (std::size_t i = 0; i < plan.requests.size(); ++i) {
      const auto& r = plan.requests[i];
      request_index.emplace(key(r.prompt, r.model, r.arm), i);
    }
  }
  std::uint64_t key(std::size_t prompt, int model, int arm) const {
    return (static_cast<std::uint64_t>(prompt) * n_models + static_cast<std::uint64_t>(model)) * n_arms +
           static_cast<std::uint64_t>(arm);
  }
  /// A model by name, or by model string when only one model uses it; else -1 and `why`.
  int model(const Spec& spec, const std::string& name, std::string& why) const {
    if (auto it = model_by_name.find(name); it != model_by_name.end()) return it->second;
    auto s = models_by_string.find(name);
    if (s != models_by_string.end() && s->second.size() == 1) return s->second.front();
    if (s != models_by_string.end()) {
      std::string which;
      for (int m : s->second) which += (which.empty() ? "" : ", ") + spec.models[static_cast<std::size_t>(m)].name;
      why = fmt::format("model string '{}' belongs to several models ({}); use the model's name", name, which);
    } else if (closest_name(name, model_names).empty()) {
      why = fmt::format("unknown model '{}'; the spec's models are {} (or their model strings)", name,
                        fmt::join(model_names, ", "));
    } else {
      why = with_suggestion("unknown model '" + name + "'", name, model_names);
    }
    return -1;
  }
};

// The arm of a MIRA record: `mitigation` true -> arm `mitigation`, false -> arm `baseline`
// (or the only arm of a one-arm spec). -1 after reporting why not.
int mira_arm(const Spec& spec, const Lookups& look, const SourceManager& sources, const DataRow& row, Diagnostics& diags) {
  auto it = row.fields.find("mitigation");
  if (it == row.fields.end()) {
    if (spec.arms.size() == 1) return 0;
    diags.error(sources.range(row.file, row.line_begin, row.line_end),
                fmt::format("row has no 'mitigation' (or 'arm'); the spec has several arms ({})", fmt::join(look.arm_names, ", ")));
    return -1;
  }
  std::optional<bool> flag = mitigation_flag(*it);
  if (!flag) {
    diags.error(field_range(sources, row, "mitigation"),
                fmt::format("'mitigation' is {}; expected true or false (true, 1, \"yes\", \"mitigation\"; false, 0, "
                            "\"no\", \"baseline\", \"\")", it->dump()));
    return -1;
  }
  const std::string want = *flag ? "mitigation" : "baseline";
  if (auto a = look.arm_by_name.find(want); a != look.arm_by_name.end()) return a->second;
  if (!*flag && spec.arms.size() == 1) return 0;
  diags.error(field_range(sources, row, "mitigation"),
              fmt::format("'mitigation' is {}, which means the arm named '{}', but the spec has no such arm (its arms: {})",
                          it->dump(), want, fmt::join(look.arm_names, ", ")));
  return -1;
}

}  // namespace

Outcome import_responses(Audit& audit, const std::string& file, ImportSummary& summary) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  SourceManager& sources = audit.compilation->sources;
  Diagnostics& diags = summary.diagnostics;
  auto fail = [] { return Outcome::fail(kSpecError); };
  {
    std::ifstream probe(file, std::ios::binary);
    if (file.empty() || !probe || std::filesystem::is_directory(file)) {
      diags.error_at(file, "cannot read import file");
      return fail();
    }
  }
  auto table = read_table(file, file, "jsonl", SourceRange{}, sources, diags);
  if (!table) return fail();

  const Lookups look(spec, plan);
  const std::string& text_of_file = sources.text(table->file);
  std::unordered_map<std::size_t, std::uint32_t> line_of_request;  // request -> line that answered it
  std::unordered_map<std::string, std::uint32_t> line_of_hash;
  std::vector<AnswerRecord> answers;
  std::size_t not_done = 0, mira_rows = 0, suggestions_left = 20;
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
    const bool mira = is_mira_record(f);
    if (f.contains("arm") && f.contains("mitigation")) {
      diags.error(field_range(sources, row, "arm"), "row has both 'arm' and 'mitigation'; give one");
      continue;
    }
    mira_rows += mira;

    std::optional<std::size_t> prompt;
    std::string prompt_id, prompt_key;
    if (mira) {
      prompt_id = mira_prompt_id(sources, row, look.prompt_index, prompt_key, diags);
    } else if (const Row* v = field({"prompt_id", "id"}, prompt_key); !v) {
      diags.error(whole, "row has no prompt id ('prompt_id' or 'id')");
    } else if (!v->is_string() && !v->is_number_integer()) {
      diags.error(field_range(sources, row, prompt_key), fmt::format("'{}' must be a string", prompt_key));
    } else {
      prompt_id = json_text(*v);
    }
    if (diags.error_count() == errors_before) {
      if (auto it = look.prompt_index.find(prompt_id); it != look.prompt_index.end()) {
        prompt = it->second;
      } else if (suggestions_left > 0) {
        --suggestions_left;
        std::vector<std::string> ids;
        ids.reserve(plan.prompts.size());
        for (const auto& p : plan.prompts) ids.push_back(p.id);
        diags.error(field_range(sources, row, prompt_key),
                    with_suggestion("unknown prompt id '" + prompt_id + "'", prompt_id, ids));
      } else {
        diags.error(field_range(sources, row, prompt_key), "unknown prompt id '" + prompt_id + "'");
      }
    }

    // The model: mirac records name it in `model`; MIRA records in the first of their model
    // keys whose value names one of the spec's models.
    int model = -1;
    std::string first_key, first_why;
    for (const char* k : mira ? std::vector<const char*>(std::begin(kMiraModelKeys), std::end(kMiraModelKeys))
                              : std::vector<const char*>{"model"}) {
      const Row* v = field({k}, key);
      if (!v) continue;
      std::string why;
      if (!v->is_string()) why = fmt::format("'{}' must be a string", k);
      else model = look.model(spec, v->get<std::string>(), why);
      if (model >= 0) break;
      if (first_key.empty()) {
        first_key = k;
        first_why = why;
      }
    }
    if (model < 0 && first_key.empty())
      diags.error(whole, mira ? "row has no model ('model_judged', 'model', 'source_model' or 'provider_model')"
                              : "row has no 'model' (the spec's model name or its model string)");
    else if (model < 0)
      diags.error(field_range(sources, row, first_key), first_why);

    int arm = -1;
    if (mira) {
      arm = mira_arm(spec, look, sources, row, diags);
    } else if (const Row* v = field({"arm"}, key); !v) {
      if (spec.arms.size() == 1) arm = 0;
      else diags.error(whole, fmt::format("row has no 'arm'; the spec has several ({})", fmt::join(look.arm_names, ", ")));
    } else if (!v->is_string()) {
      diags.error(field_range(sources, row, key), "'arm' must be a string");
    } else {
      const std::string name = v->get<std::string>();
      if (auto it = look.arm_by_name.find(name); it != look.arm_by_name.end()) arm = it->second;
      else diags.error(field_range(sources, row, key), with_suggestion("unknown arm '" + name + "'", name, look.arm_names));
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
    if (mira && prompt) {
      check_mira_metadata(spec, plan.prompts[*prompt], sources, row,
                          {"prompt_id", "original_prompt_id", "model_judged", "model", "source_model", "provider_model",
                           "mitigation", "response", "text"},
                          diags);
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
    const std::string& model_name = spec.models[static_cast<std::size_t>(model)].name;
    const std::string& arm_name = spec.arms[static_cast<std::size_t>(arm)].name;
    auto found = look.request_index.find(look.key(*prompt, model, arm));
    if (found == look.request_index.end()) {
      diags.error(whole, fmt::format("the plan has no request for prompt '{}', model '{}', arm '{}'", prompt_id,
                                     model_name, arm_name));
      continue;
    }
    const RequestRow& r = plan.requests[found->second];
    if (auto [it, fresh] = line_of_request.emplace(found->second, row.line); !fresh) {
      diags.error(whole, fmt::format("duplicate answer for prompt '{}', model '{}', arm '{}'", prompt_id, model_name,
                                     arm_name));
      diags.note(fmt::format("first given on line {}", it->second));
      continue;
    }
    if (auto [it, fresh] = line_of_hash.emplace(r.hash(), row.line); !fresh) {
      diags.error(whole, "duplicate answer: this request is identical to the one answered on line " +
                             std::to_string(it->second) + " (same request hash)");
      diags.note("requests of different arms or models that send exactly the same thing share one answer");
      continue;
    }

    a.hash = r.hash();
    a.status = "done";
    a.provider = r.target->provider;
    a.model = r.target->model;
    a.request_body = canonical_request(r.call()).dump();
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
  if (diags.has_errors()) return Outcome::fail(kSpecError, "nothing imported");

  Outcome opened;
  auto store = open_store(audit, opened);
  if (!store) return opened;
  std::string error;
  if (!store->lock_for_run(error)) return Outcome::fail(kRunError, "mirac: " + error);
  if (!store->import_answers(answers, summary.stored, summary.already))
    return Outcome::fail(kRunError, "mirac: " + store->last_error() + "\nnothing imported");
  summary.not_done = not_done;
  summary.mira_rows = mira_rows;
  return {};
}

}  // namespace mirac
