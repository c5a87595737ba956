// means.cpp: mean scores by model x arm (the paper's Tables 3 and 7), and by model x arm x
// design cell, from which any coarser grouping (a report's `by cell`, `by language`) is an
// exact n-weighted merge.
#include <map>

#include "engine/analyze/parts.hpp"

namespace mirac::analyze {

void add_means(const Context& ctx, Output& out) {
  const Spec& spec = ctx.spec;
  const std::size_t dims = ctx.scores.dims.size(), arms = spec.arms.size();
  // sums[model * arms + arm][dim], counts likewise; rows counts every answer.
  std::vector<std::vector<double>> sums(spec.models.size() * arms, std::vector<double>(dims, 0.0));
  std::vector<std::vector<std::size_t>> counts(sums.size(), std::vector<std::size_t>(dims, 0));
  std::vector<std::size_t> rows(sums.size(), 0);
  for (const auto& r : ctx.scores.rows) {
    std::size_t g = static_cast<std::size_t>(r.model) * arms + static_cast<std::size_t>(r.arm);
    ++rows[g];
    for (std::size_t d = 0; d < dims; ++d) {
      if (is_na(r.scores[d])) continue;
      sums[g][d] += r.scores[d];
      ++counts[g][d];
    }
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  Table t{"means", {"model", "arm", "dimension", "mean", "n", "na"}, {}};
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    for (std::size_t a = 0; a < arms; ++a) {
      std::size_t g = m * arms + a;
      if (rows[g] == 0) continue;  // a model x arm without answers has no row, not a row of N/A
      nlohmann::ordered_json entry{{"model", spec.models[m].name}, {"arm", spec.arms[a].name}, {"rows", rows[g]}};
      nlohmann::ordered_json by_dim = nlohmann::ordered_json::object();
      for (std::size_t d = 0; d < dims; ++d) {
        double mean = counts[g][d] ? sums[g][d] / static_cast<double>(counts[g][d]) : std::nan("");
        by_dim[ctx.scores.dims[d]] = {{"mean", json_number(mean)}, {"n", counts[g][d]}, {"na", rows[g] - counts[g][d]}};
        t.rows.push_back({spec.models[m].name, spec.arms[a].name, ctx.scores.dims[d], csv_number(mean),
                          std::to_string(counts[g][d]), std::to_string(rows[g] - counts[g][d])});
      }
      entry["dimensions"] = std::move(by_dim);
      list.push_back(std::move(entry));
    }
  }
  out.json["means"] = std::move(list);
  out.tables.push_back(std::move(t));
  add_cell_means(ctx, out);
}

void add_cell_means(const Context& ctx, Output& out) {
  const Spec& spec = ctx.spec;
  const std::size_t dims = ctx.scores.dims.size();
  struct Sums {
    std::vector<double> sum;
    std::vector<std::size_t> n;
    std::size_t rows = 0;
  };
  // Keyed by (model, arm, levels): ordered, so the list follows the spec's declaration order.
  std::map<std::tuple<int, int, std::vector<int>>, Sums> cells;
  for (const auto& r : ctx.scores.rows) {
    Sums& c = cells[{r.model, r.arm, r.levels}];
    if (c.sum.empty()) c.sum.assign(dims, 0.0), c.n.assign(dims, 0);
    ++c.rows;
    for (std::size_t d = 0; d < dims; ++d) {
      if (is_na(r.scores[d])) continue;
      c.sum[d] += r.scores[d];
      ++c.n[d];
    }
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& [key, c] : cells) {
    const auto& [model, arm, levels] = key;
    nlohmann::ordered_json cell = nlohmann::ordered_json::object();
    for (std::size_t f = 0; f < spec.factors.size(); ++f)
      cell[spec.factors[f].name] = spec.factors[f].levels[static_cast<std::size_t>(levels[f])].name.name;
    nlohmann::ordered_json by_dim = nlohmann::ordered_json::object();
    for (std::size_t d = 0; d < dims; ++d) {
      double mean = c.n[d] ? c.sum[d] / static_cast<double>(c.n[d]) : std::nan("");
      by_dim[ctx.scores.dims[d]] = {{"mean", json_number(mean)}, {"n", c.n[d]}, {"na", c.rows - c.n[d]}};
    }
    list.push_back({{"model", spec.models[static_cast<std::size_t>(model)].name},
                    {"arm", spec.arms[static_cast<std::size_t>(arm)].name},
                    {"cell", std::move(cell)},
                    {"rows", c.rows},
                    {"dimensions", std::move(by_dim)}});
  }
  out.json["cell_means"] = std::move(list);
}

}  // namespace mirac::analyze
