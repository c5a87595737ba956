#include "interpreter/plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "interpreter/cell_scope.hpp"
#include "interpreter/hash.hpp"
#include "interpreter/criteria.hpp"
#include "interpreter/judge.hpp"
#include "runtime/json/json_string.hpp"
#include "runtime/scheduler/scheduler.hpp"

namespace mirac {

namespace {

WireProtocol protocol_of(const std::string& name) {
  return name == "anthropic_messages" ? WireProtocol::anthropic_messages : WireProtocol::openai_chat;
}

// Reports each distinct evaluation problem once, however many prompts hit it.
class ProblemOnce {
 public:
  explicit ProblemOnce(Diagnostics& diags) : diags_(diags) {}
  void report(const EvalError& e, const std::string& context) {
    auto key = std::make_tuple(e.range.file, e.range.begin.byte, std::string(e.what()));
    if (!seen_.insert(key).second) return;
    diags_.error(e.range, e.what());
    diags_.note(context);
  }

 private:
  Diagnostics& diags_;
  std::set<std::tuple<FileId, std::size_t, std::string>> seen_;
};

}  // namespace

namespace {

nlohmann::json canonical_with(const ModelCall& call, nlohmann::json system_sha256) {
  nlohmann::json j;
  j["provider"] = call.provider;
  j["protocol"] = call.protocol == WireProtocol::anthropic_messages ? "anthropic_messages" : "openai_chat";
  j["model"] = call.model;
  j["system_sha256"] = std::move(system_sha256);
  j["user"] = call.user;
  j["params"] = call.params;
  return j;  // nlohmann::json keeps keys sorted, so dump() is canonical
}

}  // namespace

void address_to(ModelCall& call, const Provider& provider) {
  call.provider = provider.name;
  call.protocol = protocol_of(provider.protocol);
  call.base_url = provider.base_url;
  call.key_env = provider.key_env;
  if (auto field = provider.settings.find("token_limit_field"); field != provider.settings.end() && field->is_string())
    call.token_limit_field = field->get<std::string>();
}

nlohmann::json canonical_request(const ModelCall& call) {
  // The system prompt enters by its own hash: arms share a long system prompt across
  // thousands of requests, and hashing it once per request would dominate planning.
  return canonical_with(call, call.system ? nlohmann::json(sha256_hex(*call.system)) : nlohmann::json(nullptr));
}

UserMessageHasher::UserMessageHasher(const ModelCall& call, const nlohmann::json& system_sha256) {
  ModelCall without_user = call;
  without_user.user.clear();
  head_ = canonical_with(without_user, system_sha256).dump();
  // `user` sorts after every other key, so the message's value closes the object.
  constexpr std::string_view tail = "\"user\":\"\"}";
  if (head_.size() < tail.size() || head_.compare(head_.size() - tail.size(), tail.size(), tail) != 0)
    throw std::logic_error("UserMessageHasher: the canonical request does not end with its user message");
  head_.resize(head_.size() - 3);  // keeps `"user":`
  head_state_.update(head_);
}

std::string UserMessageHasher::hash(const std::string& user) const {
  std::string rest;
  rest.reserve(user.size() + 8);
  append_json_string(rest, user);
  rest += '}';
  Sha256 state(head_state_);
  state.update(rest);
  return state.hex();
}

Sha256 UserMessageHasher::begin(std::string_view message_start) const {
  std::string start = head_;
  start += '"';
  append_json_escaped(start, message_start);
  Sha256 state;
  state.update(start);
  return state;
}

std::string UserMessageHasher::closing(std::string_view message_end) {
  std::string out;
  append_json_escaped(out, message_end);
  out += "\"}";
  return out;
}

std::string UserMessageHasher::finish(const Sha256& begun, std::string_view middle, const std::string& closing) {
  std::string escaped;
  append_json_escaped(escaped, middle);
  Sha256 state(begun);
  state.update(escaped).update(closing);
  return state.hex();
}

namespace {

// A factor whose levels give every seed the same prompt text makes identical requests: one
// answer would stand for all of its levels, and every comparison of them would be zero.
void warn_factors_without_effect(const Spec& spec, const Plan& plan, Diagnostics& diags) {
  for (std::size_t f = 0; f < spec.factors.size(); ++f) {
    std::map<std::string, std::pair<const std::string*, bool>> texts;  // prompt but f -> (a text, all equal)
    std::set<int> levels;
    for (const auto& p : plan.prompts) {
      std::string key = p.seed;
      for (std::size_t g = 0; g < p.levels.size(); ++g) key += '\x1f' + (g == f ? std::string() : std::to_string(p.levels[g]));
      levels.insert(p.levels[f]);
      auto [it, fresh] = texts.try_emplace(key, &p.text, true);
      if (!fresh && *it->second.first != p.text) it->second.second = false;
    }
    if (levels.size() < 2 || texts.empty()) continue;
    if (std::all_of(texts.begin(), texts.end(), [](const auto& t) { return t.second.second; })) {
      diags.warning(spec.factors[f].range, fmt::format("the levels of factor '{}' do not change any prompt's text: its {} "
                                                       "levels are identical requests, answered once and scored alike",
                                                       spec.factors[f].name, levels.size()));
      diags.note(fmt::format("use it in the prompt, e.g. a 'text {} {{ ... }}' read as {}.text", spec.factors[f].name,
                             spec.factors[f].name));
    }
  }
}

}  // namespace

Plan build_plan(const Spec& spec, Diagnostics& diags) {
  Plan plan;
  ProblemOnce problems(diags);
  if (!spec.prompt) return plan;  // check() reported what the spec lacks
  if (spec.seeds.empty()) {
    diags.error_at(spec.spec_path.string(), "the spec declares no seeds");
    return plan;
  }
  std::map<std::string, std::size_t> ids;
  std::size_t duplicate_ids = 0;
  std::array<std::string, 3> first_duplicate;
  std::vector<std::vector<int>> cells = cells_of(spec, spec.design);
  plan.prompts.reserve(spec.seeds.size() * cells.size());
  for (const auto& seed : spec.seeds) {
    for (const auto& cell : cells) {
      CellScope scope(spec, seed, cell);
      PromptRow row{"", "", seed.id, cell};
      try {
        row.id = to_text(evaluate(spec.prompt->id, scope));
        row.text = to_text(evaluate(spec.prompt->text, scope));
      } catch (const EvalError& e) {
        problems.report(e, fmt::format("while assembling the prompt of seed '{}' in cell {}", seed.id,
                                       cell_key(spec, spec.design, cell)));
        continue;
      }
      if (auto [it, fresh] = ids.emplace(row.id, plan.prompts.size()); !fresh) {
        if (duplicate_ids++ == 0) first_duplicate = {row.id, seed.id, cell_key(spec, spec.design, cell)};
        continue;
      }
      plan.prompts.push_back(std::move(row));
    }
  }
  if (duplicate_ids > 0) {
    diags.error(spec.prompt->id.range, fmt::format("the prompt id template gives {} prompt{} an id already taken, "
                                                   "first '{}' (seed '{}', cell {})", duplicate_ids,
                                                   duplicate_ids == 1 ? "" : "s", first_duplicate[0],
                                                   first_duplicate[1], first_duplicate[2]));
    diags.note("name every factor of the design in the id template, e.g. \"{seed.id}_{language}_{hls}\"");
  }
  warn_factors_without_effect(spec, plan, diags);

  std::vector<nlohmann::json> system_hashes;
  std::vector<std::shared_ptr<const std::string>> systems;
  for (const auto& arm : spec.arms) {
    system_hashes.push_back(arm.system ? nlohmann::json(sha256_hex(*arm.system)) : nlohmann::json(nullptr));
    systems.push_back(arm.system ? std::make_shared<const std::string>(*arm.system) : nullptr);
  }
  plan.requests.reserve(plan.prompts.size() * spec.models.size() * spec.arms.size());
  // One model and arm's requests differ in their prompt alone: the rest of the canonical
  // request is serialised once per pair, not once per request.
  std::vector<UserMessageHasher> hashers(spec.models.size() * spec.arms.size());
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    auto provider = spec.providers.find(spec.models[m].provider);
    if (provider == spec.providers.end()) continue;
    for (std::size_t a = 0; a < spec.arms.size(); ++a) {
      ModelCall call;
      address_to(call, provider->second);
      call.model = spec.models[m].model;
      call.params = spec.models[m].params;
      hashers[m * spec.arms.size() + a] = UserMessageHasher(call, system_hashes[a]);
    }
  }
  for (std::size_t p = 0; p < plan.prompts.size(); ++p) {
    for (std::size_t m = 0; m < spec.models.size(); ++m) {
      const Model& model = spec.models[m];
      auto provider = spec.providers.find(model.provider);
      if (provider == spec.providers.end()) continue;  // reported by check
      for (std::size_t a = 0; a < spec.arms.size(); ++a) {
        RequestRow r;
        r.prompt = p;
        r.model = static_cast<int>(m);
        r.arm = static_cast<int>(a);
        address_to(r.call, provider->second);
        r.call.model = model.model;
        r.call.system = systems[a];
        r.call.user = plan.prompts[p].text;
        r.call.params = model.params;  // check keeps the price out: what a call costs is not part of it
        r.call.batch = model.batch;
        r.call.hash = hashers[m * spec.arms.size() + a].hash(r.call.user);
        plan.requests.push_back(std::move(r));
      }
    }
  }
  for (std::size_t r = 0; r < plan.requests.size(); ++r)
    for (std::size_t j = 0; j < spec.judges.size(); ++j) plan.judge_tasks.push_back({r, static_cast<int>(j)});
  return plan;
}

// The share of the list price a batch request costs at a provider: its `batch_price`. A
// provider without one has no batch API (its requests go one by one even under --batch),
// so its batch price is its list price.
double batch_share(const Spec& spec, const std::string& provider) {
  auto p = spec.providers.find(provider);
  if (p != spec.providers.end() && p->second.settings.contains("batch_price") && p->second.settings["batch_price"].is_number())
    return p->second.settings["batch_price"].get<double>();
  return 1.0;
}

// Per judge, over every request: input tokens of its instructions and message (the answer
// taken at its model's token limit), output tokens at the judge's own limit; the cost at
// the judge's price. Repairs are not counted: they happen only for unusable replies.
nlohmann::ordered_json judging_forecast(const Spec& spec, const Plan& plan, const SourceManager& sources) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  const long long fallback = SchedulerOptions{}.default_max_output_tokens;
  auto limit = [&](const nlohmann::json& params) {
    return params.contains("max_tokens") && params["max_tokens"].is_number() ? params["max_tokens"].get<long long>()
                                                                            : fallback;
  };
  for (std::size_t j = 0; j < spec.judges.size(); ++j) {
    const Judge& judge = spec.judges[j];
    nlohmann::ordered_json row{{"judge", judge.name}, {"calls", plan.requests.size()}};
    if (!spec.find_rubric(judge.rubric)) continue;
    JudgeBuilder builder(spec, sources, static_cast<int>(j));
    const double instructions = static_cast<double>(builder.instructions().size()) / 4.0;
    double in = 0, calls = 0;
    // A judge's message depends on the prompt, not on the model or arm (the judge is blind to
    // them): built once per prompt, not once per request.
    std::size_t message_prompt = plan.prompts.size(), message_size = 0;
    for (const auto& r : plan.requests) {
      if (builder.asks_scores()) {
        if (r.prompt != message_prompt) {
          message_prompt = r.prompt;
          message_size = builder.message(plan, r, "").size();
        }
        in += instructions + static_cast<double>(message_size) / 4.0 + static_cast<double>(limit(r.call.params));
        ++calls;
      }
      if (!builder.grades_per_element()) continue;
      // `per element`: a call of its own per criterion of the request's seed.
      const std::size_t n = criteria_of(spec, builder.rubric(), plan.prompts[r.prompt].seed).size();
      for (std::size_t k = 0; k < n; ++k) {
        const ModelCall c = builder.criterion_call(plan, r, "", k);
        in += static_cast<double>(c.system->size() + c.user.size()) / 4.0 + static_cast<double>(limit(r.call.params));
        ++calls;
      }
    }
    row["calls"] = static_cast<long long>(calls);
    const double out_tokens = calls * static_cast<double>(limit(judge.params));
    row["max_input_tokens"] = std::llround(in);
    row["max_output_tokens"] = std::llround(out_tokens);
    row["batch"] = judge.batch;
    if (judge.price) {
      // At the price it is declared to pay (batch or not), and at the other for comparison.
      const double list = in / 1e6 * judge.price->input + out_tokens / 1e6 * judge.price->output;
      const double batch = list * batch_share(spec, judge.provider);
      row["max_cost_usd"] = judge.batch ? batch : list;
      row["max_cost_usd_list"] = list;
      row["max_cost_usd_batch"] = batch;
    }
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::ordered_json plan_summary(const Spec& spec, const Plan& plan, const SourceManager* sources) {
  nlohmann::ordered_json j;
  j["spec"] = spec.name;
  j["title"] = spec.title;
  j["seeds"] = spec.seeds.size();
  std::size_t cells = 1;
  nlohmann::ordered_json design = nlohmann::ordered_json::array();
  for (int f : spec.design) {
    cells *= spec.factors[f].levels.size();
    design.push_back({{"factor", spec.factors[f].name}, {"levels", spec.factors[f].level_names()}});
  }
  j["design"] = design;
  j["cells"] = cells;
  j["prompts"] = plan.prompts.size();
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const auto& m : spec.models) models.push_back({{"name", m.name}, {"provider", m.provider}, {"model", m.model}});
  j["models"] = models;
  nlohmann::ordered_json arms = nlohmann::ordered_json::array();
  for (const auto& a : spec.arms) arms.push_back({{"name", a.name}, {"system", a.system_source}});
  j["arms"] = arms;
  j["requests"] = plan.requests.size();
  j["judge_calls"] = plan.judge_tasks.size();
  nlohmann::ordered_json judges = nlohmann::ordered_json::array();
  auto price_json = [](const Price& p) {
    return nlohmann::ordered_json{{"input", p.input}, {"output", p.output}, {"from", p.from}};
  };
  for (const auto& jd : spec.judges) {
    nlohmann::ordered_json row{{"name", jd.name}, {"provider", jd.provider}, {"model", jd.model}, {"rubric", jd.rubric}};
    if (jd.price) row["price"] = price_json(*jd.price);
    judges.push_back(std::move(row));
  }
  j["judges"] = judges;
  nlohmann::ordered_json panels = nlohmann::ordered_json::array();
  for (const auto& p : spec.panels) {
    nlohmann::ordered_json members = nlohmann::ordered_json::array();
    for (int m : p.judges) members.push_back(spec.judges[static_cast<std::size_t>(m)].name);
    panels.push_back({{"name", p.name}, {"aggregate", p.aggregate}, {"judges", members}, {"rubric", p.rubric}});
  }
  j["panels"] = panels;
  j["scores"] = spec.scores_rater.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(spec.scores_rater);

  nlohmann::ordered_json by_model = nlohmann::ordered_json::object(), by_arm = nlohmann::ordered_json::object();
  for (const auto& m : spec.models) by_model[m.name] = 0;
  for (const auto& a : spec.arms) by_arm[a.name] = 0;
  std::vector<std::vector<std::size_t>> by_level(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) by_level[f].assign(spec.factors[f].levels.size(), 0);
  for (const auto& r : plan.requests) {
    by_model[spec.models[r.model].name] = by_model[spec.models[r.model].name].get<std::size_t>() + 1;
    by_arm[spec.arms[r.arm].name] = by_arm[spec.arms[r.arm].name].get<std::size_t>() + 1;
    const auto& levels = plan.prompts[r.prompt].levels;
    for (std::size_t f = 0; f < levels.size(); ++f) ++by_level[f][levels[f]];
  }
  j["requests_by_model"] = by_model;
  j["requests_by_arm"] = by_arm;
  nlohmann::ordered_json by_factor = nlohmann::ordered_json::object();
  for (int f : spec.design) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::object();
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) levels[spec.factors[f].levels[l].name.name] = by_level[f][l];
    by_factor[spec.factors[f].name] = levels;
  }
  j["requests_by_factor"] = by_factor;

  // Forecast: input tokens estimated from the text (as the scheduler does), output tokens
  // at most the token limit; cost for the models with a price (their own, or their
  // provider's list price).
  nlohmann::ordered_json forecast = nlohmann::ordered_json::object();
  double total_in = 0, total_out = 0, total_cost = 0, total_batch = 0;
  nlohmann::ordered_json unpriced = nlohmann::ordered_json::array();
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    double in = 0, out = 0;
    for (const auto& r : plan.requests) {
      if (r.model != static_cast<int>(m)) continue;
      auto [i, o] = estimate_tokens(r.call, SchedulerOptions{}.default_max_output_tokens);
      in += i;
      out += o;
    }
    const auto& price = spec.models[m].price;
    nlohmann::ordered_json row{{"input_tokens", std::llround(in)}, {"max_output_tokens", std::llround(out)}};
    row["batch"] = spec.models[m].batch;
    if (price) {
      // At the price the model is declared to pay (`batch true`: the batch price), and at
      // the batch price for comparison (what `--batch` would cost).
      const double list = in / 1e6 * price->input + out / 1e6 * price->output;
      const double batch = list * batch_share(spec, spec.models[m].provider);
      row["price"] = price_json(*price);
      row["max_cost_usd"] = spec.models[m].batch ? batch : list;
      row["max_cost_usd_batch"] = batch;
      total_cost += spec.models[m].batch ? batch : list;
      total_batch += batch;
    } else {
      unpriced.push_back(spec.models[m].name);
    }
    total_in += in;
    total_out += out;
    forecast[spec.models[m].name] = row;
  }
  j["forecast"] = {{"input_tokens", std::llround(total_in)}, {"max_output_tokens", std::llround(total_out)},
                   {"max_cost_usd", total_cost}, {"max_cost_usd_batch", total_batch}, {"unpriced_models", unpriced},
                   {"by_model", forecast}};
  if (sources) j["forecast"]["judging"] = judging_forecast(spec, plan, *sources);
  nlohmann::ordered_json analyses = nlohmann::ordered_json::array();
  for (const auto& a : spec.analyses) analyses.push_back({{"name", a.name.name}, {"kind", a.kind.name}});
  j["analyses"] = analyses;
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  for (const auto& f : spec.flags) flags.push_back(f.name.name);
  j["flags"] = flags;
  nlohmann::ordered_json contrasts = nlohmann::ordered_json::array();
  for (const auto& c : spec.contrasts) contrasts.push_back(c.name.name);
  j["contrasts"] = contrasts;
  return j;
}

std::string plan_summary_text(const Spec& spec, const Plan& plan, const SourceManager* sources) {
  nlohmann::ordered_json s = plan_summary(spec, plan, sources);
  std::string out = fmt::format("audit {}{}\n", spec.name, spec.title.empty() ? "" : ": " + spec.title);
  std::string design;
  for (const auto& d : s["design"]) {
    if (!design.empty()) design += " x ";
    design += fmt::format("{} {}", d["factor"].get<std::string>(), d["levels"].size());
  }
  out += fmt::format("prompts      {:>8}  = {} seeds x {} cells ({})\n", plan.prompts.size(), spec.seeds.size(),
                     s["cells"].get<std::size_t>(), design);
  out += fmt::format("requests     {:>8}  = prompts x {} model{} x {} arm{}\n", plan.requests.size(), spec.models.size(),
                     spec.models.size() == 1 ? "" : "s", spec.arms.size(), spec.arms.size() == 1 ? "" : "s");
  out += fmt::format("judge calls  {:>8}  = requests x {} judge{}\n", plan.judge_tasks.size(), spec.judges.size(),
                     spec.judges.size() == 1 ? "" : "s");
  const auto& fc = s["forecast"];
  out += fmt::format("tokens       ~{} in, at most {} out{}\n", fc["input_tokens"].get<long long>(),
                     fc["max_output_tokens"].get<long long>(),
                     fc["unpriced_models"].size() < spec.models.size()
                         ? fmt::format("; cost at most ${:.2f}{}{}", fc["max_cost_usd"].get<double>(),
                                       fc["unpriced_models"].empty() ? "" : " (priced models only)",
                                       fc["max_cost_usd_batch"].get<double>() < fc["max_cost_usd"].get<double>()
                                           ? fmt::format(", ${:.2f} with --batch", fc["max_cost_usd_batch"].get<double>())
                                           : "")
                         : "");
  if (fc.contains("judging"))
    for (const auto& jf : fc["judging"])
      out += fmt::format("judging      ~{} in at most, at most {} out{} ({}{}; answers at their token limit, repairs "
                         "not counted)\n",
                         jf["max_input_tokens"].get<long long>(), jf["max_output_tokens"].get<long long>(),
                         jf.contains("max_cost_usd")
                             ? fmt::format("; cost at most ${:.2f}{}", jf["max_cost_usd"].get<double>(),
                                           jf["batch"].get<bool>() ? " at batch prices"
                                           : jf["max_cost_usd_batch"].get<double>() < jf["max_cost_usd_list"].get<double>()
                                               ? fmt::format(", ${:.2f} with --batch", jf["max_cost_usd_batch"].get<double>())
                                               : "")
                             : "; no price",
                         jf["judge"].get<std::string>(),
                         // A judge grading criteria per element calls more than once per answer.
                         jf["calls"].get<long long>() != static_cast<long long>(plan.requests.size())
                             ? fmt::format(", {} calls", jf["calls"].get<long long>())
                             : "");
  out += "\nby model\n";
  for (const auto& m : spec.models) {
    const auto& f = fc["by_model"][m.name];
    out += fmt::format("  {:<12} {:>8}  {}(\"{}\")  ~{} tokens in{}\n", m.name, s["requests_by_model"][m.name].get<std::size_t>(),
                       m.provider, m.model, f["input_tokens"].get<long long>(),
                       f.contains("max_cost_usd") ? fmt::format(", at most ${:.2f}{}", f["max_cost_usd"].get<double>(),
                                                                 f["batch"].get<bool>() ? " (batch)" : "")
                                                  : "");
  }
  out += "by arm\n";
  for (const auto& a : spec.arms)
    out += fmt::format("  {:<12} {:>8}  system: {}\n", a.name, s["requests_by_arm"][a.name].get<std::size_t>(), a.system_source);
  out += "by factor\n";
  for (const auto& [factor, levels] : s["requests_by_factor"].items()) {
    std::string parts;
    for (const auto& [level, n] : levels.items()) parts += fmt::format("  {} {}", level, n.get<std::size_t>());
    out += fmt::format("  {:<12}{}\n", factor, parts);
  }
  if (!spec.judges.empty()) {
    out += "judges\n";
    for (const auto& j : spec.judges) out += fmt::format("  {:<12} {}(\"{}\") rubric {}\n", j.name, j.provider, j.model, j.rubric);
  }
  if (!spec.panels.empty()) {
    out += "panels\n";
    for (const auto& p : spec.panels) {
      std::string members;
      for (int m : p.judges) members += (members.empty() ? "" : ", ") + spec.judges[static_cast<std::size_t>(m)].name;
      out += fmt::format("  {:<12} {}({}) rubric {}\n", p.name, p.aggregate, members, p.rubric);
    }
  }
  if (spec.judges.size() > 1 || !spec.panels.empty()) out += fmt::format("analyses use the scores of {}\n", spec.scores_rater);
  if (!spec.analyses.empty()) {
    out += "analyses\n";
    for (const auto& a : spec.analyses) out += fmt::format("  {:<12} {}\n", a.name.name, a.kind.name);
  }
  return out;
}

nlohmann::ordered_json plan_dump(const Spec& spec, const Plan& plan) {
  nlohmann::ordered_json j = plan_summary(spec, plan);
  nlohmann::ordered_json prompts = nlohmann::ordered_json::array();
  for (const auto& p : plan.prompts) {
    nlohmann::ordered_json row{{"id", p.id}, {"seed", p.seed}};
    for (std::size_t f = 0; f < spec.factors.size(); ++f) row[spec.factors[f].name] = spec.factors[f].levels[p.levels[f]].name.name;
    row["text"] = p.text;
    prompts.push_back(std::move(row));
  }
  j["prompt_table"] = prompts;
  nlohmann::ordered_json requests = nlohmann::ordered_json::array();
  for (const auto& r : plan.requests) {
    requests.push_back({{"prompt", plan.prompts[r.prompt].id},
                        {"model", spec.models[r.model].name},
                        {"arm", spec.arms[r.arm].name},
                        {"hash", r.call.hash},
                        {"request", canonical_request(r.call)}});
  }
  j["request_table"] = requests;
  nlohmann::ordered_json judge_tasks = nlohmann::ordered_json::array();
  for (const auto& t : plan.judge_tasks)
    judge_tasks.push_back({{"request", plan.requests[t.request].call.hash}, {"judge", spec.judges[t.judge].name}});
  j["judge_tasks"] = judge_tasks;
  return j;
}

}  // namespace mirac
