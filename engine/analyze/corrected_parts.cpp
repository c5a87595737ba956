// corrected_parts.cpp: a `corrected` analysis's `contrasts` and `flags`. A contrast is its
// expression over cell means, each cell corrected with people's scores of that cell's own
// answers (a judge's error may differ between the cells it compares: that is what biases
// its contrast), the whole estimator resampled over seeds. A unit flag's rate is corrected
// twice: by PPI (a rate is a mean of 0 and 1) and by Rogan-Gladen (the judge's sensitivity
// and specificity against people's flag).
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/contrast_cells.hpp"
#include "engine/analyze/corrected.hpp"
#include "engine/analyze/parts.hpp"
#include "interpreter/eval/eval.hpp"
#include "interpreter/scores/row_scope.hpp"
#include "runtime/stats/nan.hpp"

namespace mirac::analyze::corrected_detail {

namespace {

using stats::kNaN;

// Every cell's sums over one seed's answers.
struct CellSums {
  std::vector<stats::PpiSums> cells;
  void add(const CellSums& o) {
    for (std::size_t c = 0; c < cells.size(); ++c) cells[c].add(o.cells[c]);
  }
};

nlohmann::ordered_json contrast_groups(const Setup& s, const ast::ContrastDecl& c, const ContrastCells& shape,
                                       const std::vector<std::size_t>& rows, const std::vector<std::string>& by,
                                       const std::map<std::string, Certification>& by_dimension, Table& table) {
  // Certified when the judge is on every dimension the contrast reads.
  const Certification* certification = nullptr;
  for (const Cell& cell : shape.cells) {
    auto it = by_dimension.find(s.judge_table.dims[static_cast<std::size_t>(cell.dim)]);
    if (it != by_dimension.end() && (!certification || !it->second.certified)) certification = &it->second;
  }
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const Group& g : group_rows(s.ctx.spec, s.judge_table, rows, by)) {
    const std::map<int, std::size_t> slots = seed_slots(s.judge_table, g.rows);
    const CellSums zero{std::vector<stats::PpiSums>(shape.cells.size())};
    std::vector<CellSums> per_seed(slots.size(), zero);
    CellSums total = zero;
    for (std::size_t i : g.rows) {
      const ScoreRow& row = s.judge_table.rows[i];
      const ScoreRow* p = s.people_row(row);
      for (std::size_t k = 0; k < shape.cells.size(); ++k) {
        const Cell& cell = shape.cells[k];
        const auto d = static_cast<std::size_t>(cell.dim);
        if (is_na(row.scores[d]) || !at_levels(cell, row)) continue;
        stats::PpiSums& part = per_seed[slots.at(row.seed)].cells[k];
        if (!p || is_na(p->scores[d])) part.add_judged(row.scores[d]), total.cells[k].add_judged(row.scores[d]);
        else part.add_scored_by_people(row.scores[d], p->scores[d]), total.cells[k].add_scored_by_people(row.scores[d], p->scores[d]);
      }
    }
    auto over_cells = [&](const std::function<double(const stats::PpiSums&)>& mean) {
      return [&, mean](const CellSums& sums) {
        std::vector<double> means;
        for (const auto& cell : sums.cells) means.push_back(mean(cell));
        return contrast_value(c.value, shape, means);
      };
    };
    const std::string key = fmt::format("{}/{}/{}", s.a.name.name, c.name.name, group_label(g));
    const Interval judge = seed_interval<CellSums>(
        s, key, per_seed, zero, over_cells([](const stats::PpiSums& t) { return t.all_n > 0 ? t.all_judge / t.all_n : kNaN; }));
    const stats::PpiMethod method = s.method;
    const Interval corrected =
        seed_interval<CellSums>(s, key, per_seed, zero, over_cells([method](const stats::PpiSums& t) { return stats::ppi_point(t, method); }));
    nlohmann::ordered_json entry = group_json(by, g);
    if (slots.size() < stats::kSmallestVerifiedClusters) entry["small_design"] = true;
    entry["judge_only"] = judge.json();
    entry["corrected"] = corrected.json();
    nlohmann::ordered_json cells = nlohmann::ordered_json::array();
    double N = 0, n = 0, fewest = -1;
    for (std::size_t k = 0; k < shape.cells.size(); ++k) {
      cells.push_back({{"cell", shape.cells[k].label},
                       {"N", static_cast<std::size_t>(total.cells[k].all_n)},
                       {"n", static_cast<std::size_t>(total.cells[k].n)}});
      N += total.cells[k].all_n, n += total.cells[k].n;
      fewest = fewest < 0 ? total.cells[k].n : std::min(fewest, total.cells[k].n);
    }
    entry["cells"] = std::move(cells);
    if (certification) entry["certified"] = certification->certified;
    if (fewest == 0) entry["note"] = "people scored no answer of a cell of the contrast: nothing to correct it with";
    else if (corrected.ci.is_null()) entry["note"] = kTooFewForInterval;
    table.rows.push_back(csv_row("contrast", c.name.name, group_label(g), N, n, judge, corrected, nullptr, certification));
    groups.push_back(std::move(entry));
  }
  return groups;
}

}  // namespace

nlohmann::ordered_json corrected_contrasts(const Setup& s, const std::map<std::string, Certification>& by_dimension,
                                           Table& table) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  const Context judge_ctx = s.judge_context();
  for (const ast::ContrastDecl* c : named_contrasts(s.ctx.spec, *find_option(s.a.options, "contrasts"))) {
    ContrastCells shape;
    try {
      find_cells(s.ctx.spec, s.judge_table, c->value, shape);
    } catch (const EvalError& e) {
      s.ctx.diags.error(e.range, e.what());
      continue;
    }
    if (std::any_of(shape.cells.begin(), shape.cells.end(), [](const Cell& cell) { return cell.dim < 0; }))
      throw std::invalid_argument(fmt::format("contrast {} reads a dimension the scores do not have", c->name.name));
    // The analysis's `where` and the contrast's own, so that the judge's figure is the
    // contrasts table's when the analysis has none.
    std::vector<std::size_t> rows = s.rows;
    if (c->where) {
      std::vector<std::size_t> own;
      if (!rows_where(judge_ctx, *c->where, own)) continue;  // reported at the condition
      std::vector<std::size_t> both;
      std::set_intersection(rows.begin(), rows.end(), own.begin(), own.end(), std::back_inserter(both));
      rows = std::move(both);
    }
    std::vector<std::string> by;
    for (const auto& id : c->by) by.push_back(id.name);
    std::vector<std::string> dims;
    for (const Cell& cell : shape.cells)
      if (const std::string& dim = s.judge_table.dims[static_cast<std::size_t>(cell.dim)];
          std::find(dims.begin(), dims.end(), dim) == dims.end())
        dims.push_back(dim);
    nlohmann::ordered_json entry{{"name", c->name.name},
                                 {"definition", c->definition.empty() ? source_text(s.ctx, c->value.range) : c->definition},
                                 {"dimensions", dims},
                                 {"by", by}};
    entry["groups"] = contrast_groups(s, *c, shape, rows, by, by_dimension, table);
    list.push_back(std::move(entry));
  }
  return list;
}

nlohmann::ordered_json corrected_flags(const Setup& s, Table& table) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  const ast::AnalysisOption& option = *find_option(s.a.options, "flags");
  const std::vector<Group> groups = group_rows(s.ctx.spec, s.judge_table, s.rows, s.by);
  for (const auto& v : option.values) {
    const std::string name = name_of(v.value);
    const auto flag = std::find_if(s.ctx.spec.flags.begin(), s.ctx.spec.flags.end(),
                                   [&](const ast::FlagDecl& f) { return f.name.name == name && f.pairings.empty(); });
    if (flag == s.ctx.spec.flags.end()) continue;  // mirac check reported it
    // Each answer's flag by the judge and, where people scored it, by people; N/A is not
    // flagged for either, as in the flags table.
    std::vector<std::uint8_t> judge_flag(s.judge_table.rows.size(), 0);
    std::vector<double> judge_values, people_values;
    std::vector<int> people_flag(s.judge_table.rows.size(), -1);
    try {
      for (std::size_t i : s.rows) {
        const ScoreRow& row = s.judge_table.rows[i];
        judge_flag[i] = holds(flag->when, s.ctx.spec, s.judge_table, row) ? 1 : 0;
        if (const ScoreRow* p = s.people_row(row)) {
          people_flag[i] = holds(flag->when, s.ctx.spec, s.people_table, *p) ? 1 : 0;
          judge_values.push_back(judge_flag[i]);
          people_values.push_back(people_flag[i]);
        }
      }
    } catch (const EvalError& e) {
      s.ctx.diags.error(e.range, e.what());
      continue;
    }
    nlohmann::ordered_json entry{{"name", name}};
    std::optional<Certification> certification;
    if (!s.rules.empty()) {
      const std::vector<double> binary = {0, 1};  // the kappa of a flag is Cohen's: two categories
      certification = certify(s.rules, judge_values, people_values, binary);
      entry["certification"] = certification->json();
      if (!certification->certified)
        s.ctx.diags.warning(s.a.name.range, fmt::format("analysis {}: judge '{}' is uncertified on flag {} ({}): its "
                                                        "figures are labelled so", s.a.name.name, s.judge, name,
                                                        fmt::join(certification->failed, ", ")));
    }
    nlohmann::ordered_json out_groups = nlohmann::ordered_json::array();
    for (const Group& g : groups) {
      const std::map<int, std::size_t> slots = seed_slots(s.judge_table, g.rows);
      std::vector<stats::FlagSums> per_seed(slots.size());
      stats::FlagSums total;
      for (std::size_t i : g.rows) {
        stats::FlagSums& part = per_seed[slots.at(s.judge_table.rows[i].seed)];
        if (people_flag[i] < 0) part.add_judged(judge_flag[i]), total.add_judged(judge_flag[i]);
        else part.add_scored_by_people(judge_flag[i], people_flag[i]), total.add_scored_by_people(judge_flag[i], people_flag[i]);
      }
      const std::string key = fmt::format("{}/{}/{}", s.a.name.name, name, group_label(g));
      const Interval judge = seed_interval<stats::FlagSums>(s, key, per_seed, {}, [](const stats::FlagSums& t) {
        return t.all_n > 0 ? t.all_flagged / t.all_n : kNaN;
      });
      const stats::PpiMethod method = s.method;
      const Interval ppi = seed_interval<stats::FlagSums>(
          s, key, per_seed, {}, [method](const stats::FlagSums& t) { return stats::ppi_point(stats::ppi_sums(t), method); });
      const Interval rogan = seed_interval<stats::FlagSums>(s, key, per_seed, {},
                                                            [](const stats::FlagSums& t) { return stats::rogan_gladen_point(t); });
      const stats::RoganGladen delta = stats::rogan_gladen(total);
      nlohmann::ordered_json entry_group = group_json(s.by, g);
      entry_group["N"] = static_cast<std::size_t>(total.all_n);
      if (slots.size() < stats::kSmallestVerifiedClusters) entry_group["small_design"] = true;
      entry_group["n"] = static_cast<std::size_t>(total.positives + total.negatives);
      entry_group["people_flagged"] = static_cast<std::size_t>(total.positives);
      entry_group["judge_only"] = judge.json();
      entry_group["corrected"] = ppi.json();
      nlohmann::ordered_json rg = rogan.json();
      rg["ci_delta"] = std::isfinite(delta.corrected.lower)
                           ? nlohmann::ordered_json::array({delta.corrected.lower, delta.corrected.upper})
                           : nlohmann::ordered_json();
      rg["sensitivity"] = json_number(delta.sensitivity);
      rg["specificity"] = json_number(delta.specificity);
      entry_group["rogan_gladen"] = std::move(rg);
      if (certification) entry_group["certified"] = certification->certified;
      if (total.positives == 0 || total.negatives == 0)
        entry_group["note"] = "people's sample has no flagged or no unflagged answer: no sensitivity or specificity";
      else if (ppi.ci.is_null() || rogan.ci.is_null())
        entry_group["note"] = kTooFewForInterval;
      table.rows.push_back(csv_row("flag", name, group_label(g), total.all_n, total.positives + total.negatives, judge, ppi,
                                   &rogan, certification ? &*certification : nullptr));
      out_groups.push_back(std::move(entry_group));
    }
    entry["groups"] = std::move(out_groups);
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace mirac::analyze::corrected_detail
