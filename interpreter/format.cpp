// format.cpp: `mirac fmt`. Expressions render to strings (one line, minimal parentheses);
// declarations go through a line printer that keeps the indentation and puts every
// comment back before the first node that follows it in the original text.
#include "interpreter/format.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "interpreter/parse.hpp"

namespace mirac {

namespace {

constexpr std::size_t kWidth = 100;  // a one-line form longer than this is split

constexpr std::array<std::string_view, 10> kReserved = {"and", "or",   "not",   "if",   "then",
                                                        "else", "true", "false", "none", "vs"};

bool is_identifier(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return std::find(kReserved.begin(), kReserved.end(), s) == kReserved.end();
}

template <typename T, typename F>
std::string join(const std::vector<T>& items, std::string_view sep, F&& render) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += render(items[i]);
  }
  return out;
}

std::string name_of(const ast::Ident& i) { return i.name; }

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

std::string string_lit(const ast::StringLit& s, int indent) {
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
  std::string node(const ast::StringLit& s) const { return string_lit(s, indent_); }
  std::string node(const ast::BoolLit& b) const { return b.value ? "true" : "false"; }
  std::string node(const ast::NoneLit&) const { return "none"; }
  std::string node(const ast::Name& n) const { return n.name; }
  std::string node(const ast::Field& f) const { return operand(*f.base, kPostfix) + "." + f.field.name; }
  std::string node(const ast::CellSelect& c) const {
    return operand(*c.base, kPostfix) + "[" + join(c.items, ", ", [](const ast::CellItem& i) {
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

// --- declarations ---------------------------------------------------------------------

using Columns = std::vector<std::pair<ast::Ident, ast::Column>>;

class Printer {
 public:
  explicit Printer(const ast::Module& m) : module_(m) {}

  std::string run() {
    int prev_kind = -1;
    bool prev_single = false;
    for (const ast::Decl& d : module_.decls) {
      std::size_t before = next_comment_;
      std::string lead = capture([&] { flush(d.range.begin.byte); });
      // A comment set apart by a blank line (a file header, a section title) stays apart.
      if (next_comment_ > before && module_.comments[next_comment_ - 1].range.end.line + 1 < d.range.begin.line)
        lead += '\n';
      std::string body = capture([&] { std::visit([&](const auto& n) { decl(n, d.range); }, d.node); });
      bool single = std::count(body.begin(), body.end(), '\n') == 1;
      int kind = static_cast<int>(d.node.index());
      // One-liners of the same kind (use, model, flag, contrast...) stay together.
      if (prev_kind >= 0 && !(kind == prev_kind && single && prev_single)) out_ += '\n';
      out_ += lead + body;
      prev_kind = kind;
      prev_single = single;
    }
    if (next_comment_ < module_.comments.size() && !module_.decls.empty()) out_ += '\n';
    flush(std::string::npos);
    return out_;
  }

 private:
  template <typename F>
  std::string capture(F&& f) {
    std::string saved = std::move(out_);
    out_.clear();
    f();
    std::swap(saved, out_);
    return saved;
  }

  // --- layout primitives --------------------------------------------------------------
  void line(std::string_view text) {
    out_.append(static_cast<std::size_t>(indent_) * 2, ' ');
    out_ += text;
    out_ += '\n';
  }
  // Emits the comments that start before `byte`, each on its own line; a blank line between
  // two of them (two paragraphs of comments) stays.
  void flush(std::size_t byte) {
    const auto& cs = module_.comments;
    for (bool first = true; next_comment_ < cs.size() && cs[next_comment_].range.begin.byte < byte; first = false) {
      if (!first && cs[next_comment_].range.begin.line > cs[next_comment_ - 1].range.end.line + 1) out_ += '\n';
      line(cs[next_comment_++].text);
    }
  }
  void flush_at(const SourceRange& r) { flush(r.begin.byte); }
  bool has_comments(const SourceRange& r) const {
    for (const auto& c : module_.comments)
      if (c.range.begin.byte >= r.begin.byte && c.range.begin.byte < r.end.byte) return true;
    return false;
  }
  bool fits(std::string_view s) const {
    return s.find('\n') == std::string_view::npos && static_cast<std::size_t>(indent_) * 2 + s.size() <= kWidth;
  }
  void open(const std::string& head) {
    line(head + " {");
    ++indent_;
  }
  // Comments left inside the braces go before the closing one, not after it.
  void close(const SourceRange* r) {
    if (r) flush(r->end.byte);
    --indent_;
    line("}");
  }
  // `head { a b c }` when it fits and holds no comment, else one item per line.
  template <typename T, typename Inline, typename Full>
  void braced(const std::string& head, const std::vector<T>& items, const SourceRange* r, Inline one, Full full,
              std::string_view sep = " ", bool allow_flat = true) {
    std::string flat = head + (items.empty() ? " {}" : " { " + join(items, sep, one) + " }");
    if (allow_flat && fits(flat) && (!r || !has_comments(*r))) return line(flat);
    open(head);
    for (const auto& item : items) full(item);
    close(r);
  }

  // Expressions need the indentation in spaces for the lines of a `"""` block.
  std::string ex(const ast::Expr& e) const { return ExprPrinter(indent_ * 2).print(e); }
  std::string str(const ast::StringLit& s) const { return string_lit(s, indent_ * 2); }
  // `head EXPR`; when too long and EXPR is an `or`/`and`/`+`/`++` chain, the chain breaks
  // before its operators onto continuation lines (blanks may separate any two tokens).
  void expr_line(const std::string& head, const ast::Expr& e, const std::string& tail = "") {
    std::string flat = head + ex(e) + tail;
    if (fits(flat) || flat.find('\n') != std::string::npos) return line(flat);
    auto pieces = ExprPrinter(indent_ * 2 + 2).chain(e);
    std::vector<std::string> lines{head + pieces[0]};
    for (std::size_t i = 1; i < pieces.size(); ++i) {
      std::size_t width = static_cast<std::size_t>(indent_ + (lines.size() > 1 ? 1 : 0)) * 2;
      if (width + lines.back().size() + 1 + pieces[i].size() <= kWidth) lines.back() += " " + pieces[i];
      else lines.push_back(pieces[i]);
    }
    lines.back() += tail;
    line(lines[0]);
    ++indent_;
    for (std::size_t i = 1; i < lines.size(); ++i) line(lines[i]);
    --indent_;
  }

  static std::string column(const ast::Column& c) { return is_identifier(c.name) ? c.name : quote_string(c.name); }
  static std::string source(const ast::DataSource& s) { return s.format.name + "(" + quote_string(s.path.value) + ")"; }
  static std::string json_table(const ast::JsonTable& t) {
    return source(t.source) + " at " + quote_string(t.at.value) + " key " + quote_string(t.key.value);
  }
  static std::string cell_path(const ast::CellPath& p) { return join(p.levels, ".", name_of); }
  static std::string field_path(const ast::FieldPath& f) { return f.field.name + (f.level ? "." + f.level->name : ""); }
  static std::string columns(const Columns& cols) {
    if (cols.empty()) return "{}";
    return "{ " + join(cols, ", ", [](const auto& c) { return c.first.name + " = " + column(c.second); }) + " }";
  }

  // --- settings blocks ----------------------------------------------------------------
  std::optional<std::string> flat_block(const ast::Block& b) const {
    if (has_comments(b.range)) return std::nullopt;
    if (b.props.empty()) return "{}";
    std::string s = "{";
    for (const auto& p : b.props) {
      std::string value;
      if (p.block) {
        auto inner = flat_block(*p.block);
        if (!inner) return std::nullopt;
        value = *inner;
      } else if (p.value) {
        value = ex(*p.value);
      }
      s += " " + p.key.name + " " + value;
    }
    return s + " }";
  }
  void block(const std::string& head, const ast::Block& b, bool allow_flat = true) {
    if (auto flat = flat_block(b); flat && (allow_flat || b.props.empty()) && fits(head + " " + *flat))
      return line(head + " " + *flat);
    open(head);
    for (const auto& p : b.props) {
      flush_at(p.range);
      if (p.block) block(p.key.name, *p.block);
      else if (p.value) expr_line(p.key.name + " ", *p.value);
    }
    close(&b.range);
  }

  void lang_texts(const std::string& head, const ast::LangTexts& t) {
    if (t.all) return line(head + " " + ex(*t.all));
    braced(head, t.by_level, &t.range,
           [&](const auto& p) { return p.first.name + " " + ex(p.second); },
           [&](const auto& p) {
             flush_at(p.first.range);
             line(p.first.name + " " + ex(p.second));
           });
  }

  std::string option_value(const ast::OptionValue& v) const {
    return (v.label ? v.label->name + ": " : "") + ex(v.value) + (v.versus ? " vs " + ex(*v.versus) : "");
  }
  std::string option(const ast::AnalysisOption& o) const {
    return o.key.name + " " + join(o.values, ", ", [&](const auto& v) { return option_value(v); }) +
           (o.columns ? " " + columns(*o.columns) : "");
  }
  // Options stay on one line only when plain: no labels, `vs` or columns, and commas only
  // in a lone option; otherwise they read better one per line.
  void options(const std::string& head, const std::vector<ast::AnalysisOption>& opts, const SourceRange& r) {
    if (opts.empty()) return line(head);
    bool simple = std::all_of(opts.begin(), opts.end(), [](const ast::AnalysisOption& o) {
      return !o.columns && std::none_of(o.values.begin(), o.values.end(), [](const auto& v) { return v.label || v.versus; });
    });
    bool single_values = std::all_of(opts.begin(), opts.end(), [](const auto& o) { return o.values.size() == 1; });
    bool plain = simple && (opts.size() == 1 || single_values);
    braced(
        head, opts, &r, [&](const auto& o) { return option(o); },
        [&](const auto& o) {
          flush_at(o.range);
          line(option(o));
        },
        " ", plain);
  }

  void field_values(const std::string& head, const std::vector<ast::FieldValue>& fields, const SourceRange& r) {
    open(head);
    for (const auto& f : fields) {
      flush_at(f.range);
      expr_line(field_path(f.target) + " = ", f.value);
    }
    close(&r);
  }

  // --- one function per declaration ---------------------------------------------------
  void decl(const ast::AuditDecl& d, const SourceRange&) { block("audit " + d.name.name, d.settings, false); }

  void decl(const ast::UseDecl& d, const SourceRange&) {
    line("use " + (d.is_path ? quote_string(d.module) : d.module));
  }

  void decl(const ast::FactorDecl& d, const SourceRange& r) {
    auto level = [&](const ast::Level& l) { return l.name.name + (l.label ? " " + str(*l.label) : ""); };
    braced("factor " + d.name.name, d.levels, &r, level, [&](const ast::Level& l) {
      flush_at(l.range);
      line(level(l));
    });
  }

  void decl(const ast::DesignDecl& d, const SourceRange&) { line("design " + join(d.factors, " * ", name_of)); }

  void decl(const ast::SeedsDecl& d, const SourceRange& r) {
    if (d.source) {
      std::string joins;
      for (const auto& j : d.joins) joins += " join " + source(j.source) + " on " + column(j.key);
      open("seeds from " + source(*d.source) + joins);
      for (const auto& m : d.mappings) {
        flush_at(m.range);
        std::string head = field_path(m.target) + " = " + column(m.column);
        if (!m.has_map) {
          line(head);
          continue;
        }
        auto entry = [&](const ast::ValueMapEntry& e) { return str(e.from) + ": " + str(e.to); };
        braced(
            head + " map", m.value_map, &m.range, entry,
            [&](const auto& e) {
              flush_at(e.range);
              line(entry(e));
            },
            ", ");
      }
      return close(&r);
    }
    if (d.inline_seeds.empty() && !has_comments(r)) return line("seeds {}");
    open("seeds");
    for (const auto& s : d.inline_seeds) {
      flush_at(s.range);
      field_values("seed " + ex(s.id), s.fields, s.range);
    }
    close(&r);
  }

  void decl(const ast::ChecklistsDecl& d, const SourceRange& r) {
    if (d.source) return line("checklists from " + source(*d.source) + " key " + column(d.key.value_or(ast::Column{})));
    if (d.inline_checklists.empty() && !has_comments(r)) return line("checklists {}");
    open("checklists");
    for (const auto& c : d.inline_checklists) {
      flush_at(c.range);
      field_values("checklist " + ex(c.seed), c.fields, c.range);
    }
    close(&r);
  }

  void decl(const ast::VariantDecl& d, const SourceRange& r) {
    open("variant " + d.field.name + " by " + join(d.by, " * ", name_of));
    if (d.instructions_from) {
      flush_at(d.instructions_from->range);
      line("instructions from " + json_table(*d.instructions_from));
    }
    if (!d.instructions.empty()) {
      flush_at(d.instructions.front().cell.range);
      open("instructions");
      for (const auto& i : d.instructions) {
        flush_at(i.cell.range);
        lang_texts(cell_path(i.cell), i.texts);
      }
      close(nullptr);
    }
    if (d.rewriter) {
      flush_at(d.rewriter->range);
      std::string head = "rewriter " + d.rewriter->preset.name + "(" + quote_string(d.rewriter->model.value) + ")";
      if (d.rewriter->settings) block(head, *d.rewriter->settings);
      else line(head);
    }
    for (const auto& lock : d.locks) {
      flush_at(lock.range);
      line("lock " + source(lock.source) + (lock.columns.empty() ? "" : " " + columns(lock.columns)));
    }
    for (const auto& s : d.seed_texts) {
      flush_at(s.range);
      open("seed " + ex(s.seed));
      for (const auto& [cell, text] : s.texts) {
        flush_at(cell.range);
        line(cell_path(cell) + " " + ex(text));
      }
      close(&s.range);
    }
    close(&r);
  }

  void decl(const ast::TextDecl& d, const SourceRange& r) {
    std::string head = "text " + d.factor.name + (d.from ? " from " + json_table(*d.from) : "");
    if (d.levels.empty() && !has_comments(r)) return line(head + " {}");
    open(head);
    for (const auto& l : d.levels) {
      flush_at(l.range);
      if (l.derived) {
        std::string where = "where " + ex(l.derived->where), select = "select " + ex(l.derived->select);
        std::string head = l.level.name + " from " + source(l.derived->source);
        if (fits(head + " " + where + " " + select)) {
          line(head + " " + where + " " + select);
        } else {  // one clause per line
          line(head);
          ++indent_;
          expr_line("where ", l.derived->where);
          expr_line("select ", l.derived->select);
          --indent_;
        }
      } else if (l.texts) {
        lang_texts(l.level.name, *l.texts);
      }
    }
    close(&r);
  }

  void decl(const ast::PromptDecl& d, const SourceRange& r) {
    open("prompt");
    flush_at(d.id.range);
    expr_line("id ", d.id);
    flush_at(d.text.range);
    expr_line("text ", d.text);
    close(&r);
  }

  void decl(const ast::ProviderDecl& d, const SourceRange&) { block("provider " + d.name.name, d.settings, false); }
  // A table reads as one: one row per line, even when there is a single row.
  void decl(const ast::PricesDecl& d, const SourceRange& r) {
    braced(
        "prices " + d.provider.name, d.entries, &r,
        [&](const ast::PriceEntry& e) { return quote_string(e.model.value) + " " + flat_block(e.price).value_or("{}"); },
        [&](const ast::PriceEntry& e) {
          flush_at(e.range);
          block(quote_string(e.model.value), e.price);
        },
        " ", d.entries.empty());
  }
  void decl(const ast::DefaultsDecl& d, const SourceRange&) { block("defaults", d.settings); }
  void decl(const ast::ArmDecl& d, const SourceRange&) { block("arm " + d.name.name, d.settings); }

  void model_like(const std::string& head, const ast::StringLit& model, const std::optional<ast::Block>& settings) {
    std::string text = head + "(" + quote_string(model.value) + ")";
    if (settings) block(text, *settings);
    else line(text);
  }
  void decl(const ast::ModelDecl& d, const SourceRange&) {
    model_like("model " + d.name.name + " = " + d.preset.name, d.model, d.settings);
  }
  void decl(const ast::JudgeDecl& d, const SourceRange&) {
    model_like("judge " + d.name.name + " = " + d.preset.name, d.model, d.settings);
  }

  void dim(const ast::DimDecl& dim) {
    flush_at(dim.range);
    open("dim " + dim.name.name + " " + str(dim.title));
    if (dim.description) line("describe " + str(*dim.description));
    for (const auto& a : dim.anchors) {
      flush_at(a.range);
      line(ex(a.score) + " " + str(a.label) + (a.text ? " " + str(*a.text) : ""));
    }
    if (dim.na_when) {
      flush_at(dim.na_when->range);
      line("na when " + ex(*dim.na_when));
    }
    if (dim.against) {
      flush_at(dim.against->range);
      line("against " + ex(*dim.against));
    }
    for (const auto& n : dim.notes) line("note " + str(n));
    if (dim.scored_by) line("scored by " + dim.scored_by->name);
    if (dim.derived()) {
      flush_at(dim.bands_range);
      open("from criteria");
      for (const auto& b : dim.bands)
        line(ex(b.score) + (b.at_least ? " if met >= " + ex(*b.at_least) : std::string(" otherwise")));
      close(&dim.bands_range);
    }
    close(&dim.range);
  }

  void criteria(const ast::CriteriaDecl& c) {
    flush_at(c.range);
    open("criteria " + ex(c.source));
    if (c.description) line("describe " + str(*c.description));
    if (c.per) line("per " + c.per->name);
    close(&c.range);
  }

  void decl(const ast::RubricDecl& d, const SourceRange& r) {
    open("rubric " + d.name.name);
    if (d.scale) {
      flush_at(d.scale->range);
      line("scale " + ex(*d.scale));
    }
    if (d.worst) {
      flush_at(d.worst->range);
      line("worst " + d.worst->name);
    }
    for (const auto& i : d.instructions) line("instructions " + str(i));
    if (d.criteria) criteria(*d.criteria);
    for (const auto& dm : d.dims) dim(dm);
    if (!d.order.empty()) {
      flush_at(d.order_range);
      line("order " + join(d.order, " then ", [](const auto& step) { return join(step, ", ", name_of); }));
    }
    close(&r);
  }

  void decl(const ast::FlagDecl& d, const SourceRange&) {
    std::string head = "flag " + d.name.name + " = ";
    if (d.pairings.empty()) return expr_line(head, d.when);
    expr_line(head + join(d.pairings, " | ", [](const ast::Pairing& p) {
                return "pair(" + p.factor.name + ": " + p.a.name + " vs " + p.b.name + ")";
              }) + " when ",
              d.when);
  }

  void decl(const ast::PanelDecl& d, const SourceRange&) {
    line("panel " + d.name.name + " = " + d.aggregate.name + "(" + join(d.judges, ", ", name_of) + ")");
  }

  void decl(const ast::ContrastDecl& d, const SourceRange&) {
    line("contrast " + d.name.name + " = " + ex(d.value) + (d.by.empty() ? "" : " by " + join(d.by, ", ", name_of)) +
         (d.where ? " where " + ex(*d.where) : ""));
  }

  static std::string formula(const ast::Formula& f) {
    return f.response.name + " ~ " + join(f.terms, " + ", [](const ast::FormulaTerm& t) {
             if (t.group) return "(1 | " + t.group->name + ")";
             return join(t.vars, t.crossed ? " * " : ":", name_of);
           });
  }
  void decl(const ast::AnalysisDecl& d, const SourceRange& r) {
    std::string args = d.formula ? formula(*d.formula) : join(d.args, ", ", [&](const auto& a) { return ex(a); });
    options("analysis " + d.name.name + " = " + d.kind.name + "(" + args + ")", d.options, r);
  }

  void decl(const ast::SimulateDecl& d, const SourceRange& r) {
    open("simulate");
    if (d.seed) {
      flush_at(d.seed->range);
      line("seed " + ex(*d.seed));
    }
    for (const auto& dm : d.dims) {
      flush_at(dm.range);
      open("dim " + dm.dim.name);
      auto item = [&](const char* key, const std::optional<ast::Expr>& e) {
        if (!e) return;
        flush_at(e->range);
        line(std::string(key) + " " + ex(*e));
      };
      item("intercept", dm.intercept);
      for (const auto& e : dm.effects) {
        flush_at(e.range);
        line("effect " + ex(e.when) + ": " + ex(e.value));
      }
      for (const auto& rnd : dm.randoms) {
        flush_at(rnd.range);
        line("random " + rnd.group.field.name + (rnd.group.level ? "." + rnd.group.level->name : "") + " " + ex(rnd.sd));
      }
      item("residual", dm.residual);
      item("na", dm.na_rate);
      item("na when", dm.na_when);
      item("round", dm.round);
      item("clip", dm.clip);
      close(&dm.range);
    }
    close(&r);
  }

  void decl(const ast::ReportDecl& d, const SourceRange& r) {
    open("report " + d.name.name);
    for (const auto& item : d.items) {
      flush_at(item.range);
      options(item.kind.name + (item.content ? " " + ex(*item.content) : ""), item.options, item.range);
    }
    close(&r);
  }

  const ast::Module& module_;
  std::string out_;
  int indent_ = 0;
  std::size_t next_comment_ = 0;
};

}  // namespace

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

std::string format_module(const ast::Module& module, const SourceManager&) { return Printer(module).run(); }

namespace {

// --- dump_ast -------------------------------------------------------------------------
// (head child child ...), one declaration per line. Optional parts that are absent are
// left out, so the dump reads like the source it came from.

// Built by appending: GCC 12 at -O3 warns falsely (-Wrestrict, its bug 105329) about
// `const char* + std::string&&`, which a Release build treats as an error.
std::string sx(std::string head, std::initializer_list<std::string> parts) {
  std::string out = "(";
  out += head;
  for (const auto& p : parts)
    if (!p.empty()) {
      out += ' ';
      out += p;
    }
  out += ')';
  return out;
}
template <typename T, typename F>
std::string sx_list(std::string head, const std::vector<T>& items, F&& render) {
  std::string out = "(";
  out += head;
  for (const auto& i : items) {
    out += ' ';
    out += render(i);
  }
  out += ')';
  return out;
}
template <typename T, typename F>
std::string opt(const std::optional<T>& v, F&& render) {
  return v ? render(*v) : std::string();
}

std::string q(const ast::StringLit& s) { return quote_string(s.value); }

std::string dx(const ast::Expr& e);
std::string dx_node(const ast::NumberLit& n) { return n.text; }
std::string dx_node(const ast::StringLit& s) { return q(s); }
std::string dx_node(const ast::BoolLit& b) { return b.value ? "true" : "false"; }
std::string dx_node(const ast::NoneLit&) { return "none"; }
std::string dx_node(const ast::Name& n) { return n.name; }
std::string dx_node(const ast::Field& f) { return sx(".", {dx(*f.base), f.field.name}); }
std::string dx_node(const ast::CellSelect& c) {
  return sx("cell", {dx(*c.base), join(c.items, " ", [](const ast::CellItem& i) {
                       return (i.factor ? i.factor->name + "=" : std::string()) + i.level.name;
                     })});
}
std::string dx_node(const ast::Call& c) { return sx_list("call " + c.callee.name, c.args, dx); }
std::string dx_node(const ast::Unary& u) { return sx(u.op, {dx(*u.operand)}); }
std::string dx_node(const ast::Binary& b) { return sx(b.op, {dx(*b.lhs), dx(*b.rhs)}); }
std::string dx_node(const ast::IfExpr& i) { return sx("if", {dx(*i.cond), dx(*i.then_branch), dx(*i.else_branch)}); }
std::string dx_node(const ast::ListLit& l) { return sx_list("list", l.items, dx); }
std::string dx_node(const ast::RangeLit& r) { return sx("..", {dx(*r.lo), dx(*r.hi)}); }
std::string dx(const ast::Expr& e) {
  return std::visit([](const auto& n) { return dx_node(n); }, e.node);
}

std::string d_block(const ast::Block& b) {
  return sx_list("block", b.props, [](const ast::Property& p) {
    return sx(p.key.name, {opt(p.value, dx), opt(p.block, d_block)});
  });
}
std::string d_source(const ast::DataSource& s) { return sx(s.format.name, {q(s.path)}); }
std::string d_column(const ast::Column& c) { return quote_string(c.name); }
std::string d_columns(const Columns& cols) {
  return sx_list("columns", cols, [](const auto& c) { return sx(c.first.name, {d_column(c.second)}); });
}
std::string d_field(const ast::FieldPath& f) { return f.field.name + (f.level ? "." + f.level->name : ""); }
std::string d_values(std::string head, const std::vector<ast::FieldValue>& fields) {
  return sx_list(std::move(head), fields, [](const ast::FieldValue& f) { return sx(d_field(f.target), {dx(f.value)}); });
}
std::string d_cell(const ast::CellPath& p) { return join(p.levels, ".", name_of); }
std::string d_json(const ast::JsonTable& t) { return sx("json-table", {d_source(t.source), q(t.at), q(t.key)}); }
std::string d_texts(const ast::LangTexts& t) {
  if (t.all) return sx("all", {dx(*t.all)});
  return sx_list("texts", t.by_level, [](const auto& p) { return sx(p.first.name, {dx(p.second)}); });
}
std::string d_idents(std::string head, const std::vector<ast::Ident>& ids) { return sx_list(std::move(head), ids, name_of); }
std::string d_options(const std::vector<ast::AnalysisOption>& opts) {
  return sx_list("options", opts, [](const ast::AnalysisOption& o) {
    std::string values = join(o.values, " ", [](const ast::OptionValue& v) {
      return sx("value", {opt(v.label, name_of) + (v.label ? ":" : ""), dx(v.value), opt(v.versus, dx)});
    });
    return sx(o.key.name, {values, opt(o.columns, d_columns)});
  });
}

std::string d(const ast::AuditDecl& a) { return sx("audit " + a.name.name, {d_block(a.settings)}); }
std::string d(const ast::UseDecl& u) { return sx("use", {u.is_path ? quote_string(u.module) : u.module}); }
std::string d(const ast::FactorDecl& f) {
  return sx_list("factor " + f.name.name, f.levels, [](const ast::Level& l) {
    return l.label ? sx(l.name.name, {q(*l.label)}) : l.name.name;
  });
}
std::string d(const ast::DesignDecl& x) { return d_idents("design", x.factors); }
std::string d(const ast::SeedsDecl& s) {
  std::string maps = join(s.mappings, " ", [](const ast::FieldMapping& m) {
    std::string vm = m.has_map ? sx_list("map", m.value_map, [](const auto& e) { return sx(q(e.from), {q(e.to)}); }) : "";
    return sx("= " + d_field(m.target), {d_column(m.column), vm});
  });
  std::string seeds = join(s.inline_seeds, " ", [](const ast::InlineSeed& i) { return d_values("seed " + dx(i.id), i.fields); });
  std::string joins = join(s.joins, " ", [](const ast::SeedJoin& j) { return sx("join", {d_source(j.source), j.key.name}); });
  return sx("seeds", {opt(s.source, d_source), joins, maps, seeds});
}
std::string d(const ast::ChecklistsDecl& c) {
  std::string lists =
      join(c.inline_checklists, " ", [](const ast::InlineChecklist& i) { return d_values("checklist " + dx(i.seed), i.fields); });
  return sx("checklists", {opt(c.source, d_source), opt(c.key, d_column), lists});
}
std::string d(const ast::VariantDecl& v) {
  std::string ins = join(v.instructions, " ", [](const ast::VariantInstruction& i) { return sx(d_cell(i.cell), {d_texts(i.texts)}); });
  std::string rw = opt(v.rewriter, [](const ast::RewriterSpec& r) {
    return sx("rewriter " + r.preset.name, {q(r.model), opt(r.settings, d_block)});
  });
  std::string lock = join(v.locks, " ", [](const ast::LockSpec& l) { return sx("lock", {d_source(l.source), d_columns(l.columns)}); });
  std::string seeds = join(v.seed_texts, " ", [](const ast::VariantSeedTexts& s) {
    return sx_list("seed " + dx(s.seed), s.texts, [](const auto& t) { return sx(d_cell(t.first), {dx(t.second)}); });
  });
  return sx("variant " + v.field.name, {d_idents("by", v.by), opt(v.instructions_from, d_json), ins, rw, lock, seeds});
}
std::string d(const ast::TextDecl& t) {
  std::string levels = join(t.levels, " ", [](const ast::TextLevel& l) {
    std::string derived = opt(l.derived, [](const ast::DerivedText& x) {
      return sx("from", {d_source(x.source), dx(x.where), dx(x.select)});
    });
    return sx(l.level.name, {opt(l.texts, d_texts), derived});
  });
  return sx("text " + t.factor.name, {opt(t.from, d_json), levels});
}
std::string d(const ast::PromptDecl& p) { return sx("prompt", {dx(p.id), dx(p.text)}); }
std::string d(const ast::ProviderDecl& p) { return sx("provider " + p.name.name, {d_block(p.settings)}); }
std::string d(const ast::PricesDecl& p) {
  return sx_list("prices " + p.provider.name, p.entries,
                 [](const ast::PriceEntry& e) { return sx(q(e.model), {d_block(e.price)}); });
}
std::string d(const ast::ModelDecl& m) {
  return sx("model " + m.name.name, {m.preset.name, q(m.model), opt(m.settings, d_block)});
}
std::string d(const ast::DefaultsDecl& x) { return sx("defaults", {d_block(x.settings)}); }
std::string d(const ast::ArmDecl& a) { return sx("arm " + a.name.name, {d_block(a.settings)}); }
std::string d(const ast::JudgeDecl& j) {
  return sx("judge " + j.name.name, {j.preset.name, q(j.model), opt(j.settings, d_block)});
}
std::string d_dim(const ast::DimDecl& x) {
  std::string anchors = join(x.anchors, " ", [](const ast::Anchor& a) { return sx("anchor", {dx(a.score), q(a.label), opt(a.text, q)}); });
  return sx("dim " + x.name.name,
            {q(x.title), opt(x.description, q), anchors,
             opt(x.na_when, [](const ast::Expr& e) { return sx("na", {dx(e)}); }),
             opt(x.against, [](const ast::Expr& e) { return sx("against", {dx(e)}); }),
             join(x.notes, " ", [](const auto& n) { return sx("note", {q(n)}); }),
             opt(x.scored_by, [](const ast::Ident& i) { return sx("scored_by", {i.name}); }),
             join(x.bands, " ", [](const ast::Band& b) {
               return sx("band", {dx(b.score), b.at_least ? dx(*b.at_least) : std::string("otherwise")});
             })});
}
std::string d_criteria(const ast::CriteriaDecl& c) {
  return sx("criteria", {dx(c.source), opt(c.description, q), opt(c.per, name_of)});
}
std::string d(const ast::RubricDecl& r) {
  std::string order = r.order.empty() ? "" : sx_list("order", r.order, [](const auto& s) { return d_idents("step", s); });
  return sx("rubric " + r.name.name,
            {opt(r.scale, dx), opt(r.worst, name_of), join(r.instructions, " ", q), join(r.dims, " ", d_dim),
             opt(r.criteria, d_criteria), order});
}
std::string d(const ast::FlagDecl& f) {
  std::string pairs = join(f.pairings, " ", [](const ast::Pairing& p) {
    return sx("pair " + p.factor.name, {p.a.name, p.b.name});
  });
  return sx("flag " + f.name.name, {pairs, dx(f.when)});
}
std::string d(const ast::PanelDecl& p) {
  return sx("panel " + p.name.name, {p.aggregate.name, d_idents("of", p.judges)});
}
std::string d(const ast::ContrastDecl& c) {
  return sx("contrast " + c.name.name, {dx(c.value), c.by.empty() ? "" : d_idents("by", c.by),
                                        c.where ? sx("where", {dx(*c.where)}) : ""});
}
std::string d(const ast::AnalysisDecl& a) {
  std::string formula = opt(a.formula, [](const ast::Formula& f) {
    return sx_list("~ " + f.response.name, f.terms, [](const ast::FormulaTerm& t) {
      return t.group ? sx("random", {t.group->name}) : d_idents(t.crossed ? "*" : ":", t.vars);
    });
  });
  return sx("analysis " + a.name.name + " " + a.kind.name, {formula, sx_list("args", a.args, dx), d_options(a.options)});
}
std::string d(const ast::ReportDecl& r) {
  return sx_list("report " + r.name.name, r.items, [](const ast::ReportItem& i) {
    return sx(i.kind.name, {opt(i.content, dx), d_options(i.options)});
  });
}

std::string d_item(const char* key, const std::optional<ast::Expr>& e) {
  return opt(e, [&](const ast::Expr& v) { return sx(key, {dx(v)}); });
}
std::string d(const ast::SimulateDecl& s) {
  std::string dims = join(s.dims, " ", [](const ast::SimDim& x) {
    std::string effects = join(x.effects, " ", [](const ast::SimEffect& e) { return sx("effect", {dx(e.when), dx(e.value)}); });
    std::string randoms = join(x.randoms, " ", [](const ast::SimRandom& r) { return sx("random " + d_field(r.group), {dx(r.sd)}); });
    return sx("dim " + x.dim.name, {d_item("intercept", x.intercept), effects, randoms, d_item("residual", x.residual),
                                    d_item("na", x.na_rate), d_item("na_when", x.na_when), d_item("round", x.round),
                                    d_item("clip", x.clip)});
  });
  return sx("simulate", {d_item("seed", s.seed), dims});
}

}  // namespace

std::string dump_ast(const ast::Module& module) {
  std::string out;
  for (const auto& decl : module.decls) out += std::visit([](const auto& n) { return d(n); }, decl.node) + "\n";
  return out;
}

}  // namespace mirac
