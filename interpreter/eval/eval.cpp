#include "interpreter/eval/eval.hpp"

#include <cmath>

#include <fmt/format.h>
#include <utf8proc.h>

#include "interpreter/model/diagnostics.hpp"

namespace mirac {

Value Value::from_json(const nlohmann::ordered_json& j) {
  if (j.is_null()) return na();
  if (j.is_boolean()) return of(j.get<bool>());
  if (j.is_number()) return of(j.get<double>());
  if (j.is_string()) return of(j.get<std::string>());
  return object("json", &j);
}

std::optional<Value> Scope::field(const Value& base, const std::string& field) const {
  if (base.kind == Value::Kind::object && base.json && base.json->is_object()) {
    auto it = base.json->find(field);
    if (it == base.json->end()) return std::nullopt;
    return Value::from_json(*it);
  }
  return std::nullopt;
}

std::vector<std::string> Scope::field_names(const Value& base) const {
  std::vector<std::string> out;
  if (base.kind == Value::Kind::object && base.json && base.json->is_object())
    for (auto it = base.json->begin(); it != base.json->end(); ++it) out.push_back(it.key());
  return out;
}

std::string to_text(const Value& v) {
  switch (v.kind) {
    case Value::Kind::na: return "";
    case Value::Kind::boolean: return v.boolean ? "true" : "false";
    case Value::Kind::number: return fmt::format("{}", v.number);
    case Value::Kind::text:
    case Value::Kind::level: return v.text;
    case Value::Kind::object: return v.json ? v.json->dump() : v.object_kind;
  }
  return "";
}

bool truthy(const Value& v) {
  switch (v.kind) {
    case Value::Kind::boolean: return v.boolean;
    case Value::Kind::number: return v.number != 0;
    case Value::Kind::text: return !v.text.empty();
    case Value::Kind::level: return true;
    case Value::Kind::object: return true;
    case Value::Kind::na: return false;
  }
  return false;
}

namespace {

// The first letter's case changed, after any punctuation, spaces or symbols before it
// (Spanish `¿Cuál`, a quoted "What"), in any script with case (`Édith`, `Ελένη`). Text
// that meets a digit or a letter without case (Chinese) before any cased letter is left
// as it is.
std::string change_first_letter(std::string s, bool lower) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  for (std::size_t at = 0; at < s.size();) {
    utf8proc_int32_t code = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + at, static_cast<utf8proc_ssize_t>(s.size() - at), &code);
    if (n <= 0) return s;  // not UTF-8: left alone
    const utf8proc_category_t category = utf8proc_category(code);
    const bool skip = (category >= UTF8PROC_CATEGORY_PC && category <= UTF8PROC_CATEGORY_PO) ||
                      (category >= UTF8PROC_CATEGORY_ZS && category <= UTF8PROC_CATEGORY_ZP) ||
                      (category >= UTF8PROC_CATEGORY_SM && category <= UTF8PROC_CATEGORY_SO);
    if (skip) {
      at += static_cast<std::size_t>(n);
      continue;
    }
    const utf8proc_int32_t changed = lower ? utf8proc_tolower(code) : utf8proc_toupper(code);
    if (changed == code) return s;
    utf8proc_uint8_t encoded[4];
    const utf8proc_ssize_t m = utf8proc_encode_char(changed, encoded);
    s.replace(at, static_cast<std::size_t>(n), reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(m));
    return s;
  }
  return s;
}
std::string lower_first(std::string s) { return change_first_letter(std::move(s), true); }
// Every letter's case, in any script with case; text that is not UTF-8 is left as it is.
std::string change_case(const std::string& s, bool lower) {
  std::string out;
  out.reserve(s.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  for (std::size_t at = 0; at < s.size();) {
    utf8proc_int32_t code = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + at, static_cast<utf8proc_ssize_t>(s.size() - at), &code);
    if (n <= 0) return s;
    utf8proc_uint8_t encoded[4];
    const utf8proc_ssize_t m = utf8proc_encode_char(lower ? utf8proc_tolower(code) : utf8proc_toupper(code), encoded);
    out.append(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(m));
    at += static_cast<std::size_t>(n);
  }
  return out;
}
std::string upper_first(std::string s) { return change_first_letter(std::move(s), false); }

const std::string& need_text(const Value& v, const ast::Expr& at, const char* fn) {
  if (v.kind != Value::Kind::text && v.kind != Value::Kind::level)
    throw EvalError(at.range, fmt::format("{}() expects text", fn));
  return v.text;
}
double need_number(const Value& v, const ast::Expr& at, const char* fn) {
  if (v.kind != Value::Kind::number) throw EvalError(at.range, fmt::format("{}() expects a number", fn));
  return v.number;
}

Value call(const ast::Call& c, const ast::Expr& whole, const Scope& scope) {
  const std::string& f = c.callee.name;
  std::vector<Value> args;
  for (const auto& a : c.args) args.push_back(evaluate(a, scope));
  auto arity = [&](std::size_t n) {
    if (args.size() != n)
      throw EvalError(whole.range, fmt::format("{}() takes {} argument{}, got {}", f, n, n == 1 ? "" : "s", args.size()));
  };
  if (f == "lower_first" || f == "upper_first" || f == "lower" || f == "upper" || f == "trim" || f == "len") {
    arity(1);
    std::string s = need_text(args[0], c.args[0], f.c_str());
    if (f == "lower_first") return Value::of(lower_first(s));
    if (f == "upper_first") return Value::of(upper_first(s));
    if (f == "len") return Value::of(static_cast<double>(utf8_length(s)));
    if (f == "trim") {
      std::size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
      return Value::of(b == std::string::npos ? std::string() : s.substr(b, e - b + 1));
    }
    return Value::of(change_case(s, f == "lower"));
  }
  if (f == "strip_prefix" || f == "strip_suffix") {
    arity(2);
    std::string s = need_text(args[0], c.args[0], f.c_str());
    const std::string& p = need_text(args[1], c.args[1], f.c_str());
    if (f == "strip_prefix" && s.compare(0, p.size(), p) == 0) return Value::of(s.substr(p.size()));
    if (f == "strip_suffix" && s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0)
      return Value::of(s.substr(0, s.size() - p.size()));
    return Value::of(s);
  }
  if (f == "replace") {
    arity(3);
    std::string s = need_text(args[0], c.args[0], "replace");
    const std::string& from = need_text(args[1], c.args[1], "replace");
    const std::string& to = need_text(args[2], c.args[2], "replace");
    if (from.empty()) return Value::of(s);
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
    return Value::of(s);
  }
  if (f == "abs") {
    arity(1);
    if (args[0].kind == Value::Kind::na) return Value::na();
    return Value::of(std::fabs(need_number(args[0], c.args[0], "abs")));
  }
  if (f == "min" || f == "max") {
    if (args.empty()) throw EvalError(whole.range, fmt::format("{}() needs at least one argument", f));
    double best = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind == Value::Kind::na) return Value::na();
      double x = need_number(args[i], c.args[i], f.c_str());
      best = i == 0 ? x : (f == "min" ? std::min(best, x) : std::max(best, x));
    }
    return Value::of(best);
  }
  throw EvalError(c.callee.range,
                  with_suggestion(fmt::format("unknown function '{}'", f), f,
                                  {"lower_first", "upper_first", "lower", "upper", "trim", "len", "strip_prefix",
                                   "strip_suffix", "replace", "abs", "min", "max"}));
}

bool equal(const Value& a, const Value& b) {
  if (a.kind == Value::Kind::number && b.kind == Value::Kind::number) return a.number == b.number;
  if (a.kind == Value::Kind::boolean && b.kind == Value::Kind::boolean) return a.boolean == b.boolean;
  return to_text(a) == to_text(b);
}

Value binary(const ast::Binary& b, const Scope& scope) {
  const std::string& op = b.op;
  // N/A is "unknown" (Kleene's logic, as SQL's NULL): it decides nothing that a known
  // side does not decide already. `false and N/A` is false, `true or N/A` is true, and
  // otherwise N/A stays N/A, so `not (D3 < 3)` does not hold for an answer without a D3.
  if (op == "and" || op == "or") {
    const bool deciding = op == "or";  // the value that decides: true for or, false for and
    Value l = evaluate(*b.lhs, scope);
    if (l.kind != Value::Kind::na && truthy(l) == deciding) return Value::of(deciding);
    Value r = evaluate(*b.rhs, scope);
    if (r.kind != Value::Kind::na && truthy(r) == deciding) return Value::of(deciding);
    if (l.kind == Value::Kind::na || r.kind == Value::Kind::na) return Value::na();
    return Value::of(!deciding);
  }
  Value l = evaluate(*b.lhs, scope), r = evaluate(*b.rhs, scope);
  if (op == "++") return Value::of(to_text(l) + to_text(r));
  // A comparison or arithmetic with N/A is N/A; a condition that is N/A does not hold.
  if (l.kind == Value::Kind::na || r.kind == Value::Kind::na) return Value::na();
  if (op == "==") return Value::of(equal(l, r));
  if (op == "!=") return Value::of(!equal(l, r));
  if (l.kind != Value::Kind::number || r.kind != Value::Kind::number) {
    if ((op == "<" || op == "<=" || op == ">" || op == ">=") && l.kind == Value::Kind::text && r.kind == Value::Kind::text) {
      int c = l.text.compare(r.text);
      return Value::of(op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0);
    }
    throw EvalError(op == "+" ? b.rhs->range : b.lhs->range,
                    fmt::format("operator '{}' needs numbers{}", op, op == "+" ? "; use '++' to join texts" : ""));
  }
  double x = l.number, y = r.number;
  if (op == "+") return Value::of(x + y);
  if (op == "-") return Value::of(x - y);
  if (op == "*") return Value::of(x * y);
  if (op == "/") return y == 0 ? Value::na() : Value::of(x / y);
  if (op == "<") return Value::of(x < y);
  if (op == "<=") return Value::of(x <= y);
  if (op == ">") return Value::of(x > y);
  if (op == ">=") return Value::of(x >= y);
  throw EvalError(b.lhs->range, "unknown operator " + op);
}

}  // namespace

Value evaluate(const ast::Expr& expr, const Scope& scope) {
  return std::visit(
      [&](const auto& n) -> Value {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::NumberLit>) {
          return Value::of(n.value);
        } else if constexpr (std::is_same_v<T, ast::StringLit>) {
          return Value::of(expand_template(n.value, expr.range, scope));
        } else if constexpr (std::is_same_v<T, ast::BoolLit>) {
          return Value::of(n.value);
        } else if constexpr (std::is_same_v<T, ast::NoneLit>) {
          return Value::na();
        } else if constexpr (std::is_same_v<T, ast::Name>) {
          if (auto v = scope.name(n.name)) return *v;
          throw EvalError(expr.range, with_suggestion(fmt::format("unknown name '{}'", n.name), n.name, scope.names()));
        } else if constexpr (std::is_same_v<T, ast::Field>) {
          Value base = evaluate(*n.base, scope);
          if (auto v = scope.field(base, n.field.name)) return *v;
          if (std::string why = scope.missing_field(base, n.field.name); !why.empty()) throw EvalError(n.field.range, why);
          std::string what = base.kind == Value::Kind::object ? base.object_kind : "'" + to_text(base) + "'";
          throw EvalError(n.field.range, with_suggestion(fmt::format("{} has no field '{}'", what, n.field.name),
                                                         n.field.name, scope.field_names(base)));
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          return call(n, expr, scope);
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          Value v = evaluate(*n.operand, scope);
          if (v.kind == Value::Kind::na) return v;  // not N/A, -N/A: still unknown
          if (n.op == "not") return Value::of(!truthy(v));
          if (v.kind != Value::Kind::number) throw EvalError(expr.range, "unary '-' needs a number");
          return Value::of(-v.number);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          return binary(n, scope);
        } else if constexpr (std::is_same_v<T, ast::IfExpr>) {
          const Value cond = evaluate(*n.cond, scope);
          if (cond.kind == Value::Kind::na) return cond;  // an unknown condition picks no branch
          return truthy(cond) ? evaluate(*n.then_branch, scope) : evaluate(*n.else_branch, scope);
        } else {
          throw EvalError(expr.range, "this expression cannot be evaluated here");
        }
      },
      expr.node);
}

std::string expand_template(const std::string& text, SourceRange range, const Scope& scope) {
  if (text.find_first_of("{}") == std::string::npos) return text;
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    std::size_t close = text.find('}', i);
    if (close == std::string::npos) throw EvalError(range, "unclosed placeholder '{' in text; write '{{' for a brace");
    std::string path = text.substr(i + 1, close - i - 1);
    std::vector<std::string> parts;
    for (std::size_t s = 0;;) {
      std::size_t dot = path.find('.', s);
      parts.push_back(path.substr(s, dot == std::string::npos ? std::string::npos : dot - s));
      if (dot == std::string::npos) break;
      s = dot + 1;
    }
    auto value = scope.name(parts[0]);
    if (!value)
      throw EvalError(range, with_suggestion(fmt::format("placeholder '{{{}}}' names nothing known", path), parts[0], scope.names()));
    std::optional<Value> previous = value;
    for (std::size_t k = 1; k < parts.size(); ++k) {
      value = scope.field(*value, parts[k]);
      if (!value) {
        throw EvalError(range, with_suggestion(fmt::format("placeholder '{{{}}}' names no field '{}'", path, parts[k]),
                                               parts[k], scope.field_names(*previous)));
      }
      previous = value;
    }
    if (value->kind == Value::Kind::object) {
      throw EvalError(range, fmt::format("placeholder '{{{}}}' names the {} itself; name one of its fields, such as {{{}.{}}}",
                                         path, value->object_kind, path,
                                         value->object_kind == "seed"   ? "id"
                                         : value->object_kind == "text" ? "text"
                                                                        : "FIELD"));
    }
    out += to_text(*value);
    i = close;
  }
  return out;
}

}  // namespace mirac
