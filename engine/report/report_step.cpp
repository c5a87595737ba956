#include "engine/report/report_step.hpp"

#include "engine/report/report.hpp"

namespace mirac {

Outcome write_report(const Audit& audit, const Analysis& analysis) {
  if (std::string problem = analyze::write_output(analysis.output, analysis.out_dir); !problem.empty())
    return Outcome::fail(kUsageError, "mirac analyze: " + problem);
  const report::ReportFiles reports = report::render_reports(audit.spec(), analysis.output.json);
  if (std::string problem = report::write_reports(reports, analysis.out_dir); !problem.empty())
    return Outcome::fail(kUsageError, "mirac analyze: " + problem);
  return {};
}

}  // namespace mirac
