// power_report.cpp: a power study as files: power.json, power.csv, and a report (power.md,
// power.html) with the table and the power curve (power.hpp, docs/simulation.md).
#include "engine/simulate/power_report.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "engine/analyze/analyze.hpp"
#include "runtime/report/figure_data.hpp"
#include "runtime/report/vega_charts.hpp"

namespace mirac {

namespace {

std::string fixed(double x, int digits) { return std::isfinite(x) ? fmt::format("{:.{}f}", x, digits) : "—"; }
std::string with_error(double x, double mcse, int digits) {
  if (!std::isfinite(x)) return "—";
  return std::isfinite(mcse) ? fmt::format("{:.{}f} ± {:.{}f}", x, digits, mcse, digits) : fixed(x, digits);
}

analyze::Table csv_table(const PowerStudy& s) {
  analyze::Table t{"power",
                   {"source", "kind", "label", "seeds", "truth", "null", "estimated", "mean_estimate", "bias", "bias_mcse",
                    "empirical_se", "rmse", "rmse_mcse", "with_interval", "coverage", "coverage_mcse", "tested",
                    "rejection", "rejection_mcse"},
                   {}};
  for (const auto& q : s.quantities) {
    auto n = analyze::csv_number;
    t.rows.push_back({q.source, q.kind, q.label, std::to_string(q.seeds), n(q.truth), q.null ? "true" : "false",
                      std::to_string(q.estimated), n(q.mean_estimate), n(q.bias), n(q.bias_mcse), n(q.empirical_se),
                      n(q.rmse), n(q.rmse_mcse), std::to_string(q.with_interval), n(q.coverage), n(q.coverage_mcse),
                      std::to_string(q.tested), n(q.rejection), n(q.rejection_mcse)});
  }
  return t;
}

// Rejection rate against the number of seeds, one line per quantity with a non-zero truth:
// the contrasts' when the study has any (one line per group), else every quantity's.
report::Figure power_curve(const PowerStudy& s) {
  bool contrasts = false;
  for (const auto& q : s.quantities) contrasts = contrasts || q.kind == "contrast";
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (const auto& q : s.quantities) {
    if (q.null || (contrasts && q.kind != "contrast") || !std::isfinite(q.rejection)) continue;
    std::string name = q.source + (q.label.empty() ? "" : " " + q.label);
    values.push_back({{"quantity", name}, {"seeds", q.seeds}, {"power", report::round4(q.rejection)},
                      {"lower", report::round4(std::max(0.0, q.rejection - 1.96 * q.rejection_mcse))},
                      {"upper", report::round4(std::min(1.0, q.rejection + 1.96 * q.rejection_mcse))},
                      {"truth", report::round4(q.truth)}});
  }
  nlohmann::ordered_json tooltip = nlohmann::ordered_json::array(
      {{{"field", "quantity"}, {"type", "nominal"}}, {{"field", "seeds"}, {"type", "quantitative"}},
       {{"field", "power"}, {"type", "quantitative"}, {"format", ".3f"}},
       {{"field", "truth"}, {"type", "quantitative"}, {"format", "+.3f"}}});
  nlohmann::ordered_json x{{"field", "seeds"}, {"type", "quantitative"}, {"title", "seeds"}};
  nlohmann::ordered_json color{{"field", "quantity"}, {"type", "nominal"}, {"title", nullptr}};
  nlohmann::ordered_json spec{
      {"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
      {"width", "container"},
      {"height", 320},
      {"data", {{"values", values}}},
      {"layer",
       nlohmann::ordered_json::array(
           {{{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}, {"color", "#888"}}},
             {"encoding", {{"y", {{"datum", 0.8}, {"type", "quantitative"}}}}}},
            {{"mark", {{"type", "errorbar"}}},
             {"encoding", {{"x", x}, {"y", {{"field", "lower"}, {"type", "quantitative"}, {"title", "power"}}},
                           {"y2", {{"field", "upper"}}}, {"color", color}}}},
            {{"mark", {{"type", "line"}, {"point", true}}},
             {"encoding", {{"x", x},
                           {"y", {{"field", "power"}, {"type", "quantitative"}, {"title", "power"},
                                  {"scale", {{"domain", {0, 1}}}}}},
                           {"color", color}, {"tooltip", tooltip}}}}})}};
  return {"Power by number of seeds (rejections at alpha; the dashed line marks 0.8)", "power-curve", "", spec};
}

report::Document document(const Spec& spec, const PowerStudy& s) {
  report::Document doc;
  doc.title = fmt::format("Power and recovery: {}", spec.title.empty() ? spec.name : spec.title);
  doc.banner = "Simulated audits: every score here was drawn from the spec's declared truth (its simulate block); "
               "nothing was sent to any model.";
  doc.provenance = fmt::format("spec `{}` · {} replicates per design · seed {} · alpha {} · {} bootstrap resamples",
                               spec.name, s.replicates, s.seed, s.alpha, s.resamples);
  doc.html_file = "power.html";
  std::string designs;
  for (auto n : s.designs) designs += (designs.empty() ? "" : ", ") + std::to_string(n);
  doc.blocks.push_back(report::Paragraph{fmt::format(
      "Designs of {} seeds, {} answers per seed. Each replicate draws every score from the declared truth and runs the "
      "spec's contrasts and analyses as a real run would. Truth: the same quantity computed from the expected scores "
      "(least squares for a mixed model's coefficients). Coverage: how often the interval (bootstrap for a contrast, "
      "95% t otherwise) holds the truth. Rejected: p < alpha, or for a contrast an interval without 0; power where the "
      "truth is not 0, the type I error rate where it is. ± gives the Monte Carlo standard error.",
      designs, s.answers_per_design_seed)});
  for (const auto& why : s.skipped) doc.blocks.push_back(report::Note{"Not simulated: " + why});
  report::Figure curve = power_curve(s);
  if (s.designs.size() > 1 && !curve.spec["data"]["values"].empty()) {
    curve.file = "figures/power-curve";
    doc.blocks.push_back(std::move(curve));
  }
  report::Table table;
  table.caption = "Every quantity in every design";
  table.header = {"quantity", "seeds", "truth", "mean estimate", "bias", "RMSE", "coverage", "rejected", ""};
  table.numeric = {false, true, true, true, true, true, true, true, false};
  for (const auto& q : s.quantities) {
    table.rows.push_back({q.source + (q.label.empty() ? "" : " " + q.label), std::to_string(q.seeds),
                          fmt::format("{:+.3f}", q.truth), fixed(q.mean_estimate, 3), with_error(q.bias, q.bias_mcse, 3),
                          with_error(q.rmse, q.rmse_mcse, 3), with_error(q.coverage, q.coverage_mcse, 3),
                          with_error(q.rejection, q.rejection_mcse, 3), q.null ? "type I error" : "power"});
  }
  doc.blocks.push_back(std::move(table));
  if (!s.warnings.empty()) {
    std::string text = "Warnings in the replicates' analyses:";
    for (const auto& [message, count] : s.warnings) text += fmt::format(" {} ({} times);", message, count);
    doc.blocks.push_back(report::Note{text});
  }
  return doc;
}

}  // namespace

report::ReportFiles power_files(const Spec& spec, const PowerStudy& study) {
  report::ReportFiles files;
  files["power.json"] = study.to_json().dump(2) + "\n";
  files["power.csv"] = analyze::to_csv(csv_table(study));
  report::Document doc = document(spec, study);
  for (const auto& block : doc.blocks)
    if (const auto* f = std::get_if<report::Figure>(&block)) {
      files[f->file + ".vl.json"] = f->spec.dump(2) + "\n";
      files[f->file + ".csv"] = report::figure_csv(*f);
    }
  files["power.md"] = report::to_markdown(doc);
  files["power.html"] = report::to_html(doc);
  return files;
}

}  // namespace mirac
