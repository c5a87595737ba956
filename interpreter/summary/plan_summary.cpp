// plan_summary.cpp: what a plan holds and may cost, for `mirac plan` (plan_summary.hpp).
#include "interpreter/summary/plan_summary.hpp"

#include <cmath>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "interpreter/judge/criteria.hpp"
#include "interpreter/judge/judge.hpp"
#include "runtime/scheduler/scheduler.hpp"

namespace mirac {

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
std::vector<JudgingForecast> forecast_judging(const Spec& spec, const Plan& plan, const SourceManager& sources) {
  std::vector<JudgingForecast> out;
  const long long fallback = SchedulerOptions{}.default_max_output_tokens;
  auto limit = [&](const nlohmann::json& params) {
    return params.contains("max_tokens") && params["max_tokens"].is_number() ? params["max_tokens"].get<long long>()
                                                                            : fallback;
  };
  for (std::size_t j = 0; j < spec.judges.size(); ++j) {
    const Judge& judge = spec.judges[j];
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
        in += instructions + static_cast<double>(message_size) / 4.0 + static_cast<double>(limit(r.target->params));
        ++calls;
      }
      if (!builder.grades_per_element()) continue;
      // `per element`: a call of its own per criterion of the request's seed.
      const std::size_t n = criteria_of(spec, builder.rubric(), plan.prompts[r.prompt].seed).size();
      for (std::size_t k = 0; k < n; ++k) {
        const ModelCall c = builder.criterion_call(plan, r, "", k);
        in += static_cast<double>(c.system->size() + c.user.size()) / 4.0 + static_cast<double>(limit(r.target->params));
        ++calls;
      }
    }
    JudgingForecast f;
    f.judge = judge.name;
    f.calls = static_cast<long long>(calls);
    const double out_tokens = calls * static_cast<double>(limit(judge.params));
    f.max_input_tokens = std::llround(in);
    f.max_output_tokens = std::llround(out_tokens);
    f.batch = judge.batch;
    if (judge.price) {
      // At the price it is declared to pay (batch or not), and at the other for comparison.
      const double list = in / 1e6 * judge.price->input + out_tokens / 1e6 * judge.price->output;
      const double batch = list * batch_share(spec, judge.provider);
      f.cost = Costs{judge.batch ? batch : list, list, batch};
    }
    out.push_back(std::move(f));
  }
  return out;
}

PlanCounts count_plan(const Spec& spec, const Plan& plan, const SourceManager* sources) {
  PlanCounts c;
  for (int f : spec.design) c.cells *= spec.factors[f].levels.size();
  c.by_model.assign(spec.models.size(), 0);
  c.by_arm.assign(spec.arms.size(), 0);
  c.by_level.resize(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) c.by_level[f].assign(spec.factors[f].levels.size(), 0);
  for (const auto& r : plan.requests) {
    ++c.by_model[static_cast<std::size_t>(r.model)];
    ++c.by_arm[static_cast<std::size_t>(r.arm)];
    const auto& levels = plan.prompts[r.prompt].levels;
    for (std::size_t f = 0; f < levels.size(); ++f) ++c.by_level[f][levels[f]];
  }
  // Forecast: input tokens estimated from the text (as the scheduler does), output tokens
  // at most the token limit; cost for the models with a price (their own, or their
  // provider's list price).
  double total_in = 0, total_out = 0;
  std::vector<std::pair<double, double>> tokens(spec.models.size());  // one pass over the plan, not one per model
  for (const auto& r : plan.requests) {
    if (!r.target) continue;
    auto [i, o] = estimate_tokens(*r.target, r.user.size(), SchedulerOptions{}.default_max_output_tokens);
    tokens[static_cast<std::size_t>(r.model)].first += i;
    tokens[static_cast<std::size_t>(r.model)].second += o;
  }
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    const auto [in, out] = tokens[m];
    const Model& model = spec.models[m];
    ModelForecast f;
    f.input_tokens = std::llround(in);
    f.max_output_tokens = std::llround(out);
    f.batch = model.batch;
    if (model.price) {
      // At the price the model is declared to pay (`batch true`: the batch price), and at
      // the batch price for comparison (what `--batch` would cost).
      const double list = in / 1e6 * model.price->input + out / 1e6 * model.price->output;
      const double batch = list * batch_share(spec, model.provider);
      f.cost = Costs{model.batch ? batch : list, list, batch};
      c.max_cost_usd += f.cost->declared;
      c.max_cost_usd_batch += batch;
    } else {
      c.unpriced_models.push_back(model.name);
    }
    total_in += in;
    total_out += out;
    c.models.push_back(f);
  }
  c.input_tokens = std::llround(total_in);
  c.max_output_tokens = std::llround(total_out);
  if (sources) c.judging = forecast_judging(spec, plan, *sources);
  if (sources) c.invariance = forecast_invariance(spec, plan, *sources);
  return c;
}

namespace {

nlohmann::ordered_json price_json(const Price& p) {
  return nlohmann::ordered_json{{"input", p.input}, {"output", p.output}, {"from", p.from}};
}

nlohmann::ordered_json forecast_json(const Spec& spec, const PlanCounts& c) {
  nlohmann::ordered_json by_model = nlohmann::ordered_json::object();
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    const ModelForecast& f = c.models[m];
    nlohmann::ordered_json row{{"input_tokens", f.input_tokens}, {"max_output_tokens", f.max_output_tokens}};
    row["batch"] = f.batch;
    if (f.cost) {
      row["price"] = price_json(*spec.models[m].price);
      row["max_cost_usd"] = f.cost->declared;
      row["max_cost_usd_batch"] = f.cost->batch;
    }
    by_model[spec.models[m].name] = std::move(row);
  }
  nlohmann::ordered_json j = {{"input_tokens", c.input_tokens}, {"max_output_tokens", c.max_output_tokens},
                              {"max_cost_usd", c.max_cost_usd}, {"max_cost_usd_batch", c.max_cost_usd_batch},
                              {"unpriced_models", c.unpriced_models}, {"by_model", by_model}};
  if (c.judging) {
    nlohmann::ordered_json judging = nlohmann::ordered_json::array();
    for (const auto& f : *c.judging) {
      nlohmann::ordered_json row{{"judge", f.judge}, {"calls", f.calls}, {"max_input_tokens", f.max_input_tokens},
                                 {"max_output_tokens", f.max_output_tokens}, {"batch", f.batch}};
      if (f.cost) {
        row["max_cost_usd"] = f.cost->declared;
        row["max_cost_usd_list"] = f.cost->list;
        row["max_cost_usd_batch"] = f.cost->batch;
      }
      judging.push_back(std::move(row));
    }
    j["judging"] = judging;
  }
  if (c.invariance && !c.invariance->empty()) {
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const auto& f : *c.invariance) {
      nlohmann::ordered_json row{{"analysis", f.name}, {"translations", f.translations}, {"judgments", f.judgments},
                                 {"max_input_tokens", f.max_input_tokens}, {"max_output_tokens", f.max_output_tokens}};
      if (f.max_cost_usd) row["max_cost_usd"] = *f.max_cost_usd;
      checks.push_back(std::move(row));
    }
    j["invariance"] = checks;
  }
  return j;
}

}  // namespace

std::size_t planned_seeds(const Plan& plan) {
  std::set<std::string_view> seeds;
  for (const auto& p : plan.prompts) seeds.insert(p.seed);
  return seeds.size();
}

nlohmann::ordered_json plan_summary(const Spec& spec, const Plan& plan, const SourceManager* sources,
                                    const SummarySelection* selected) {
  const PlanCounts c = count_plan(spec, plan, sources);
  nlohmann::ordered_json j;
  j["spec"] = spec.name;
  j["title"] = spec.title;
  if (selected)
    j["selected"] = {{"by", selected->by},
                     {"plan", {{"seeds", selected->seeds},
                               {"prompts", selected->prompts},
                               {"requests", selected->requests},
                               {"judge_calls", selected->judge_calls}}}};
  j["seeds"] = selected ? planned_seeds(plan) : spec.seeds.size();
  nlohmann::ordered_json design = nlohmann::ordered_json::array();
  for (int f : spec.design)
    design.push_back({{"factor", spec.factors[f].name}, {"levels", spec.factors[f].level_names()}});
  j["design"] = design;
  j["cells"] = c.cells;
  j["prompts"] = plan.prompts.size();
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const auto& m : spec.models) models.push_back({{"name", m.name}, {"provider", m.provider}, {"model", m.model}});
  j["models"] = models;
  nlohmann::ordered_json arms = nlohmann::ordered_json::array();
  for (const auto& a : spec.arms) arms.push_back({{"name", a.name}, {"system", a.system_source}});
  j["arms"] = arms;
  j["answers_per_prompt"] = spec.answers;
  j["requests"] = plan.requests.size();
  j["judge_calls"] = plan.judge_tasks.size();
  nlohmann::ordered_json judges = nlohmann::ordered_json::array();
  for (const auto& jd : spec.judges) {
    nlohmann::ordered_json row{{"name", jd.name}, {"provider", jd.provider}, {"model", jd.model}, {"rubric", jd.rubric}};
    if (const ast::RubricDecl* r = spec.find_rubric(jd.rubric); r && has_dim_scales(*r)) {
      nlohmann::ordered_json scales = nlohmann::ordered_json::object();  // only where a dimension has its own
      for (const auto& d : r->dims) {
        const ScoreScale s = dim_scale(*r, d.name.name);
        scales[d.name.name] = {s.lo, s.hi};
      }
      row["scales"] = std::move(scales);
    }
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
  for (std::size_t m = 0; m < spec.models.size(); ++m) by_model[spec.models[m].name] = c.by_model[m];
  for (std::size_t a = 0; a < spec.arms.size(); ++a) by_arm[spec.arms[a].name] = c.by_arm[a];
  j["requests_by_model"] = by_model;
  j["requests_by_arm"] = by_arm;
  nlohmann::ordered_json by_factor = nlohmann::ordered_json::object();
  for (int f : spec.design) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::object();
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) levels[spec.factors[f].levels[l].name.name] = c.by_level[f][l];
    by_factor[spec.factors[f].name] = levels;
  }
  j["requests_by_factor"] = by_factor;
  j["forecast"] = forecast_json(spec, c);
  nlohmann::ordered_json analyses = nlohmann::ordered_json::array();
  for (const auto& a : spec.analyses) analyses.push_back({{"name", a.name.name}, {"kind", a.kind.name}});
  j["analyses"] = analyses;
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  for (const auto& f : spec.flags) flags.push_back(f.name.name);
  j["flags"] = flags;
  nlohmann::ordered_json contrasts = nlohmann::ordered_json::array();
  for (const auto& c2 : spec.contrasts) contrasts.push_back(c2.name.name);
  j["contrasts"] = contrasts;
  return j;
}

namespace {

// " (scale 1..5; OVERALL 1..10)" after a judge whose rubric has dimensions of their own
// scale; "" for a rubric of one scale, whose line stays as it was.
std::string dim_scales_text(const Spec& spec, const std::string& rubric) {
  const ast::RubricDecl* r = spec.find_rubric(rubric);
  if (!r || !has_dim_scales(*r)) return "";
  const ScoreScale whole = dim_scale(*r, "");  // no dimension is named "": the rubric's own scale
  std::string out = fmt::format(" (scale {}..{}", whole.lo, whole.hi);
  for (const auto& d : r->dims)
    if (const ScoreScale own = dim_scale(*r, d.name.name); !(own == whole)) out += fmt::format("; {} {}..{}", d.name.name, own.lo, own.hi);
  return out + ")";
}

std::string tokens_line(const PlanCounts& c, std::size_t models) {
  if (c.unpriced_models.size() >= models) return fmt::format("tokens       ~{} in, at most {} out\n", c.input_tokens, c.max_output_tokens);
  return fmt::format("tokens       ~{} in, at most {} out; cost at most ${:.2f}{}{}\n", c.input_tokens,
                     c.max_output_tokens, c.max_cost_usd, c.unpriced_models.empty() ? "" : " (priced models only)",
                     c.max_cost_usd_batch < c.max_cost_usd ? fmt::format(", ${:.2f} with --batch", c.max_cost_usd_batch)
                                                           : "");
}

std::string judging_line(const JudgingForecast& f, std::size_t requests) {
  const std::string cost =
      !f.cost ? "; no price"
              : fmt::format("; cost at most ${:.2f}{}", f.cost->declared,
                            f.batch                       ? " at batch prices"
                            : f.cost->batch < f.cost->list ? fmt::format(", ${:.2f} with --batch", f.cost->batch)
                                                          : "");
  // A judge grading criteria per element calls more than once per answer.
  const std::string calls = f.calls != static_cast<long long>(requests) ? fmt::format(", {} calls", f.calls) : "";
  return fmt::format("judging      ~{} in at most, at most {} out{} ({}{}; answers at their token limit, repairs "
                     "not counted)\n",
                     f.max_input_tokens, f.max_output_tokens, cost, f.judge, calls);
}


// The lines of prompts, requests and judge calls: how each count comes about, or, for a
// selection, what the whole plan holds.
std::string count_lines(const Spec& spec, const Plan& plan, const PlanCounts& c, const SummarySelection* selected) {
  if (selected) {
    return fmt::format("selected by {}: every count, token and cost below is of these requests alone\n", selected->by) +
           fmt::format("prompts      {:>8}  of {} in the plan ({} of {} seeds)\n", plan.prompts.size(), selected->prompts,
                       planned_seeds(plan), selected->seeds) +
           fmt::format("requests     {:>8}  of {} in the plan\n", plan.requests.size(), selected->requests) +
           fmt::format("judge calls  {:>8}  of {} in the plan\n", plan.judge_tasks.size(), selected->judge_calls);
  }
  std::string design;
  for (int f : spec.design) {
    if (!design.empty()) design += " x ";
    design += fmt::format("{} {}", spec.factors[f].name, spec.factors[f].levels.size());
  }
  std::string out = fmt::format("prompts      {:>8}  = {} seeds x {} cells ({})\n", plan.prompts.size(), spec.seeds.size(),
                                c.cells, design);
  out += fmt::format("requests     {:>8}  = prompts x {} model{} x {} arm{}{}\n", plan.requests.size(), spec.models.size(),
                     spec.models.size() == 1 ? "" : "s", spec.arms.size(), spec.arms.size() == 1 ? "" : "s",
                     spec.answers > 1 ? fmt::format(" x {} answers", spec.answers) : "");
  out += fmt::format("judge calls  {:>8}  = requests x {} judge{}\n", plan.judge_tasks.size(), spec.judges.size(),
                     spec.judges.size() == 1 ? "" : "s");
  return out;
}

}  // namespace

std::string plan_summary_text(const Spec& spec, const Plan& plan, const SourceManager* sources,
                              const SummarySelection* selected) {
  const PlanCounts c = count_plan(spec, plan, sources);
  std::string out = fmt::format("audit {}{}\n", spec.name, spec.title.empty() ? "" : ": " + spec.title);
  out += count_lines(spec, plan, c, selected);
  out += tokens_line(c, spec.models.size());
  if (c.judging)
    for (const auto& f : *c.judging) out += judging_line(f, plan.requests.size());
  if (c.invariance)
    for (const auto& f : *c.invariance)
      out += fmt::format("invariance   ~{} in at most, at most {} out{} ({}: {}{} judgments; repairs not counted)\n",
                         f.max_input_tokens, f.max_output_tokens,
                         f.max_cost_usd ? fmt::format("; cost at most ${:.2f}", *f.max_cost_usd) : "; no price", f.name,
                         f.translations ? fmt::format("{} translations, ", f.translations) : "", f.judgments);
  out += "\nby model\n";
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    const Model& model = spec.models[m];
    const ModelForecast& f = c.models[m];
    out += fmt::format("  {:<12} {:>8}  {}(\"{}\")  ~{} tokens in{}\n", model.name, c.by_model[m], model.provider,
                       model.model, f.input_tokens,
                       f.cost ? fmt::format(", at most ${:.2f}{}", f.cost->declared, f.batch ? " (batch)" : "") : "");
  }
  out += "by arm\n";
  for (std::size_t a = 0; a < spec.arms.size(); ++a)
    out += fmt::format("  {:<12} {:>8}  system: {}\n", spec.arms[a].name, c.by_arm[a], spec.arms[a].system_source);
  out += "by factor\n";
  for (int f : spec.design) {
    std::string parts;
    for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l)
      parts += fmt::format("  {} {}", spec.factors[f].levels[l].name.name, c.by_level[f][l]);
    out += fmt::format("  {:<12}{}\n", spec.factors[f].name, parts);
  }
  if (!spec.judges.empty()) {
    out += "judges\n";
    for (const auto& j : spec.judges)
      out += fmt::format("  {:<12} {}(\"{}\") rubric {}{}\n", j.name, j.provider, j.model, j.rubric, dim_scales_text(spec, j.rubric));
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
                        {"hash", r.hash()},
                        {"request", canonical_request(r.call())}});
  }
  j["request_table"] = requests;
  nlohmann::ordered_json judge_tasks = nlohmann::ordered_json::array();
  for (const auto& t : plan.judge_tasks)
    judge_tasks.push_back({{"request", plan.requests[t.request].hash()}, {"judge", spec.judges[t.judge].name}});
  j["judge_tasks"] = judge_tasks;
  return j;
}

}  // namespace mirac
