// settings.cpp: settings blocks (of providers, defaults, models and judges) read into the
// JSON that requests and the scheduler carry, with credentials kept out of them.
#include <fmt/format.h>

#include "interpreter/check/context.hpp"
#include "runtime/providers/secrets.hpp"

namespace mirac {

namespace {

// A string value anywhere in `e` (lists included) shaped like a key; null when none is.
const ast::Expr* key_shaped_value(const ast::Expr& e) {
  if (const auto* s = std::get_if<ast::StringLit>(&e.node)) return looks_like_key(s->value) ? &e : nullptr;
  if (const auto* l = std::get_if<ast::ListLit>(&e.node))
    for (const auto& item : l->items)
      if (const ast::Expr* found = key_shaped_value(item)) return found;
  return nullptr;
}

// One setting's value: a literal, a word (`rubric mira`), a list of them, or a call such as
// file("x") kept in its call form for the caller to interpret.
nlohmann::json literal_json(const ast::Expr& x, Diagnostics& diags) {
  if (const auto* n = std::get_if<ast::NumberLit>(&x.node)) {
    if (n->text.find_first_of(".eE") == std::string::npos) return std::stoll(n->text);
    return n->value;
  }
  if (const auto* s = std::get_if<ast::StringLit>(&x.node)) return s->value;
  if (const auto* b = std::get_if<ast::BoolLit>(&x.node)) return b->value;
  if (std::holds_alternative<ast::NoneLit>(x.node)) return nullptr;
  if (const auto* nm = std::get_if<ast::Name>(&x.node)) return nm->name;
  if (const auto* l = std::get_if<ast::ListLit>(&x.node)) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& item : l->items) arr.push_back(literal_json(item, diags));
    return arr;
  }
  if (const auto* c = std::get_if<ast::Call>(&x.node)) {
    nlohmann::json call = {{"call", c->callee.name}, {"args", nlohmann::json::array()}};
    for (const auto& a : c->args) call["args"].push_back(literal_json(a, diags));
    return call;
  }
  if (const auto* u = std::get_if<ast::Unary>(&x.node)) {
    if (u->op == "-" && std::holds_alternative<ast::NumberLit>(u->operand->node)) {
      nlohmann::json v = literal_json(*u->operand, diags);
      return v.is_number_integer() ? nlohmann::json(-v.get<long long>()) : nlohmann::json(-v.get<double>());
    }
  }
  diags.error(x.range, "a setting must be a number, a string, true/false, none, a word, a list or a block");
  return nullptr;
}

}  // namespace

nlohmann::json block_json(const ast::Block& block, Diagnostics& diags) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& p : block.props) {
    if (out.contains(p.key.name)) diags.error(p.key.range, fmt::format("setting '{}' is given twice", p.key.name));
    if (holds_credential(p, &diags)) continue;
    if (p.block) out[p.key.name] = block_json(*p.block, diags);
    else out[p.key.name] = literal_json(*p.value, diags);
  }
  return out;
}

bool holds_credential(const ast::Property& p, Diagnostics* diags) {
  if (is_credential_name(p.key.name)) {
    if (diags)
      diags->error(p.key.range, fmt::format("'{}' would hold a credential, and a spec cannot hold one; keys come from "
                                            "the environment (see key_env)", p.key.name));
    return true;
  }
  const ast::Expr* value = p.value ? key_shaped_value(*p.value) : nullptr;
  if (!value) return false;
  if (diags && p.key.name == "key_env")
    diags->error(value->range, "key_env must name the environment variable that holds the key (like OPENAI_API_KEY); "
                               "this value looks like the key itself: put it in the environment instead");
  else if (diags)
    diags->error(value->range, fmt::format("the value of '{}' looks like an API key, and a spec cannot hold one; keys "
                                           "come from the environment (see key_env)", p.key.name));
  return true;
}

bool check_preset(const CheckContext& cx, const ast::Ident& preset) {
  if (cx.spec.providers.count(preset.name)) return true;
  std::vector<std::string> names;
  for (const auto& [name, provider] : cx.spec.providers) names.push_back(name);
  cx.diags.error(preset.range, with_suggestion(fmt::format("unknown provider '{}'", preset.name), preset.name, names) +
                                   (names.empty() ? " (add 'use stdlib.providers')" : ""));
  return false;
}

bool take_batch(CheckContext& cx, nlohmann::json& params, const std::optional<ast::Block>& settings,
                SourceRange fallback, const std::string& who) {
  if (!params.contains("batch")) return false;
  const nlohmann::json value = params["batch"];
  params.erase("batch");
  if (value.is_boolean()) return value.get<bool>();
  SourceRange at = fallback;
  if (settings)
    for (const auto& p : settings->props)
      if (p.key.name == "batch") at = p.value ? p.value->range : p.key.range;
  cx.diags.error(at, fmt::format("{}: batch is true or false", who));
  return false;
}

void check_batch_api(CheckContext& cx, bool batch, const std::string& provider, SourceRange at,
                     const std::string& who) {
  auto p = cx.spec.providers.find(provider);
  if (!batch || p == cx.spec.providers.end() || p->second.settings.contains("batch_price")) return;
  cx.diags.error(at, fmt::format("{}: provider '{}' has no batch API: give the provider batch_price (the share of the "
                                 "list price a batch request costs, 0.5 at OpenAI and Anthropic) if its server speaks "
                                 "OpenAI's or Anthropic's batch protocol, or leave batch out",
                                 who, provider));
}

}  // namespace mirac
