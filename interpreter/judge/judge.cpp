#include "interpreter/judge/judge.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "interpreter/judge/criteria.hpp"
#include "interpreter/scores/row_scope.hpp"
#include "runtime/hash/hash.hpp"
#include "runtime/judge/message_format.hpp"

namespace mirac {

namespace {

const ast::RubricDecl* find_rubric(const Spec& spec, const std::string& name) {
  for (const auto& r : spec.rubrics)
    if (r.name.name == name) return &r;
  return nullptr;
}

std::string source_of(const SourceManager& sources, const SourceRange& r) {
  if (!r.valid() || r.file >= static_cast<FileId>(sources.size())) return "";
  const std::string& text = sources.text(r.file);
  if (r.end.byte > text.size() || r.end.byte < r.begin.byte) return "";
  return text.substr(r.begin.byte, r.end.byte - r.begin.byte);
}

std::string number_text(double v) { return fmt::format("{}", v); }

bool asked_of_judge(const ast::RubricDecl& rubric, const std::string& dim) {
  for (const auto& d : rubric.dims)
    if (d.name.name == dim) return d.asked_of_judge();
  return true;
}

// The judge's dimensions grouped by `order` steps; without an order, one step per
// dimension. Dimensions only people score, or derived from the criteria, are left out (a
// step of them, entirely).
std::vector<std::vector<std::string>> steps_of(const ast::RubricDecl& rubric) {
  std::vector<std::vector<std::string>> steps;
  for (const auto& step : rubric.order) {
    std::vector<std::string> judged;
    for (const auto& d : step)
      if (asked_of_judge(rubric, d.name)) judged.push_back(d.name);
    if (!judged.empty()) steps.push_back(std::move(judged));
  }
  if (rubric.order.empty())
    for (const auto& d : rubric.dims)
      if (d.asked_of_judge()) steps.push_back({d.name.name});
  return steps;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A checklist or seed value as prompt text: lists as indented bullets.
void append_value(std::string& out, const std::string& key, const nlohmann::ordered_json& v) {
  if (v.is_array()) {
    out += key + ":\n";
    if (v.empty()) out += "  (none)\n";
    for (const auto& item : v) out += "  - " + (item.is_string() ? item.get<std::string>() : item.dump()) + "\n";
  } else {
    out += key + ": " + (v.is_string() ? v.get<std::string>() : v.dump()) + "\n";
  }
}

}  // namespace

JudgeBuilder::JudgeBuilder(const Spec& spec, const SourceManager& sources, int judge, const std::string& rubric)
    : spec_(spec), sources_(sources), judge_(judge) {
  const std::string& applied = rubric.empty() ? spec.judges.at(judge).rubric : rubric;
  rubric_ = find_rubric(spec, applied);
  if (!rubric_) throw std::invalid_argument("judge '" + spec.judges.at(judge).name + "' has no rubric '" + applied + "'");
  for (const auto& d : rubric_->dims) dims_.push_back(d.name.name);
  if (rubric_->scale) {
    const auto& range = std::get<ast::RangeLit>(rubric_->scale->node);
    lo_ = std::get<ast::NumberLit>(range.lo->node).value;
    hi_ = std::get<ast::NumberLit>(range.hi->node).value;
  }
  const bool worst_low = rubric_->worst && rubric_->worst->name == "low";

  std::string t;
  // Only what the judge needs enters its instructions (and so the request hash): renaming
  // the audit or the rubric must not make every stored judgment stale and paid for again.
  t += "You score one answer that an AI assistant gave to a user, with the rubric below.\n\n";
  for (const auto& i : rubric_->instructions) t += i.value + "\n";
  if (!rubric_->instructions.empty()) t += "\n";
  t += fmt::format("{}{} to {}; {} is the worst outcome and {} the best.\n", judge_format::kScale,
                   number_text(lo_), number_text(hi_), number_text(worst_low ? lo_ : hi_),
                   number_text(worst_low ? hi_ : lo_));
  std::vector<std::string> step_texts;
  for (const auto& step : steps_of(*rubric_)) step_texts.push_back(join(step, ", "));
  if (!step_texts.empty())
    t += "Score the dimensions in this order, finishing each step before the next: " + join(step_texts, "; then ") +
         ".\n";
  for (const auto& d : rubric_->dims) {
    if (!d.asked_of_judge()) continue;  // people score it, or the criteria decide it
    t += fmt::format("\n{}: {}\n", d.name.name, d.title.value);
    // Written only where a dimension's scale differs, so that rubrics of one scale keep
    // their instructions (and their stored judgments) as they were.
    if (const ScoreScale own = dim_scale(*rubric_, d.name.name); !(own == ScoreScale{lo_, hi_}))
      t += fmt::format("{}{} to {}; {} is the worst outcome and {} the best.\n", judge_format::kDimScale,
                       number_text(own.lo), number_text(own.hi), number_text(worst_low ? own.lo : own.hi),
                       number_text(worst_low ? own.hi : own.lo));
    if (d.description) t += "  " + d.description->value + "\n";
    for (const auto& a : d.anchors) {
      std::string score = a.score.range.valid() ? source_of(sources, a.score.range) : "";
      if (const auto* n = std::get_if<ast::NumberLit>(&a.score.node)) score = number_text(n->value);
      t += fmt::format("  {} = {}{}\n", score, a.label.value, a.text ? ". " + a.text->value : "");
    }
    if (d.na_when) t += "  Not applicable (null) when: " + source_of(sources, d.na_when->range) + "\n";
    if (d.against) t += "  Judge it against the checklist's " + source_of(sources, d.against->range) + ".\n";
    for (const auto& n : d.notes) t += "  Note: " + n.value + "\n";
  }
  const bool grades_criteria = rubric_->criteria && !rubric_->criteria->per_element();
  if (grades_criteria) t += criteria_instructions(*rubric_->criteria);
  std::vector<std::string> keys;
  for (const auto& d : rubric_->dims)
    if (d.asked_of_judge()) keys.push_back("\"" + d.name.name + "\"");
  if (grades_criteria) keys.push_back("\"criteria\"");
  const std::string range = has_dim_scales(*rubric_)
                                ? fmt::format("on its dimension's scale (from {} to {} where the dimension states none)",
                                              number_text(lo_), number_text(hi_))
                                : fmt::format("from {} to {}", number_text(lo_), number_text(hi_));
  t += fmt::format(
      "\nReply with one JSON object and nothing else. {}{} and \"rationale\". Each score is a whole "
      "number {}, or null where the dimension is not applicable. \"rationale\" is an object with the "
      "same dimension keys, each one sentence of at most 40 words saying why.\n",
      judge_format::kKeys, join(keys, ", "), range);
  instructions_ = std::make_shared<const std::string>(std::move(t));
  system_sha256_ = sha256_hex(*instructions_);
  if (rubric_->criteria && rubric_->criteria->per_element()) {
    criterion_instructions_ = std::make_shared<const std::string>(criterion_task_instructions(*rubric_->criteria));
    criterion_sha256_ = sha256_hex(*criterion_instructions_);
  }
  reply_schema_ = build_reply_schema();
  hasher_ = UserMessageHasher(base_call(reply_schema_, "mirac_scores", 0), system_sha256_);
  if (criterion_instructions_)
    criterion_hasher_ = UserMessageHasher(base_call(criterion_schema(), "mirac_criterion", 0), criterion_sha256_);
}

nlohmann::json JudgeBuilder::build_reply_schema() const {
  nlohmann::json properties = nlohmann::json::object(), rationale = nlohmann::json::object();
  nlohmann::json required = nlohmann::json::array();
  for (const auto& dim : rubric_->dims) {
    if (!dim.asked_of_judge()) continue;
    const std::string& d = dim.name.name;
    nlohmann::json scale = nlohmann::json::array();
    const ScoreScale own = dim_scale(*rubric_, d);
    for (double v = own.lo; v <= own.hi; v += 1) scale.push_back(static_cast<long>(v));
    scale.push_back(nullptr);
    properties[d] = {{"type", {"integer", "null"}}, {"enum", scale}};
    rationale[d] = {{"type", "string"}};
    required.push_back(d);
  }
  properties["rationale"] = {
      {"type", "object"}, {"properties", rationale}, {"required", required}, {"additionalProperties", false}};
  nlohmann::json all_required = required;
  if (rubric_->criteria && !rubric_->criteria->per_element()) {
    properties["criteria"] = {{"type", "array"}, {"items", criterion_schema()}};
    all_required.push_back("criteria");
  }
  all_required.push_back("rationale");
  return {{"type", "object"}, {"properties", properties}, {"required", all_required}, {"additionalProperties", false}};
}

std::string JudgeBuilder::message(const Plan& plan, const RequestRow& request, const std::string& answer) const {
  return message_start(plan, request) + answer + message_end(plan, request);
}

std::string JudgeBuilder::message_start(const Plan& plan, const RequestRow& request) const {
  const PromptRow& prompt = plan.prompts[request.prompt];
  const Seed* seed = spec_.find_seed(prompt.seed);
  std::string m = judge_format::kContext;
  m += "seed: " + prompt.seed + "\n";
  if (seed) {
    for (const auto& f : spec_.seed_fields) {
      std::string key = f.name;
      if (f.index_factor >= 0) key += "." + spec_.factors[f.index_factor].levels[prompt.levels[f.index_factor]].name.name;
      auto it = seed->fields.find(key);
      if (it != seed->fields.end() && !it->second.empty()) m += f.name + ": " + it->second + "\n";
    }
  }
  for (std::size_t f = 0; f < spec_.factors.size(); ++f) {
    const ast::Level& level = spec_.factors[f].levels[prompt.levels[f]];
    m += spec_.factors[f].name + ": " + level.name.name + (level.label ? " (" + level.label->value + ")" : "") + "\n";
  }
  m += judge_format::kPrompt + prompt.text + "\n";
  m += judge_format::kAnswer;
  return m;
}

std::string JudgeBuilder::message_end(const Plan& plan, const RequestRow& request) const {
  const PromptRow& prompt = plan.prompts[request.prompt];
  std::string m = "\n";
  if (auto it = spec_.checklists.find(prompt.seed); it != spec_.checklists.end()) {
    m += judge_format::kChecklist;
    for (const auto& [key, value] : it->second.items()) append_value(m, key, value);
  }
  if (rubric_->criteria && !rubric_->criteria->per_element()) {
    m += judge_format::kCriteria;
    const std::vector<std::string> criteria = criteria_of(spec_, *rubric_, prompt.seed);
    if (criteria.empty()) m += "(none)\n";
    for (std::size_t i = 0; i < criteria.size(); ++i) m += fmt::format("{}. {}\n", i + 1, criteria[i]);
  }
  m += judge_format::kClosing;
  return m;
}

JudgeBuilder::PromptHashing JudgeBuilder::prompt_hashing(const Plan& plan, const RequestRow& request) const {
  return {hasher_.begin(message_start(plan, request)), UserMessageHasher::closing(message_end(plan, request))};
}

std::string JudgeBuilder::first_call_hash(const PromptHashing& shared, const std::string& answer) const {
  return UserMessageHasher::finish(shared.before_answer, answer, shared.after_answer);
}

long long JudgeBuilder::token_limit() const {
  const auto& p = judge().params;
  return p.contains("max_tokens") && p["max_tokens"].is_number_integer() ? p["max_tokens"].get<long long>() : 1024;
}

ModelCall JudgeBuilder::base_call(const nlohmann::json& schema, const char* schema_name, long long max_tokens) const {
  const Judge& j = judge();
  ModelCall c;
  auto provider = spec_.providers.find(j.provider);
  if (provider != spec_.providers.end()) address_to(c, provider->second);
  c.model = j.model;
  c.params = j.params;
  c.params.erase("price");
  c.batch = j.batch;
  if (max_tokens > 0) c.params["max_tokens"] = max_tokens;
  // Servers that enforce a schema given as `response_format` (the provider's
  // `structured_output`: OpenAI, and llama.cpp, vLLM and Ollama behind the `local` preset)
  // get the reply's schema; the others get the format in the instructions only (their JSON
  // modes differ or do not exist). A provider named `openai` without the setting keeps it on.
  bool structured = c.provider == "openai";
  if (provider != spec_.providers.end() && provider->second.settings.contains("structured_output") &&
      provider->second.settings["structured_output"].is_boolean())
    structured = provider->second.settings["structured_output"].get<bool>();
  if (structured && !(c.params.contains("extra") && c.params["extra"].contains("response_format")))
    c.params["extra"]["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", schema_name}, {"strict", true}, {"schema", schema}}}};
  return c;
}

void JudgeBuilder::seal(ModelCall& c, const std::string& system_sha256) {
  // The system prompt is hashed once per judge rather than with every request.
  ModelCall unhashed = c;
  unhashed.system = nullptr;
  nlohmann::json canonical = canonical_request(unhashed);
  canonical["system_sha256"] = system_sha256;
  c.hash = sha256_hex(canonical.dump());
}

std::string repair_note(const std::string& repair, int round) {
  return fmt::format("{}(repair {}): {}\nReply again, with the JSON object only.", judge_format::kRepair, round, repair);
}

ModelCall JudgeBuilder::call(const Plan& plan, const RequestRow& request, const std::string& answer,
                             const std::string& repair, int round, long long max_tokens) const {
  ModelCall c = base_call(reply_schema(), "mirac_scores", max_tokens);
  c.system = instructions_;
  c.user = message(plan, request, answer);
  if (!repair.empty()) c.user += repair_note(repair, round);
  c.quotes = request.hash();
  seal(c, system_sha256_);
  return c;
}

std::string JudgeBuilder::call_hash(const Plan& plan, const RequestRow& request, const std::string& answer,
                                   const std::string& repair, int round, long long max_tokens) const {
  // A repair that raises the token limit changes the parameters: rare, built in full.
  if (max_tokens > 0) return call(plan, request, answer, repair, round, max_tokens).hash;
  std::string user = message(plan, request, answer);
  if (!repair.empty()) user += repair_note(repair, round);
  return hasher_.hash(user);
}

std::optional<nlohmann::json> extract_json_object(const std::string& text) {
  std::size_t open = text.find('{'), close = text.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text.substr(open, close - open + 1), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

JudgedScores ScoreReader::read(const Plan& plan, const RequestRow& request, const std::string& reply,
                              const std::vector<CriterionGrade>* grades) const {
  const auto& dims = builder_.dims();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  JudgedScores out;
  out.scores.assign(dims.size(), nan);
  out.rationale.assign(dims.size(), "");
  std::optional<nlohmann::json> obj =
      builder_.asks_scores() ? extract_json_object(reply) : std::optional<nlohmann::json>(nlohmann::json::object());
  if (!obj) {
    out.problem = "the reply holds no JSON object";
    return out;
  }
  std::vector<std::string> problems;
  std::vector<bool> said_na(dims.size(), false);
  const auto& rubric = builder_.rubric();
  const auto& rubric_dims = rubric.dims;
  const PromptRow& prompt = plan.prompts[request.prompt];
  if (rubric.criteria) {
    if (grades) out.criteria = *grades;
    else out.criteria = read_criteria_array(*obj, criteria_of(spec_, rubric, prompt.seed).size(), problems);
  }
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (rubric_dims[d].derived()) {
      // From the share of criteria met; no criteria (or unusable grades): N/A.
      std::size_t met = 0;
      for (const auto& g : out.criteria) met += g.met ? 1 : 0;
      if (!out.criteria.empty())
        out.scores[d] = score_from_bands(rubric_dims[d], static_cast<double>(met) / static_cast<double>(out.criteria.size()));
      continue;
    }
    if (rubric_dims[d].human_only()) continue;  // N/A in the judge's scores: people give it
    auto it = obj->find(dims[d]);
    if (it == obj->end()) {
      problems.push_back(fmt::format("{} is missing", dims[d]));
      continue;
    }
    const nlohmann::json& v = *it;
    double score = nan;
    if (v.is_number()) {
      score = v.get<double>();
    } else if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (s == "N/A" || s == "NA" || s == "n/a" || s == "na") said_na[d] = true;
      else if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) score = std::stod(s);
      else problems.push_back(fmt::format("{} is \"{}\", not a score", dims[d], s));
    } else if (v.is_null()) {
      said_na[d] = true;
    } else {
      problems.push_back(fmt::format("{} is {}, not a score", dims[d], v.dump()));
    }
    if (!std::isnan(score)) {
      if (score != std::floor(score))
        problems.push_back(fmt::format("{} is {}, not a whole number", dims[d], number_text(score)));
      else if (const ScoreScale own = dim_scale(rubric, dims[d]); score < own.lo || score > own.hi)
        problems.push_back(fmt::format("{} is {}, outside the scale {}..{}", dims[d], number_text(score),
                                       number_text(own.lo), number_text(own.hi)));
      else
        out.scores[d] = score;
    }
    if (obj->contains("rationale") && (*obj)["rationale"].is_object()) {
      const auto& r = (*obj)["rationale"];
      if (r.contains(dims[d]) && r[dims[d]].is_string()) out.rationale[d] = r[dims[d]].get<std::string>();
    }
  }
  // `na when` rules, in rubric order, over the scores read so far.
  const Seed* seed = spec_.find_seed(prompt.seed);
  analyze::ScoreTable table;
  table.dims = dims;
  analyze::ScoreRow row;
  row.seed = seed ? static_cast<int>(seed - spec_.seeds.data()) : -1;
  row.model = request.model;
  row.arm = request.arm;
  row.levels = prompt.levels;
  row.scores = out.scores;
  for (std::size_t d = 0; d < dims.size() && row.seed >= 0; ++d) {
    bool na = false;
    if (rubric.dims[d].human_only()) continue;
    if (rubric.dims[d].na_when) {
      try {
        na = analyze::holds(*rubric.dims[d].na_when, spec_, table, row);
      } catch (const EvalError& e) {
        problems.push_back(fmt::format("cannot apply the N/A rule of {}: {}", dims[d], e.what()));
      }
    }
    if (na) {
      out.scores[d] = row.scores[d] = nan;
    } else if (said_na[d]) {
      problems.push_back(rubric.dims[d].na_when
                             ? fmt::format("{} is N/A, but its N/A rule ({}) does not hold", dims[d],
                                           source_of(builder_.sources_, rubric.dims[d].na_when->range))
                             : fmt::format("{} is N/A, but the rubric always scores it", dims[d]));
    }
  }
  out.problem = join(problems, "; ");
  return out;
}

}  // namespace mirac
