// rewrite_command.hpp: `mirac rewrite`: the rewrites a spec's variants still lack, asked of
// their rewriter model through the scheduler and the run store, and written as a JSONL lock
// file for people to review before the spec reads it (interpreter/rewrite.hpp builds them).
#pragma once

#include <iosfwd>
#include <string>

#include "cli/run_command.hpp"

namespace mirac {

/// Uses o.spec, o.data, o.store, o.only (seed and the variant's factors) and o.limit.
/// `output`: the lock file to write; empty: <run dir>/<variant field>.lock.jsonl.
/// Exit 0 when every requested rewrite was written, 4 when some failed or were not sent.
int cmd_rewrite(const RunCommandOptions& o, const std::string& output, std::ostream& out, std::ostream& err);

}  // namespace mirac
