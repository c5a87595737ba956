// format_expr.cpp: expressions and strings as `mirac fmt` writes them: one line, minimal
// parentheses, a string as a `"""` block when it was written as one.
#include "interpreter/format/expr.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <fmt/format.h>
#include <utf8proc.h>

#include "interpreter/format/format.hpp"
#include "interpreter/parse/parse.hpp"

namespace mirac {
namespace format_detail {

namespace {

constexpr std::array<std::string_view, 10> kReserved = {"and", "or",   "not",   "if",   "then",
                                                        "else", "true", "false", "none", "vs"};

}  // namespace

std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  for (std::size_t at = 0; at < s.size();) {
    utf8proc_int32_t code = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(bytes + at, static_cast<utf8proc_ssize_t>(s.size() - at), &code);
    if (n <= 0) {  // a stray byte: one column, as a terminal shows its replacement
      ++width, ++at;
      continue;
    }
    width += static_cast<std::size_t>(std::max(0, utf8proc_charwidth(code)));
    at += static_cast<std::size_t>(n);
  }
  return width;
}

bool is_identifier(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return std::find(kReserved.begin(), kReserved.end(), s) == kReserved.end();
}

namespace {

// --- expressions ----------------------------------------------------------------------

// Binding strength, lowest first. `if` is lowest because its else-branch extends as far
// right as it can, so it needs parentheses wherever it is an operand.
enum Prec { kIf, kOr, kAnd, kCmp, kRange, kAdd, kMul, kUnary, kPostfix };

int binary_prec(const std::string& op) {
  if (op == "or") return kOr;
  if (op == "and") return kAnd;
  if (op == "+" || op == "-" || op == "++") return kAdd;
  if (op == "*" || op == "/") return kMul;
  return kCmp;
}

int prec(const ast::Expr& e) {
  if (const auto* b = std::get_if<ast::Binary>(&e.node)) return binary_prec(b->op);
  if (std::holds_alternative<ast::RangeLit>(e.node)) return kRange;
  if (std::holds_alternative<ast::Unary>(e.node)) return kUnary;
  if (std::holds_alternative<ast::IfExpr>(e.node)) return kIf;
  return kPostfix;
}

// A `"""` block whose lines sit two spaces deeper than `indent`; nullopt when the value
// would not read back unchanged (it holds `"""`, or lines with trailing '\r').
std::optional<std::string> long_string(const std::string& value, int indent) {
  if (value.find("\"\"\"") != std::string::npos) return std::nullopt;
  std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
  std::string out = "\"\"\"\n";
  for (std::size_t start = 0;;) {
    std::size_t nl = value.find('\n', start);
    std::string_view line(value.data() + start, (nl == std::string::npos ? value.size() : nl) - start);
    if (!line.empty()) out += pad + std::string(line);
    out += '\n';
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  out += std::string(static_cast<std::size_t>(indent), ' ') + "\"\"\"";
  if (decode_string_literal(out) != value) return std::nullopt;
  return out;
}

std::string string_lit_impl(const ast::StringLit& s, int indent) {
  if (s.bare) return s.value;
  if (s.multiline) {
    if (auto block = long_string(s.value, indent)) return *block;
  }
  return quote_string(s.value);
}

class ExprPrinter {
 public:
  explicit ExprPrinter(int indent) : indent_(indent) {}

  std::string print(const ast::Expr& e) const {
    return std::visit([&](const auto& n) { return node(n); }, e.node);
  }

  /// The pieces of a left-associative chain `a op b op c` at the top of `e`: "a", "op b",
  /// "op c", each printed as in the whole; one piece when `e` is not such a chain.
  std::vector<std::string> chain(const ast::Expr& e) const {
    const auto* b = std::get_if<ast::Binary>(&e.node);
    int p = b ? binary_prec(b->op) : kPostfix;
    if (!b || p == kCmp) return {print(e)};
    std::vector<std::string> pieces;
    const ast::Expr* left = &e;
    for (const ast::Binary* cur = b; cur && binary_prec(cur->op) == p; cur = std::get_if<ast::Binary>(&left->node)) {
      pieces.push_back(cur->op + " " + operand(*cur->rhs, p + 1));
      left = &*cur->lhs;
    }
    pieces.push_back(operand(*left, p));
    std::reverse(pieces.begin(), pieces.end());
    return pieces;
  }

 private:
  std::string operand(const ast::Expr& e, int min_prec) const {
    std::string s = print(e);
    return prec(e) < min_prec ? "(" + s + ")" : s;
  }
  std::string args(const std::vector<ast::Expr>& list) const {
    return join(list, ", ", [&](const ast::Expr& a) { return print(a); });
  }

  std::string node(const ast::NumberLit& n) const { return n.text; }
  std::string node(const ast::StringLit& s) const { return string_lit_impl(s, indent_); }
  std::string node(const ast::BoolLit& b) const { return b.value ? "true" : "false"; }
  std::string node(const ast::NoneLit&) const { return "none"; }
  std::string node(const ast::Name& n) const { return n.name; }
  std::string node(const ast::Field& f) const { return operand(*f.base, kPostfix) + "." + f.field.name; }
  std::string node(const ast::CellSelect& c) const {
    return operand(*c.base, kPostfix) + "[" + join(c.items, ", ", [](const ast::CellItem& i) {
             if (i.each) return "each " + i.factor->name;
             return (i.factor ? i.factor->name + "=" : std::string()) + i.level.name;
           }) + "]";
  }
  std::string node(const ast::Call& c) const { return c.callee.name + "(" + args(c.args) + ")"; }
  std::string node(const ast::Unary& u) const {
    return (u.op == "-" ? "-" : "not ") + operand(*u.operand, kUnary);
  }
  std::string node(const ast::Binary& b) const {
    int p = binary_prec(b.op);
    // Comparisons do not chain, so a comparison on the left needs parentheses too.
    return operand(*b.lhs, p == kCmp ? p + 1 : p) + " " + b.op + " " + operand(*b.rhs, p + 1);
  }
  std::string node(const ast::IfExpr& i) const {
    return "if " + print(*i.cond) + " then " + print(*i.then_branch) + " else " + print(*i.else_branch);
  }
  std::string node(const ast::ListLit& l) const { return "[" + args(l.items) + "]"; }
  std::string node(const ast::RangeLit& r) const {
    return operand(*r.lo, kRange + 1) + ".." + operand(*r.hi, kRange + 1);
  }

  int indent_;
};

}  // namespace

std::string print_expr(const ast::Expr& e, int indent) { return ExprPrinter(indent).print(e); }
std::vector<std::string> expr_chain(const ast::Expr& e, int indent) { return ExprPrinter(indent).chain(e); }
std::string string_literal(const ast::StringLit& s, int indent) { return string_lit_impl(s, indent); }

}  // namespace format_detail

std::string quote_string(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\u{{{:x}}}", static_cast<int>(c));
        else out += c;
    }
  }
  return out + "\"";
}

}  // namespace mirac
