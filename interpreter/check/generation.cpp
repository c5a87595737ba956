// generation.cpp: the settings a request carries (docs/providers.md): `temperature`, `top_p`,
// `max_tokens`, `seed` and `extra`, in a model's, a judge's or the defaults' block. Each is
// checked for its type and range here, at the setting, because the request builder sends
// them as written: `temperature "zero"` or `max_tokens "600"` would reach the provider as a
// JSON string and be refused (or ignored) only after other requests were paid for.
#include <cctype>
#include <cstdlib>
#include <optional>

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

bool in_range(const GenerationRule& rule, const NumberSetting& n) {
  if (rule.whole && !n.whole) return false;
  if (rule.positive ? n.value <= 0 : n.value < rule.lo) return false;
  return rule.hi < rule.lo || n.value <= rule.hi;
}

void check_rule(const GenerationRule& rule, const ast::Property& p, const std::string& owner, Diagnostics& diags) {
  // `none` leaves the setting to the provider, as it always has.
  if (p.value && std::holds_alternative<ast::NoneLit>(p.value->node)) return;
  SourceRange at = p.value ? p.value->range : p.key.range;
  if (auto n = p.value ? number_of(*p.value) : std::nullopt) {
    if (in_range(rule, *n)) return;
    diags.error(at, fmt::format("{}: {} must be {}, not {}", owner, rule.key, rule.expected, n->text));
    diags.note(fmt::format("for example: {} {}", rule.key, rule.example));
    return;
  }
  diags.error(at, fmt::format("{}: {} must be {}, not {}; it would be sent as written", owner, rule.key,
                              rule.expected, kind_of(p)));
  if (auto q = quoted_number(p)) diags.note(fmt::format("write the number without quotes: {} {}", rule.key, *q));
  else diags.note(fmt::format("for example: {} {}", rule.key, rule.example));
}

}  // namespace

void check_generation_settings(const ast::Block& block, const std::string& owner, Diagnostics& diags) {
  for (const auto& p : block.props) {
    for (const auto& rule : kRules)
      if (p.key.name == rule.key) check_rule(rule, p, owner, diags);
    if (p.key.name == "extra" && !p.block && !(p.value && std::holds_alternative<ast::NoneLit>(p.value->node))) {
      diags.error(p.value ? p.value->range : p.key.range,
                  fmt::format("{}: extra is a block of fields copied into the request body", owner));
      diags.note("for example: extra { top_k 40 }");
    }
  }
}

}  // namespace mirac
