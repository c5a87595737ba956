// report.cpp: from the spec's report blocks to files: reads each block's items, builds
// one Document per report, names the files and prints them.
#include "engine/report/report.hpp"

#include <fstream>
#include <set>

#include <fmt/format.h>

#include "engine/analyze/context.hpp"
#include "interpreter/scores/scores.hpp"
#include "engine/report/content.hpp"
#include "interpreter/check/check.hpp"
#include "runtime/report/figure_data.hpp"

namespace mirac::report {

namespace {

// A title with `{cells}` replaced by the number of cells a report's `cell` stands for (the
// levels of cell_factors multiplied: 8 in MIRA, 12 with Japanese), so that it comes from
// the design. The checker reports any other placeholder.
std::string filled_title(const Spec& spec, std::string title) {
  const std::string placeholder = fmt::format("{{{}}}", kCellsPlaceholder);
  if (title.find(placeholder) == std::string::npos) return title;
  std::size_t cells = 1;
  for (int f : cell_factors(spec)) cells *= spec.factors[static_cast<std::size_t>(f)].levels.size();
  for (std::size_t at; (at = title.find(placeholder)) != std::string::npos;)
    title.replace(at, placeholder.size(), std::to_string(cells));
  return title;
}

Item read_item(const Spec& spec, const ast::ReportItem& ri) {
  Item item;
  item.kind = ri.kind.name;
  if (ri.name) item.name = ri.name->name;
  if (!ri.content) return item;
  if (const auto* s = std::get_if<ast::StringLit>(&ri.content->node)) {
    item.title = filled_title(spec, s->value);
  } else if (const auto* c = std::get_if<ast::Call>(&ri.content->node)) {
    item.content = c->callee.name;
    for (const auto& a : c->args) {
      const auto* n = std::get_if<ast::Name>(&a.node);
      item.args.push_back(n ? n->name : expr_text(a));
    }
  } else {
    item.content = expr_text(*ri.content);  // not a call: read_item's caller reports it
  }
  for (const auto& o : ri.options) {
    if (o.key.name == "by") {
      for (const auto& v : o.values)
        for (auto& name : analyze::variables_of(v.value)) item.by.push_back(std::move(name));
    } else if (o.key.name == "where" && !o.values.empty() && !item.where) {
      item.where = &o.values.front().value;
    } else if (o.key.name == "delta" || o.key.name == "split") {
      auto& dims = o.key.name == "delta" ? item.delta : item.split;
      for (const auto& v : o.values)
        for (auto& name : analyze::variables_of(v.value)) dims.emplace_back(v.label ? v.label->name : "", std::move(name));
    } else if (o.key.name == "terms") {
      for (const auto& v : o.values) item.terms.push_back(analyze::variables_of(v.value));
    } else if (o.key.name == "title" && !o.values.empty()) {
      if (const auto* s = std::get_if<ast::StringLit>(&o.values.front().value.node)) item.title = filled_title(spec, s->value);
    }
  }
  return item;
}

Item made_item(std::string kind, std::string content, std::vector<std::string> args, std::vector<std::string> by,
               std::string title) {
  Item item;
  item.kind = std::move(kind);
  item.content = std::move(content);
  item.args = std::move(args);
  item.by = std::move(by);
  item.title = std::move(title);
  return item;
}

// A spec without a report block still gets one: every mean, contrast, analysis and flag.
std::vector<Item> default_items(const Spec& spec) {
  std::vector<Item> items;
  items.push_back(made_item("section", "", {}, {}, "Mean scores"));
  items.push_back(made_item("table", "means", analyze::score_dimensions(spec), {"model", "arm"}, ""));
  if (!spec.contrasts.empty()) {
    std::vector<std::string> names;
    for (const auto& c : spec.contrasts) names.push_back(c.name.name);
    items.push_back(made_item("section", "", {}, {}, "Contrasts"));
    items.push_back(made_item("table", "contrasts", names, {}, ""));
    items.push_back(made_item("figure", "contrasts", names, {}, ""));
  }
  if (!spec.analyses.empty()) {
    std::vector<std::string> names;
    for (const auto& a : spec.analyses) names.push_back(a.name.name);
    items.push_back(made_item("section", "", {}, {}, "Analyses"));
    items.push_back(made_item("table", "analysis", names, {}, ""));
  }
  if (!spec.flags.empty()) {
    std::vector<std::string> names;
    for (const auto& f : spec.flags) names.push_back(f.name.name);
    items.push_back(made_item("section", "", {}, {}, "Flags"));
    items.push_back(made_item("table", "flags", names, {"model", "arm"}, ""));
  }
  return items;
}

// A report of simulated answers reads like findings about real models unless it says
// otherwise everywhere: a banner above everything, the title, and each simulated model's
// name wherever a table shows it.
void mark_simulated(const Spec& spec, const Json& results, Document& doc) {
  const Json* manifest = member(&results, "manifest");
  const Json* flag = member(manifest, "simulated");
  if (!flag || !flag->is_boolean() || !flag->get<bool>()) return;
  std::set<std::string> simulated;
  if (const Json* models = member(manifest, "simulated_models"); models && models->is_array() && !models->empty()) {
    for (const auto& m : *models) simulated.insert(text(&m));
  } else {
    for (const auto& m : spec.models) simulated.insert(m.name);
  }
  // With a simulate block the scores are the declared truth plus noise; without one they
  // come from the offline judge's heuristic. Either way the reader must know.
  const std::string how = spec.simulate ? "wrote every answer as placeholder text and the scores were drawn from the "
                                          "declared effects of the spec's `simulate` block"
                                        : "wrote every answer and its heuristic judge scored them";
  doc.banner = "Simulated answers: mirac's offline provider " + how +
               ". Nothing in this report is a finding about any real model.";
  doc.title += " (simulated answers)";
  const std::string suffix = " (simulated)";
  auto mark = [&](std::string& cell) {
    if (simulated.count(cell)) cell += suffix;
    else if (cell.starts_with("model = ") && simulated.count(cell.substr(8))) cell += suffix;
  };
  for (auto& block : doc.blocks) {
    auto* t = std::get_if<Table>(&block);
    if (!t) continue;
    for (std::size_t c = 0; c < t->header.size(); ++c) {
      const std::string& h = t->header[c];
      if (h != "model" && h != "group") continue;
      for (auto& row : t->rows)
        if (c < row.size()) mark(row[c]);
    }
  }
}

void render_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  if (item.kind == "section") {
    out.push_back(Heading{item.title, 2});
  } else if (item.kind == "text") {
    out.push_back(Paragraph{item.title});
  } else if (item.kind != "table" && item.kind != "figure") {
    out.push_back(Note{fmt::format("Report item '{}' is not one the report knows.", item.kind)});
  } else if (item.content == "means" || item.content == "bars") {
    means_item(ctx, item, out);
  } else if (item.content == "contrasts") {
    contrasts_item(ctx, item, out);
  } else if (item.content == "analysis") {
    analyses_item(ctx, item, out);
  } else if (item.content == "flags") {
    flags_item(ctx, item, out);
  } else if (item.content == "coefficients") {
    coefficients_item(ctx, item, out);
  } else if (item.content == "deltas") {
    deltas_item(ctx, item, out);
  } else if (item.content == "seeds") {
    seeds_item(ctx, item, out);
  } else {
    out.push_back(Note{fmt::format("{} '{}' is not one the report knows (means, bars, contrasts, analysis, coefficients, "
                                   "deltas, flags, seeds).",
                                   item.kind, item.content)});
  }
}

// A named item's name is a stable place in the report however its title or content change:
// the anchor of its section heading or first table (report.html#table3), and the file
// name of its figures (figures/fig2.vl.json; name_figures adds -2, -3 to further ones).
// Names are identifiers, so they never meet the generated figure names, which hold a '-'.
void name_blocks(const std::string& name, std::vector<Block>& blocks, std::size_t first) {
  bool anchored = false;
  for (std::size_t b = first; b < blocks.size(); ++b) {
    if (auto* f = std::get_if<Figure>(&blocks[b])) {
      f->stem = name;
    } else if (auto* h = std::get_if<Heading>(&blocks[b]); h && !anchored) {
      h->id = name;
      anchored = true;
    } else if (auto* t = std::get_if<Table>(&blocks[b]); t && !anchored) {
      t->id = name;
      anchored = true;
    }
  }
}

Document build(const Spec& spec, const Json& results, const std::string& report_name, const std::vector<Item>& items) {
  Document doc;
  doc.title = spec.title.empty() ? spec.name : spec.title;
  // Values print as code spans, so a backtick in one would end its span early.
  auto code = [](std::string v) {
    std::erase(v, '`');
    return "`" + v + "`";
  };
  doc.provenance = "spec " + code(spec.name);
  if (!report_name.empty()) doc.provenance += " · report " + code(report_name);
  const Json* manifest = member(&results, "manifest");
  const Json* scores = member(manifest, "scores");
  if (manifest) doc.provenance += " · mirac " + code(text(member(manifest, "mirac_version")));
  if (scores) {
    doc.provenance += fmt::format(" · scores {} (sha256 {}) · {} score rows", code(text(member(scores, "path"))),
                                  code(text(member(scores, "sha256"))), text(member(scores, "rows")));
  } else {
    doc.blocks.push_back(Note{"results.json has no manifest of its scores: the data behind this report is not identified."});
  }
  answers_blocks(spec, results, doc.blocks);  // what the numbers below leave out or rest on
  Context ctx{spec, results};
  for (const auto& item : items) {
    const std::size_t first = doc.blocks.size();
    render_item(ctx, item, doc.blocks);
    if (!item.name.empty()) name_blocks(item.name, doc.blocks, first);
  }
  mark_simulated(spec, results, doc);
  return doc;
}

std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    out += ok ? c : '_';
  }
  return out.empty() ? "figure" : out;
}

// Names each figure figures/STEM (figures/REPORT-STEM in a report other than the first),
// adding -2, -3 ... when two figures would share a name, and writes its Vega-Lite spec
// (STEM.vl.json, which draws it again anywhere) and its data (STEM.csv) beside it.
void name_figures(Document& doc, const std::string& prefix, std::set<std::string>& used, ReportFiles& files) {
  for (auto& block : doc.blocks) {
    auto* f = std::get_if<Figure>(&block);
    if (!f) continue;
    std::string base = "figures/" + prefix + file_safe(f->stem);
    std::string name = base;
    for (int k = 2; used.count(name); ++k) name = fmt::format("{}-{}", base, k);
    used.insert(name);
    f->file = name;
    files[name + ".vl.json"] = f->spec.dump(2) + "\n";
    files[name + ".csv"] = figure_csv(*f);
  }
}

}  // namespace

ReportFiles render_reports(const Spec& spec, const nlohmann::ordered_json& results) {
  ReportFiles files;
  std::set<std::string> used;
  auto emit = [&](const std::string& name, const std::vector<Item>& items, bool first) {
    Document doc = build(spec, results, name, items);
    const std::string stem = first ? "report" : "report-" + file_safe(name);
    doc.html_file = stem + ".html";
    name_figures(doc, first ? "" : file_safe(name) + "-", used, files);
    files[stem + ".md"] = to_markdown(doc);
    files[stem + ".html"] = to_html(doc);
  };
  if (spec.reports.empty()) {
    emit("", default_items(spec), true);
    return files;
  }
  for (std::size_t r = 0; r < spec.reports.size(); ++r) {
    std::vector<Item> items;
    for (const auto& ri : spec.reports[r].items) items.push_back(read_item(spec, ri));
    emit(spec.reports[r].name.name, items, r == 0);
  }
  return files;
}

namespace {

// Figure files of an earlier report that this one does not write again (a figure removed
// from the spec, or the .svg files of mirac before Vega-Lite) would sit beside the new ones
// as if they were current: remove them. Only figures/ is touched, and only figure files.
void remove_stale_figures(const ReportFiles& files, const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> stale;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "figures", ec)) {
    const std::string name = entry.path().filename().string();
    const bool figure_file = name.ends_with(".svg") || name.ends_with(".vl.json") || name.ends_with(".csv");
    if (entry.is_regular_file(ec) && figure_file && !files.count("figures/" + name)) stale.push_back(entry.path());
  }
  for (const auto& path : stale) std::filesystem::remove(path, ec);
}

}  // namespace

std::string write_reports(const ReportFiles& files, const std::filesystem::path& dir) {
  remove_stale_figures(files, dir);
  for (const auto& [name, contents] : files) {
    const std::filesystem::path path = dir / name;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!(out << contents) || !out.flush()) return fmt::format("cannot write {}", path.string());
  }
  return "";
}

}  // namespace mirac::report
