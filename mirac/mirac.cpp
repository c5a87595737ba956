// mirac.cpp: the embedding API (mirac.hpp), each call a step of the driver.
#include "mirac/mirac.hpp"

#include <sstream>

namespace mirac {

namespace {

// Keeps what the driver reports for the RunResult, and passes everything on to the
// caller's own events.
class Recorder final : public AuditEvents {
 public:
  Recorder(AuditEvents& caller, RunResult& result) : caller_(caller), result_(result) {}
  void compiled(const Audit& audit) override { caller_.compiled(audit); }
  void selected(const Audit& audit, const Selection& selection) override { caller_.selected(audit, selection); }
  RunHooks hooks(const std::string& phase) override { return caller_.hooks(phase); }
  void answered(const RunSummary& summary, const AnswerMarks& marks) override {
    result_.answers = summary;
    caller_.answered(summary, marks);
  }
  void judged(const Judge& judge, const JudgePhaseSummary& summary) override {
    result_.judging.push_back(summary);
    caller_.judged(judge, summary);
  }
  void analyzed(const Audit& audit, const Analysis& analysis) override {
    result_.analysis = analysis;
    caller_.analyzed(audit, analysis);
  }
  void reported(const Audit& audit, const Analysis& analysis) override {
    result_.results_json = analysis.out_dir / "results.json";
    caller_.reported(audit, analysis);
  }
  // RunResult carries the analysis itself: always compute it.
  bool reuses_results() const override { return false; }

 private:
  AuditEvents& caller_;
  RunResult& result_;
};

}  // namespace

const char* library_version() { return MIRAC_VERSION; }

Audit compile_spec(const std::filesystem::path& path, AuditOptions options) {
  options.spec = path;
  return open_audit(options);
}

Audit compile_spec_text(const SpecText& source, AuditOptions options) {
  options.spec = source.base_dir.empty() ? std::filesystem::path(source.name) : source.base_dir / source.name;
  return adopt_compilation(options, compile_text(options.spec, source.text, check_options(options)));
}

std::string diagnostics_text(const Audit& audit) {
  if (!audit.compilation) return "";
  std::ostringstream out;
  audit.diagnostics().print(out, audit.sources());
  return out.str();
}

std::string diagnostics_json(const Audit& audit) {
  return audit.compilation ? audit.diagnostics().json(audit.sources()) : "[]";
}

RunResult run_compiled(Audit& audit, const RunControls& controls) {
  RunResult result;
  AuditEvents quiet;
  Recorder recorder(controls.events ? *controls.events : quiet, result);
  const std::atomic<bool> never{false};
  // The transport rides in the options only for this call: the caller's client may be gone
  // by the time the audit is used again.
  HttpClient* const before = audit.options.http;
  if (controls.http) audit.options.http = controls.http;
  result.outcome = run_audit(audit, controls.cancel ? *controls.cancel : never, recorder);
  audit.options.http = before;
  return result;
}

}  // namespace mirac
