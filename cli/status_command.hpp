// status_command.hpp: `mirac status`: how much of a spec's plan is done, failed and pending
// in the run store, in all, per model and arm, and per level of every factor; where the
// stored answers stand with each judge; and the `--only key=value,...` filter it shares
// with other commands.
#pragma once

#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/run_command.hpp"

namespace mirac {

/// `--only language=zh,model=gpt`: values per key; several values of one key are alternatives.
struct OnlyFilter {
  std::map<std::string, std::set<std::string>> values;
  bool keeps(const std::string& key, const std::string& value) const;
  bool empty() const { return values.empty(); }
};

/// Parses `text` for `spec`. Keys are the spec's factors, `seed`, and `model` and `arm` when
/// `with_model_arm`; values must name a level, model or arm of the spec (seeds are not
/// checked: a filter may name a seed that a later data file adds). False with a message.
bool parse_only(const std::string& text, const Spec& spec, bool with_model_arm, OnlyFilter& filter,
                std::string& error);

/// Plain text (`json` false) or JSON; see docs/cli.md. Uses o.spec, o.data, o.store, o.only,
/// o.offline and o.repairs (judge replies still unusable after that many repairs are unusable).
int cmd_status(const RunCommandOptions& o, bool json, std::ostream& out, std::ostream& err);
/// The text form (the declaration `mirac status` always had).
int cmd_status(const RunCommandOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mirac
