// format.cpp: `mirac fmt`. Declarations go through a line printer that keeps the
// indentation and puts every comment back where it was relative to the nodes: a comment
// alone on its line before the first node that follows it, a comment after code at the end
// of the line printed before that node. Expressions are printed by format_expr.cpp.
#include "interpreter/format/format.hpp"

#include <algorithm>
#include <optional>

#include "interpreter/format/expr.hpp"

namespace mirac {

namespace {

using format_detail::Columns;
using format_detail::display_width;
using format_detail::is_identifier;
using format_detail::join;
using format_detail::name_of;

constexpr std::size_t kWidth = 100;  // a one-line form longer than this is split

class Printer {
 public:
  /// `text`: the module's source, to tell a comment after code from one alone on its line.
  Printer(const ast::Module& m, std::string_view text) : module_(m), text_(text) {}

  std::string run() {
    int prev_kind = -1;
    bool prev_single = false;
    for (const ast::Decl& d : module_.decls) {
      flush(d.range.begin.byte, true);  // after the previous declaration's last line
      std::size_t before = next_comment_;
      std::string lead = capture([&] { flush(d.range.begin.byte); });
      // A comment set apart by a blank line (a file header, a section title) stays apart.
      if (next_comment_ > before && module_.comments[next_comment_ - 1].range.end.line + 1 < d.range.begin.line)
        lead += '\n';
      std::string body = capture([&] { std::visit([&](const auto& n) { decl(n, d.range); }, d.node); });
      if (d.change != ast::Change::declare) body.insert(0, d.change == ast::Change::extend ? "extend " : "override ");
      bool single = std::count(body.begin(), body.end(), '\n') == 1;
      // A variant's `extend model` one-liner does not join a `model` one (nor `override` either).
      int kind = static_cast<int>(d.node.index()) * 3 + static_cast<int>(d.change);
      // One-liners of the same kind (use, model, flag, contrast...) stay together.
      if (prev_kind >= 0 && !(kind == prev_kind && single && prev_single)) out_ += '\n';
      out_ += lead + body;
      prev_kind = kind;
      prev_single = single;
    }
    flush(std::string::npos, true);
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
    last_line_takes_comment_ = true;
  }
  // Emits the comments that start before `byte`. A comment that follows code on its line
  // goes at the end of the line printed last, so that it stays with the code it was written
  // beside; it gets a line of its own when that line is a comment or has one already (a
  // second `//` would swallow the first into one comment). Every other comment is on its
  // own line, and a blank line between two of them (two paragraphs of comments) stays.
  // `trailing_only` stops at the first comment that would need a line of its own.
  void flush(std::size_t byte, bool trailing_only = false) {
    const auto& cs = module_.comments;
    for (bool first = true; next_comment_ < cs.size() && cs[next_comment_].range.begin.byte < byte; first = false) {
      const ast::Comment& c = cs[next_comment_];
      if (last_line_takes_comment_ && !out_.empty() && follows_code(c) && c.text.find('\n') == std::string::npos) {
        out_.insert(out_.size() - 1, " " + c.text);
        last_line_takes_comment_ = false;
        ++next_comment_;
        continue;
      }
      if (trailing_only) return;
      if (!first && c.range.begin.line > cs[next_comment_ - 1].range.end.line + 1) out_ += '\n';
      line(c.text);
      last_line_takes_comment_ = false;
      ++next_comment_;
    }
  }
  bool follows_code(const ast::Comment& c) const {
    for (std::size_t b = std::min(c.range.begin.byte, text_.size()); b > 0 && text_[b - 1] != '\n'; --b)
      if (text_[b - 1] != ' ' && text_[b - 1] != '\t' && text_[b - 1] != '\r') return true;
    return false;
  }
  void flush_at(const SourceRange& r) { flush(r.begin.byte); }
  bool has_comments(const SourceRange& r) const {
    for (const auto& c : module_.comments)
      if (c.range.begin.byte >= r.begin.byte && c.range.begin.byte < r.end.byte) return true;
    return false;
  }
  bool fits(std::string_view s) const {
    return s.find('\n') == std::string_view::npos && static_cast<std::size_t>(indent_) * 2 + display_width(s) <= kWidth;
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
  std::string ex(const ast::Expr& e) const { return format_detail::print_expr(e, indent_ * 2); }
  std::string str(const ast::StringLit& s) const { return format_detail::string_literal(s, indent_ * 2); }
  // `head EXPR`; when too long and EXPR is an `or`/`and`/`+`/`++` chain, the chain breaks
  // before its operators onto continuation lines (blanks may separate any two tokens).
  void expr_line(const std::string& head, const ast::Expr& e, const std::string& tail = "") {
    std::string flat = head + ex(e) + tail;
    if (fits(flat) || flat.find('\n') != std::string::npos) return line(flat);
    auto pieces = format_detail::expr_chain(e, indent_ * 2 + 2);
    std::vector<std::string> lines{head + pieces[0]};
    for (std::size_t i = 1; i < pieces.size(); ++i) {
      std::size_t width = static_cast<std::size_t>(indent_ + (lines.size() > 1 ? 1 : 0)) * 2;
      if (width + display_width(lines.back()) + 1 + display_width(pieces[i]) <= kWidth) lines.back() += " " + pieces[i];
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
  void decl(const ast::AuditDecl& d, const SourceRange&) {
    block("audit " + d.name.name + (d.extends ? " extends " + quote_string(d.extends->value) : ""), d.settings, false);
  }

  void decl(const ast::RemoveDecl& d, const SourceRange&) {
    line("remove " + d.kind.name + (d.name ? " " + d.name->name : ""));
  }

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
    // Without a source, joins or mappings: an extension (`extend seeds join ... { ... }`).
    if (d.source || !d.joins.empty() || !d.mappings.empty()) {
      std::string joins;
      for (const auto& j : d.joins) joins += " join " + source(j.source) + " on " + column(j.key);
      open("seeds" + (d.source ? " from " + source(*d.source) : "") + joins);
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
      for (const auto& s : d.inline_seeds) {
        flush_at(s.range);
        field_values("seed " + ex(s.id), s.fields, s.range);
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
    open("variant " + d.field.name + (d.by.empty() ? "" : " by " + join(d.by, " * ", name_of)));
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
    if (d.keyed()) {
      std::string head = "text " + d.factor.name + " by " + join(d.by, " * ", name_of);
      if (d.cells.empty() && !has_comments(r)) return line(head + " {}");
      open(head);
      for (const auto& c : d.cells) {
        flush_at(c.cell.range);
        lang_texts(cell_path(c.cell), c.texts);
      }
      return close(&r);
    }
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
  // Without a preset: an extension, `extend model gpt { max_tokens 2048 }`.
  void decl(const ast::ModelDecl& d, const SourceRange&) {
    if (d.preset.name.empty()) return block("model " + d.name.name, d.settings.value_or(ast::Block{}));
    model_like("model " + d.name.name + " = " + d.preset.name, d.model, d.settings);
  }
  void decl(const ast::JudgeDecl& d, const SourceRange&) {
    if (d.preset.name.empty()) return block("judge " + d.name.name, d.settings.value_or(ast::Block{}));
    model_like("judge " + d.name.name + " = " + d.preset.name, d.model, d.settings);
  }

  void dim(const ast::DimDecl& dim) {
    flush_at(dim.range);
    open("dim " + dim.name.name + " " + str(dim.title));
    if (dim.scale) {
      flush_at(dim.scale->range);
      line("scale " + ex(*dim.scale));
    }
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
    if (d.kind.name.empty()) {  // an extension: `extend analysis rq1 { where ... }`, braces even when empty
      if (d.options.empty() && !has_comments(r)) return line("analysis " + d.name.name + " {}");
      return options("analysis " + d.name.name, d.options, r);
    }
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
      for (const auto& e : dm.biases) {
        flush_at(e.range);
        line("bias " + ex(e.when) + (e.rubric ? " under " + e.rubric->name : "") + ": " + ex(e.value));
      }
      for (const auto& rnd : dm.randoms) {
        flush_at(rnd.range);
        line("random " + rnd.group.field.name + (rnd.group.level ? "." + rnd.group.level->name : "") + " " + ex(rnd.sd));
      }
      item("residual", dm.residual);
      item("answer", dm.answer);
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
      if (item.change == ast::ItemChange::remove) {
        line("remove " + (item.name ? item.name->name : ""));
        continue;
      }
      std::string head = item.change == ast::ItemChange::override_ ? "override " : "";
      head += item.kind.name + (item.name ? " " + item.name->name + " =" : "");
      options(head + (item.content ? " " + ex(*item.content) : ""), item.options, item.range);
    }
    close(&r);
  }

  const ast::Module& module_;
  std::string_view text_;
  std::string out_;
  // Whether out_'s last line is code without a comment (see flush).
  bool last_line_takes_comment_ = false;
  int indent_ = 0;
  std::size_t next_comment_ = 0;
};

}  // namespace

std::string format_module(const ast::Module& module, const SourceManager& sources) {
  const std::string_view text = module.file >= 0 && static_cast<std::size_t>(module.file) < sources.size()
                                    ? std::string_view(sources.text(module.file))
                                    : std::string_view();
  return Printer(module, text).run();
}

}  // namespace mirac
