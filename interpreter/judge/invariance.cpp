// invariance.cpp: an `invariance` analysis's sample and translation requests (invariance.hpp).
#include "interpreter/judge/invariance.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "interpreter/model/analysis_option.hpp"
#include "interpreter/scores/row_scope.hpp"
#include "runtime/hash/hash.hpp"
#include "runtime/offline/offline_model.hpp"

namespace mirac {

namespace {

std::string word(const ast::Expr& e) {
  const auto* n = std::get_if<ast::Name>(&e.node);
  return n ? n->name : "";
}

// The factor and its two levels, from `translate language` (a factor of two levels) or
// `translate language: zh vs en`. False when they do not resolve (check reports why).
bool translated_levels(const Spec& spec, const ast::AnalysisOption& o, InvarianceCheck& out) {
  if (o.values.size() != 1) return false;
  const ast::OptionValue& v = o.values[0];
  const std::string factor = v.label ? v.label->name : word(v.value);
  out.factor = spec.factor_index(factor);
  if (out.factor < 0) return false;
  const Factor& f = spec.factors[static_cast<std::size_t>(out.factor)];
  if (v.label) {
    if (!v.versus) return false;
    out.level_a = f.level_index(word(v.value));
    out.level_b = f.level_index(word(*v.versus));
  } else if (f.levels.size() == 2) {
    out.level_a = 0, out.level_b = 1;
  }
  return out.level_a >= 0 && out.level_b >= 0 && out.level_a != out.level_b;
}

// `sample N` and `where`, the same for every transformation.
void optional_options(const ast::AnalysisDecl& a, InvarianceCheck& c) {
  if (const ast::AnalysisOption* sample = analysis_option(a, "sample"); sample && sample->values.size() == 1)
    if (const auto* n = std::get_if<ast::NumberLit>(&sample->values[0].value.node); n && n->value >= 0)
      c.sample = static_cast<std::size_t>(n->value);
  if (const ast::AnalysisOption* where = analysis_option(a, "where"); where && where->values.size() == 1)
    c.where = &where->values[0].value;
}

}  // namespace

std::string default_translation_instruction(const Factor& factor, int level) {
  const ast::Level& l = factor.levels[static_cast<std::size_t>(level)];
  const std::string into = l.label ? l.label->value : l.name.name;
  return fmt::format(
      "Translate the text the user sends into {}. It is an answer given to a user; translate all of it and "
      "nothing else: keep its meaning, its level of detail, its structure and formatting (lists, headings, "
      "emphasis), its tone and any mistakes or omissions exactly as they are. Do not answer, correct, shorten, "
      "expand or comment on it. Reply with the translation alone.",
      into);
}

std::vector<InvarianceCheck> invariance_checks(const Spec& spec) {
  std::vector<InvarianceCheck> out;
  for (const auto& a : spec.analyses) {
    if (a.kind.name != "invariance") continue;
    InvarianceCheck c;
    c.decl = &a;
    c.name = a.name.name;
    const ast::AnalysisOption* judge = analysis_option(a, "judge");
    c.judge = spec.judge_index(judge && judge->values.size() == 1 ? rater_name(judge->values[0].value) : spec.scores_rater);
    const ast::AnalysisOption* translate = analysis_option(a, "translate");
    const ast::AnalysisOption* rubric = analysis_option(a, "rubric");
    const ast::AnalysisOption* levels = rubric ? analysis_option(a, "across") : translate;
    if (c.judge < 0 || !levels || !translated_levels(spec, *levels, c)) continue;
    if (rubric) {  // judged again with another rubric: no translation
      c.rubric = rubric->values.size() == 1 ? word(rubric->values[0].value) : "";
      if (!spec.find_rubric(c.rubric)) continue;
      optional_options(a, c);
      out.push_back(std::move(c));
      continue;
    }
    const ast::AnalysisOption* translator = analysis_option(a, "translator");
    const auto* call = translator && translator->values.size() == 1 ? std::get_if<ast::Call>(&translator->values[0].value.node)
                                                                     : nullptr;
    const auto* model = call && call->args.size() == 1 ? std::get_if<ast::StringLit>(&call->args[0].node) : nullptr;
    auto provider = call ? spec.providers.find(call->callee.name) : spec.providers.end();
    if (!model || provider == spec.providers.end()) continue;
    address_to(c.translator, provider->second);
    c.translator.model = model->value;
    // A judge answered offline (`--offline`, or a spec that declares it so) has its
    // translations made offline too, under a model string of their own, as models' are.
    const Judge& j = spec.judges[static_cast<std::size_t>(c.judge)];
    if (auto offline = spec.providers.find(j.provider);
        offline != spec.providers.end() && offline->second.base_url.rfind(kOfflineScheme, 0) == 0 &&
        provider->second.base_url.rfind(kOfflineScheme, 0) != 0) {
      address_to(c.translator, offline->second);
      if (c.translator.model.rfind("sim-", 0) != 0) c.translator.model = "sim-" + c.translator.model;
    }
    c.translator.params = {{"max_tokens", kTranslatorMaxTokens}, {"temperature", 0}};
    const Factor& f = spec.factors[static_cast<std::size_t>(c.factor)];
    for (int l = 0; l < static_cast<int>(f.levels.size()); ++l) c.instructions.push_back(default_translation_instruction(f, l));
    if (const ast::AnalysisOption* given = analysis_option(a, "instruction"))
      for (const auto& v : given->values) {
        const auto* text = std::get_if<ast::StringLit>(&v.value.node);
        const int level = v.label ? f.level_index(v.label->name) : -1;
        if (text && level >= 0) c.instructions[static_cast<std::size_t>(level)] = text->value;
      }
    optional_options(a, c);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<InvarianceItem> invariance_sample(const Spec& spec, const Plan& plan, const InvarianceCheck& check,
                                              Diagnostics& diags) {
  // Pairs: the answers at level_a and level_b of one seed, cell (the other factors' levels),
  // model, arm and answer number.
  struct Pair {
    std::size_t at[2] = {0, 0};
    bool has[2] = {false, false};
  };
  std::unordered_map<std::string, Pair> pairs;
  std::vector<std::string> order;  // pair keys in plan order, so the draw is independent of hashing order
  const auto f = static_cast<std::size_t>(check.factor);
  analyze::ScoreTable blank;
  bool where_failed = false;
  for (std::size_t r = 0; r < plan.requests.size(); ++r) {
    const RequestRow& request = plan.requests[r];
    const PromptRow& prompt = plan.prompts[request.prompt];
    const int level = prompt.levels[f];
    if (level != check.level_a && level != check.level_b) continue;
    analyze::ScoreRow row = analyze::score_row_of(spec, plan, request);
    if (row.seed < 0) continue;
    if (check.where && !where_failed) {
      try {
        if (!analyze::holds(*check.where, spec, blank, row)) continue;
      } catch (const EvalError& e) {
        diags.error(e.range, e.what());
        where_failed = true;
      }
    }
    std::vector<int> others = row.levels;
    others[f] = -1;
    const std::string key = analyze::answer_key(row.seed, row.model, row.arm, others, row.answer);
    auto [it, fresh] = pairs.try_emplace(key);
    if (fresh) order.push_back(key);
    const int side = level == check.level_a ? 0 : 1;
    it->second.at[side] = r;
    it->second.has[side] = true;
  }
  if (where_failed) return {};
  // Per model and arm, the pairs with the smallest hashes.
  std::map<std::pair<int, int>, std::vector<std::pair<std::string, const Pair*>>> strata;
  for (const std::string& key : order) {
    const Pair& p = pairs.at(key);
    if (!p.has[0] || !p.has[1]) continue;
    const RequestRow& request = plan.requests[p.at[0]];
    strata[{request.model, request.arm}].emplace_back(sha256_hex(check.name + '\n' + key), &p);
  }
  std::vector<InvarianceItem> out;
  for (auto& [stratum, list] : strata) {
    if (check.sample > 0 && list.size() > check.sample) {
      std::nth_element(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(check.sample), list.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      list.resize(check.sample);
    }
    for (const auto& [hash, p] : list) {
      if (check.translates()) {
        out.push_back({p->at[0], p->at[1], check.level_b});
        out.push_back({p->at[1], p->at[0], check.level_a});
      } else {  // each judged again as the answer to its own prompt
        out.push_back({p->at[0], p->at[0], check.level_a});
        out.push_back({p->at[1], p->at[1], check.level_b});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const InvarianceItem& x, const InvarianceItem& y) { return x.row < y.row; });
  return out;
}

ModelCall translation_call(const InvarianceCheck& check, int target_level, const std::string& answer) {
  ModelCall call = check.translator;
  call.system = std::make_shared<const std::string>(check.instructions[static_cast<std::size_t>(target_level)]);
  call.user = answer;
  call.hash = sha256_hex(canonical_request(call).dump());
  return call;
}

}  // namespace mirac
