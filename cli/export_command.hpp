// export_command.hpp: `mirac export` and `mirac import`: the stored answers of a spec's
// plan, or one judge's scores of them, out of the run store (JSONL or CSV), and answers
// produced elsewhere into it.
#pragma once

#include <iosfwd>
#include <string>

#include "cli/run_command.hpp"

namespace mirac {

/// `mirac export SPEC responses|scores [-o FILE] [--format jsonl|csv] [--judge NAME]`: one
/// row per stored answer of the plan, in plan order; for `scores`, where that answer stands
/// with the judge `judge` (empty: the spec's first) and its scores. `output` empty or "-":
/// `out`. Uses o.spec, o.data, o.store, o.offline, o.repairs.
int cmd_export(const RunCommandOptions& o, const std::string& what, const std::string& output,
               const std::string& format, const std::string& judge, std::ostream& out, std::ostream& err);
/// The same without `--judge`.
int cmd_export(const RunCommandOptions& o, const std::string& what, const std::string& output,
               const std::string& format, std::ostream& out, std::ostream& err);

/// `mirac import SPEC responses FILE` (import_command.cpp): JSONL answers, in mirac's format
/// or the MIRA authors' judge input, matched to the plan's requests and stored as done
/// answers. All rows are checked first; nothing is stored if any is invalid.
int cmd_import(const RunCommandOptions& o, const std::string& what, const std::string& file, std::ostream& out,
               std::ostream& err);

}  // namespace mirac
