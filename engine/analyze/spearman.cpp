// spearman.cpp: `spearman(D3) { by model * language against csv("f") { ... } }`: the
// ecological-validity check (paper, Table 6): the audit's mean score per group against an
// external file's score for the same group, correlated by Spearman's rho. Each group's
// values and ranks are kept: they are the points of the paper's Figure 4.
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"
#include "runtime/stats/nonparametric.hpp"
#include "runtime/stats/ranks.hpp"

namespace mirac::analyze {

namespace {

// The external file's value of a grouping variable, with models named by their model
// string mapped to the spec's name.
std::string normalise(const Spec& spec, const std::string& variable, const std::string& value) {
  if (variable == "model")
    for (const auto& m : spec.models)
      if (m.model == value) return m.name;
  return value;
}

std::optional<double> number(const std::string& s) {
  double x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  // "nan" and "inf" parse, but no rank can be given to them.
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || !std::isfinite(x)) return std::nullopt;
  return x;
}

}  // namespace

nlohmann::ordered_json run_spearman(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  nlohmann::ordered_json j{{"name", a.name.name}, {"kind", "spearman"}};
  const auto* against = find_option(a.options, "against");
  if (!against) {
    ctx.diags.error(a.name.range, fmt::format("analysis {}: spearman needs 'against csv(\"file\")'", a.name.name));
    return j;
  }
  const auto& call = std::get<ast::Call>(against->values.at(0).value.node);
  const auto& file = std::get<ast::StringLit>(call.args.at(0).node);
  std::map<std::string, std::string> column;  // variable or dimension -> column of the file
  if (against->columns)
    for (const auto& [name, col] : *against->columns) column[name.name] = col.name;
  auto column_of = [&](const std::string& n) { return column.count(n) ? column[n] : n; };
  std::filesystem::path path = spec.data_path(call.args[0].range, file.value);
  auto ext = read_table(path, path.string(), call.callee.name, call.args[0].range, ctx.sources, ctx.diags);
  if (!ext) {
    j["error"] = fmt::format("cannot read '{}'", file.value);  // so the report says why it has no table
    return j;
  }
  std::vector<std::string> by = option_variables(find_option(a.options, "by"));
  std::vector<std::size_t> rows = filter_rows(ctx, a.options);
  std::vector<Group> groups = group_rows(spec, ctx.scores, rows, by);
  j["by"] = by;
  j["against"] = file.value;

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  Table table{"spearman_" + a.name.name,
              {"dimension", "group", "audit_mean", "audit_n", "external", "audit_rank", "external_rank"},
              {}};
  for (const auto& arg : a.args) {
    const std::string dim = name_of(arg);
    const int d = ctx.scores.dim_index(dim);
    std::map<std::vector<std::string>, double> external;
    bool columns_ok = true;
    for (const auto& n : by) {
      if (!ext->has_column(column_of(n))) {
        ctx.diags.error(call.args[0].range, fmt::format("'{}' has no column '{}' for '{}'", file.value, column_of(n), n));
        columns_ok = false;
      }
    }
    if (!ext->has_column(column_of(dim))) {
      ctx.diags.error(call.args[0].range, fmt::format("'{}' has no column '{}' for '{}'", file.value, column_of(dim), dim));
      columns_ok = false;
    }
    if (!columns_ok) {
      j["error"] = fmt::format("'{}' lacks a column the analysis reads", file.value);
      return j;
    }
    for (const auto& row : ext->rows) {
      std::vector<std::string> key;
      for (const auto& n : by) key.push_back(normalise(spec, n, json_text(row.fields[column_of(n)])));
      std::string text = json_text(row.fields[column_of(dim)]);
      std::optional<double> x = number(text);
      if (!x) {
        if (!text.empty() && text != "N/A")
          ctx.diags.error(field_range(ctx.sources, row, column_of(dim)), fmt::format("'{}' is not a number", text));
        continue;
      }
      if (!external.emplace(key, *x).second)
        ctx.diags.error(field_range(ctx.sources, row, column_of(dim)),
                        fmt::format("a second row for the same {} in '{}'", fmt::join(by, " x "), file.value));
    }
    std::vector<double> xs, ys;
    std::vector<std::string> labels;
    std::vector<std::size_t> counts;
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    for (const Group& g : groups) {
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t i : g.rows)
        if (!is_na(ctx.scores.rows[i].scores[d])) sum += ctx.scores.rows[i].scores[d], ++n;
      auto it = external.find(g.values);
      if (n == 0 || it == external.end()) continue;
      double mean = sum / static_cast<double>(n);
      xs.push_back(mean);
      ys.push_back(it->second);
      nlohmann::ordered_json p = group_json(by, g);
      p["audit_mean"] = mean;
      p["audit_n"] = n;
      p["external"] = it->second;
      pairs.push_back(std::move(p));
      labels.push_back(group_label(g));
      counts.push_back(n);
    }
    // The ranks rho correlates, for the figure of rank-order alignment (paper, Figure 4):
    // among the groups both sides have, 1 the lowest, ties the mean of the ranks they span.
    const std::vector<double> audit_ranks = stats::average_ranks(xs).ranks;
    const std::vector<double> external_ranks = stats::average_ranks(ys).ranks;
    for (std::size_t k = 0; k < xs.size(); ++k) {
      pairs[k]["audit_rank"] = audit_ranks[k];
      pairs[k]["external_rank"] = external_ranks[k];
      table.rows.push_back({dim, labels[k], csv_number(xs[k]), std::to_string(counts[k]), csv_number(ys[k]),
                            csv_number(audit_ranks[k]), csv_number(external_ranks[k])});
    }
    nlohmann::ordered_json r{{"dimension", dim}, {"n", xs.size()}};
    if (xs.size() >= 3) {
      stats::SpearmanResult s = stats::spearman(xs, ys);
      r["rho"] = json_number(s.rho);
      r["t"] = json_number(s.t);
      r["df"] = json_number(s.df);
      r["p"] = json_number(s.p_value);
    } else {
      r["error"] = "fewer than 3 groups in both the audit and the external file";
    }
    r["groups"] = std::move(pairs);
    results.push_back(std::move(r));
  }
  j["results"] = std::move(results);
  out.tables.push_back(std::move(table));
  return j;
}

}  // namespace mirac::analyze
