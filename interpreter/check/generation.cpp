// generation.cpp: the settings a request carries (docs/providers.md): `temperature`, `top_p`,
// `max_tokens`, `seed` and `extra`, in a model's, a judge's or the defaults' block. Each is
// checked for its type and range here, at the setting, because the request builder sends
// them as written: `temperature "zero"` or `max_tokens "600"` would reach the provider as a
// JSON string and be refused (or ignored) only after other requests were paid for. The
// range of `temperature` is that of the provider's protocol (issue 30).
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// A setting's number, typed: its value, whether it is whole, and its text as written.
struct NumberSetting {
  double value = 0;
  bool whole = false;
  std::string text;
};

std::optional<NumberSetting> number_of(const ast::Expr& e) {
  if (const auto* n = std::get_if<ast::NumberLit>(&e.node))
    return NumberSetting{n->value, n->text.find_first_of(".eE") == std::string::npos, n->text};
  if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->op == "-")
    if (auto inner = number_of(*u->operand)) return NumberSetting{-inner->value, inner->whole, "-" + inner->text};
  return std::nullopt;
}

// What a value that is not a number is, for the message.
std::string kind_of(const ast::Property& p) {
  if (p.block) return "a block";
  const ast::Expr& e = *p.value;
  if (const auto* s = std::get_if<ast::StringLit>(&e.node)) return fmt::format("the string \"{}\"", s->value);
  if (std::holds_alternative<ast::BoolLit>(e.node)) return "true/false";
  if (std::holds_alternative<ast::Name>(e.node)) return "a word";
  if (std::holds_alternative<ast::ListLit>(e.node)) return "a list";
  return "not a number";
}

// A string that holds a number (`"600"`): the fix is to drop the quotes.
std::optional<std::string> quoted_number(const ast::Property& p) {
  const auto* s = p.value ? std::get_if<ast::StringLit>(&p.value->node) : nullptr;
  if (!s || s->value.empty()) return std::nullopt;
  char* end = nullptr;
  std::strtod(s->value.c_str(), &end);
  if (end != s->value.c_str() + s->value.size() || std::isspace(static_cast<unsigned char>(s->value[0])))
    return std::nullopt;
  return s->value;
}

// The typed settings of one block, each with its range and how to write it.
struct GenerationRule {
  const char* key;
  const char* expected;  // "a number from 0 to 2"
  double lo, hi;         // inclusive; hi < lo: no upper bound
  bool whole;
  bool positive;         // above 0, not at 0
  const char* example;   // a value that is right
};

constexpr GenerationRule kRules[] = {
    {"temperature", "a number from 0 to 2", 0, 2, false, false, "0"},
    {"top_p", "a number above 0 and at most 1", 0, 1, false, true, "0.9"},
    {"max_tokens", "a positive whole number (the most tokens an answer may have)", 1, 0, true, true, "1024"},
    {"seed", "a whole number", -9.2e18, 9.2e18, true, false, "42"},
};

// The highest temperature each wire protocol accepts: OpenAI's Chat Completions takes 0 to
// 2, Anthropic's Messages API 0 to 1 and refuses more with a 400, after the requests
// before it were paid for. A protocol not listed takes the widest range, 0 to 2.
struct ProtocolTemperature {
  const char* protocol;
  double hi;
};
constexpr ProtocolTemperature kTemperatures[] = {{"openai_chat", 2}, {"anthropic_messages", 1}};

double highest_temperature(const Provider& provider) {
  for (const auto& t : kTemperatures)
    if (provider.protocol == t.protocol) return t.hi;
  return 2;
}

// A rule as it applies to one block: only temperature depends on the provider, whose
// protocol sets its upper bound and whose name the message then gives, so the fix is plain.
struct AppliedRule {
  const GenerationRule& rule;
  double hi;
  std::string expected;
};

AppliedRule apply(const GenerationRule& rule, const Provider* provider) {
  if (!provider || std::string_view(rule.key) != "temperature") return {rule, rule.hi, rule.expected};
  double hi = highest_temperature(*provider);
  return {rule, hi,
          fmt::format("a number from 0 to {} on provider '{}' (protocol {})", hi, provider->name, provider->protocol)};
}

bool in_range(const AppliedRule& applied, const NumberSetting& n) {
  const GenerationRule& rule = applied.rule;
  if (rule.whole && !n.whole) return false;
  if (rule.positive ? n.value <= 0 : n.value < rule.lo) return false;
  return applied.hi < rule.lo || n.value <= applied.hi;
}

// A value to suggest for a number out of range: for temperature the nearer bound.
std::string example_for(const AppliedRule& applied, const NumberSetting& n) {
  if (std::string_view(applied.rule.key) == "temperature")
    return fmt::format("{}", n.value > applied.hi ? applied.hi : applied.rule.lo);
  return applied.rule.example;
}

void check_rule(const AppliedRule& applied, const ast::Property& p, const std::string& owner, Diagnostics& diags) {
  const GenerationRule& rule = applied.rule;
  // `none` leaves the setting to the provider, as it always has.
  if (p.value && std::holds_alternative<ast::NoneLit>(p.value->node)) return;
  SourceRange at = p.value ? p.value->range : p.key.range;
  if (auto n = p.value ? number_of(*p.value) : std::nullopt) {
    if (in_range(applied, *n)) return;
    diags.error(at, fmt::format("{}: {} must be {}, not {}", owner, rule.key, applied.expected, n->text));
    diags.note(fmt::format("for example: {} {}", rule.key, example_for(applied, *n)));
    return;
  }
  diags.error(at, fmt::format("{}: {} must be {}, not {}; it would be sent as written", owner, rule.key,
                              applied.expected, kind_of(p)));
  if (auto q = quoted_number(p)) diags.note(fmt::format("write the number without quotes: {} {}", rule.key, *q));
  else diags.note(fmt::format("for example: {} {}", rule.key, rule.example));
}

// The last `temperature` the defaults give, which every model without its own takes.
const ast::Property* default_temperature(const CheckContext& cx) {
  const ast::Property* found = nullptr;
  for (auto [d, def] : all_of<ast::DefaultsDecl>(cx.decls))
    for (const auto& p : def->settings.props)
      if (p.key.name == "temperature") found = &p;
  return found;
}

}  // namespace

void check_generation_settings(const ast::Block& block, const std::string& owner, Diagnostics& diags,
                               const Provider* provider) {
  for (const auto& p : block.props) {
    for (const auto& rule : kRules)
      if (p.key.name == rule.key) check_rule(apply(rule, provider), p, owner, diags);
    if (p.key.name == "extra" && !p.block && !(p.value && std::holds_alternative<ast::NoneLit>(p.value->node))) {
      diags.error(p.value ? p.value->range : p.key.range,
                  fmt::format("{}: extra is a block of fields copied into the request body", owner));
      diags.note("for example: extra { top_k 40 }");
    }
  }
}

void check_default_temperature(const CheckContext& cx, const ast::ModelDecl& m) {
  if (m.settings)
    for (const auto& p : m.settings->props)
      if (p.key.name == "temperature") return;  // its own, checked with its settings
  const ast::Property* p = default_temperature(cx);
  auto provider = cx.spec.providers.find(m.preset.name);
  if (!p || !p->value || provider == cx.spec.providers.end()) return;
  auto n = number_of(*p->value);
  double hi = highest_temperature(provider->second);
  // Not a number, or out of every protocol's range: reported at the defaults already.
  if (!n || n->value < 0 || n->value > 2 || n->value <= hi) return;
  cx.diags.error(p->value->range,
                 fmt::format("defaults: temperature {} is above what provider '{}' (protocol {}) accepts, 0 to {}, "
                             "and model {} takes it from defaults",
                             n->text, provider->first, provider->second.protocol, hi, m.name.name));
  cx.diags.note(fmt::format("give model {} its own: temperature {}", m.name.name, hi));
}

}  // namespace mirac
