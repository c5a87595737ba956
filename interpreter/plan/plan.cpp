#include "interpreter/plan/plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <exception>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "interpreter/eval/cell_scope.hpp"
#include "runtime/hash/hash.hpp"
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
  j["user"] = call.user.str();
  j["params"] = call.params.json();
  // Only from the second answer on: answer 0's request, and so its hash and every store
  // made before `answers` existed, stay as they were.
  if (call.answer > 0) j["answer"] = call.answer;
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

// The settings of answer k: a declared `seed` goes up by k, so that a provider that takes a
// seed draws each answer apart and still reproducibly; without one nothing changes (the
// answers are distinct requests all the same, by their place in the canonical request).
nlohmann::json answer_params(const nlohmann::json& params, std::size_t k) {
  nlohmann::json out = params;
  if (k > 0 && out.contains("seed") && out["seed"].is_number_integer())
    out["seed"] = out["seed"].get<std::int64_t>() + static_cast<std::int64_t>(k);
  return out;
}

// Each request's hash, on the machine's cores: hashing is most of planning (432,000 requests at
// ten times MIRA), and each hash depends on its own request alone.
void hash_requests(std::vector<RequestRow>& requests,
                   const std::function<const UserMessageHasher&(const RequestRow&)>& hasher_of) {
  constexpr std::size_t kPerThread = 20000;  // below this a thread costs more than it saves
  std::vector<std::exception_ptr> failures(requests.size() / kPerThread + 2);
  auto hash_range = [&](std::size_t begin, std::size_t end) {
    try {
      for (std::size_t i = begin; i < end; ++i)
        requests[i].digest = hash_digest(hasher_of(requests[i]).hash(requests[i].user)).value();
    } catch (...) {  // rethrown on the planning thread, not left to end the process
      failures[begin / kPerThread] = std::current_exception();
    }
  };
  const std::size_t threads =
      std::clamp<std::size_t>(requests.size() / kPerThread, 1, std::max(1u, std::min(4u, std::thread::hardware_concurrency())));
  std::vector<std::thread> helpers;
  const std::size_t share = (requests.size() + threads - 1) / threads;
  std::size_t mine = std::min(requests.size(), share);  // this thread's part: the first, and any a thread could not take
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(hash_range, std::min(requests.size(), t * share), std::min(requests.size(), (t + 1) * share));
    } catch (const std::system_error&) {
      mine = requests.size();  // no thread to be had: the parts from here on are this thread's
      break;
    }
  }
  hash_range(0, std::min(requests.size(), share));
  if (mine > share) hash_range(std::min(requests.size(), (helpers.size() + 1) * share), mine);
  for (auto& h : helpers) h.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

ModelCall RequestRow::call() const {
  ModelCall c = target ? *target : ModelCall{};
  c.user = user;
  c.hash = hash();
  c.answer = answer;
  return c;
}

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
  const std::size_t answers = static_cast<std::size_t>(std::max(spec.answers, 1));
  plan.requests.reserve(plan.prompts.size() * spec.models.size() * spec.arms.size() * answers);
  // One model, arm and answer's requests differ in their prompt alone: the rest of the
  // canonical request is serialised once per triple, not once per request.
  auto slot = [&](std::size_t m, std::size_t a, std::size_t k) { return (m * spec.arms.size() + a) * answers + k; };
  std::vector<UserMessageHasher> hashers(spec.models.size() * spec.arms.size() * answers);
  // Each triple's call but its prompt and hash; its requests share the base URL, system
  // prompt and parameters of this one rather than a copy each.
  std::vector<std::shared_ptr<ModelCall>> shared(hashers.size());
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    auto provider = spec.providers.find(spec.models[m].provider);
    if (provider == spec.providers.end()) continue;
    for (std::size_t a = 0; a < spec.arms.size(); ++a)
      for (std::size_t k = 0; k < answers; ++k) {
        auto held = std::make_shared<ModelCall>();
        shared[slot(m, a, k)] = held;
        ModelCall& call = *held;
        address_to(call, provider->second);
        call.model = spec.models[m].model;
        call.params = answer_params(spec.models[m].params, k);  // check keeps the price out: what a call costs is not part of it
        call.answer = static_cast<int>(k);
        hashers[slot(m, a, k)] = UserMessageHasher(call, system_hashes[a]);
        call.system = systems[a];
        call.batch = spec.models[m].batch;
      }
  }
  for (std::size_t p = 0; p < plan.prompts.size(); ++p) {
    const SharedText prompt_text(plan.prompts[p].text);  // one copy for all its requests
    for (std::size_t m = 0; m < spec.models.size(); ++m) {
      const Model& model = spec.models[m];
      auto provider = spec.providers.find(model.provider);
      if (provider == spec.providers.end()) continue;  // reported by check
      for (std::size_t a = 0; a < spec.arms.size(); ++a)
        for (std::size_t k = 0; k < answers; ++k) {
          RequestRow r;
          r.prompt = p;
          r.model = static_cast<int>(m);
          r.arm = static_cast<int>(a);
          r.answer = static_cast<int>(k);
          r.target = shared[slot(m, a, k)];
          r.user = prompt_text;
          plan.requests.push_back(std::move(r));
        }
    }
  }
  hash_requests(plan.requests, [&](const RequestRow& r) -> const UserMessageHasher& {
    return hashers[slot(static_cast<std::size_t>(r.model), static_cast<std::size_t>(r.arm), static_cast<std::size_t>(r.answer))];
  });
  for (std::size_t r = 0; r < plan.requests.size(); ++r)
    for (std::size_t j = 0; j < spec.judges.size(); ++j) plan.judge_tasks.push_back({r, static_cast<int>(j)});
  return plan;
}

}  // namespace mirac
