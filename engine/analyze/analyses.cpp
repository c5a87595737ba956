// analyses.cpp: runs every `analysis` of the spec, by kind. One analysis that fails does
// not take the others down: its failure becomes its entry in results.json and an error at
// its declaration, and the rest are computed. The analyses that wait for people's scores
// are said once, together, with how to add the scores.
#include <exception>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/parts.hpp"

namespace mirac::analyze {

namespace {

// "a", "a and b", "a, b and c".
std::string listed(const std::vector<std::string>& names) {
  if (names.size() < 2) return names.empty() ? "" : names.front();
  std::vector<std::string> head(names.begin(), names.end() - 1);
  return fmt::format("{} and {}", fmt::join(head, ", "), names.back());
}

// Before anyone has scored answers, every analysis that compares a judge with people is
// empty: expected, and no fault of the run. Said once per rater, at the first such
// analysis, as a note rather than as a warning per analysis, with how to add the scores.
void say_missing_people_scores(const Context& ctx, const nlohmann::ordered_json& list) {
  std::map<std::string, std::vector<std::string>> waiting;  // rater -> analyses
  for (const auto& entry : list)
    if (entry.contains("missing_scores"))
      waiting[entry["missing_scores"].get<std::string>()].push_back(entry["name"].get<std::string>());
  for (const auto& [rater, names] : waiting) {
    SourceRange at;
    for (const auto& a : ctx.spec.analyses)
      if (a.name.name == names.front()) at = a.name.range;
    const std::string analyses = fmt::format("{} {} {}", names.size() == 1 ? "analysis" : "analyses", listed(names),
                                             names.size() == 1 ? "stays" : "stay");
    // No rows at all for the rater: the scores came from a file without them.
    if (!ctx.scores.rows_of(rater)) {
      ctx.diags.remark(at, fmt::format("the scores file has no people's scores (no rows of rater '{}'), so {} empty; "
                                       "the other results do not need them",
                                       rater, analyses));
      ctx.diags.note(fmt::format("to add them, give people's scores as rows whose 'rater' column is '{}' (as `mirac "
                                 "run` and `mirac analyze` write results/scores.csv after `mirac annotate import`), then "
                                 "`mirac analyze SPEC --scores FILE` again (docs/judging.md, \"Human annotation\")",
                                 rater));
      continue;
    }
    ctx.diags.remark(at, fmt::format("no people's scores yet (rater '{}'), so {} empty until people score answers; "
                                     "that is expected before annotation, and the other results do not need them",
                                     rater, analyses));
    ctx.diags.note("to add them: `mirac annotate sample SPEC` draws the answers to score (a page and a sheet), "
                   "`mirac annotate import SPEC SHEET --annotator NAME` stores each person's scores, and `mirac analyze "
                   "SPEC` fills these analyses; or pass a scores file that has them, `mirac analyze SPEC --scores FILE` "
                   "(docs/judging.md, \"Human annotation\")");
  }
}

}  // namespace

void add_analyses(const Context& ctx, Output& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& a : ctx.spec.analyses) {
    const std::string& kind = a.kind.name;
    // A failure must not leave half of the analysis's tables behind.
    const std::size_t tables = out.tables.size();
    auto fail = [&](const std::string& error, const std::string& message) {
      out.tables.resize(tables);
      ctx.diags.error(a.name.range, message);
      list.push_back({{"name", a.name.name}, {"kind", kind}, {"error", error}});
    };
    try {
      if (kind == "lmm") list.push_back(run_lmm(ctx, a, out));
      else if (kind == "clmm") list.push_back(run_clmm(ctx, a, out));
      else if (kind == "wilcoxon") list.push_back(run_wilcoxon(ctx, a, out));
      else if (kind == "paired") list.push_back(run_paired(ctx, a, out));
      else if (kind == "spearman") list.push_back(run_spearman(ctx, a, out));
      else if (kind == "agreement") list.push_back(run_agreement(ctx, a, out));
      else if (kind == "criteria") list.push_back(run_criteria(ctx, a, out));
      else if (kind == "corrected") list.push_back(run_corrected(ctx, a, out));
      else if (kind == "invariance") list.push_back(run_invariance(ctx, a, out));
    } catch (const std::invalid_argument& e) {
      // The statistics throw on inputs they cannot handle (e.g. every difference zero);
      // that is a property of the data, reported at the analysis (skipped on a subset).
      out.tables.resize(tables);
      nlohmann::ordered_json entry{{"name", a.name.name}, {"kind", kind}};
      report_unsupported(ctx, a, e.what(), entry);
      list.push_back(std::move(entry));
    } catch (const std::exception& e) {
      // Anything else is a fault of mirac's, not of the data; it is still this analysis's
      // alone, so it is reported as such and the others go on.
      fail(fmt::format("internal error: {}", e.what()),
           fmt::format("analysis {} failed: internal error: {} (please report it with the spec and scores)", a.name.name,
                       e.what()));
    } catch (...) {
      fail("internal error: unknown exception",
           fmt::format("analysis {} failed: internal error: unknown exception (please report it with the spec and "
                       "scores)", a.name.name));
    }
  }
  say_missing_people_scores(ctx, list);
  out.json["analyses"] = std::move(list);
}

}  // namespace mirac::analyze
