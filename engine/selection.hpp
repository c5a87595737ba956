// selection.hpp: which of the plan's requests a command works on: `--only key=value,...`
// over factors, model, arm and seed, `--sample N` and `--limit N`. Shared by the commands
// that plan (check, plan, run, status, rewrite) and those that read a run (analyze, view,
// export, annotate).
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/session.hpp"

namespace mirac {

/// `--only language=zh,model=gpt`: values per key; several values of one key are alternatives.
struct OnlyFilter {
  std::map<std::string, std::set<std::string>> values;
  bool keeps(const std::string& key, const std::string& value) const;
  bool empty() const { return values.empty(); }
};

/// The `key=value` items of an `--only` text, in order; false with a message when an item
/// has no '='. The one reading of `--only`: parse_only checks the keys and values it gives.
bool split_only(const std::string& text, std::vector<std::pair<std::string, std::string>>& items, std::string& error);

/// Parses `text` for `spec`. Keys are the spec's factors, `seed`, and `model` and `arm` when
/// `with_model_arm`; values must name a level, model or arm of the spec (seeds are not
/// checked: a filter may name a seed that a later data file adds). False with a message.
bool parse_only(const std::string& text, const Spec& spec, bool with_model_arm, OnlyFilter& filter,
                std::string& error);

/// The selected requests, in plan order.
struct Selection {
  std::vector<std::size_t> rows;  ///< indices into plan.requests
};

/// The requests `audit.options.only` keeps; with `sample`, that many of them spread evenly
/// over the strata of `stratify` (factors, model, arm, seed, seed.FIELD), a seeded random
/// pick within each, so the same options always give the same pilot; at most `limit` of
/// them (0: all). A filter or key naming nothing of the spec is a usage error.
Outcome select_requests(const Audit& audit, Selection& selection);

/// open_audit for a command that selects requests (check, plan, run, status): with `--only
/// seed=...` only those seeds' data is checked and the seeds without data are not planned (a
/// pilot, whose data may cover no other seed); the analyses are checked on the plan (errors,
/// or warnings when the plan is a pilot's), and, with
/// `check_selected`, on the selected requests too: what only the selection cannot feed is a
/// warning, as the pilot runs without that result. A selection that does not parse is left
/// for select_requests to report.
Audit open_selected_audit(const AuditOptions& options, bool check_selected = true);

/// `plan` cut down to `rows` (indices into plan.requests, in plan order): those requests,
/// their prompts and judge tasks, renumbered. What `mirac plan` counts under a selection and
/// what the commands that read a run work on.
Plan selected_plan(const Plan& plan, const std::vector<std::size_t>& rows);

/// open_selected_audit for a command that reads a run (analyze, view, export, annotate): with
/// a selection, the audit's plan holds the selected requests alone, so the command analyses,
/// shows, writes or samples those and no other. With `options.check_analyses` (analyze), the
/// analyses are checked on the selection too. A selection that names nothing of the spec
/// fails `outcome`.
Audit open_narrowed_audit(const AuditOptions& options, Outcome& outcome);

/// How the options select requests ("--only seed=1,2 --sample 40"); empty without a selection.
std::string selection_said(const AuditOptions& options);

/// `--sample`: keeps `audit.options.sample` of `rows` (plan indices, in plan order), spread
/// over the strata of `audit.options.stratify`; rows stay in plan order.
Outcome sample_strata(const Audit& audit, std::vector<std::size_t>& rows);

// Counting each distinct request once per group. Identical requests (two arms that send
// the same thing, levels that do not change a prompt) share one answer, so status and the
// run's summary count a hash once in each group it falls in. Sets of every hash per group
// (300,000 insertions for a MIRA status) did that; most hashes occur once, and those need
// no bookkeeping at all.

/// Which of `rows` (indices into plan.requests) share their request's hash with another.
class HashOccurrences {
 public:
  HashOccurrences(const Plan& plan, const std::vector<std::size_t>& rows);
  /// The position in `rows` of the first row with the hash of position `i`.
  std::size_t first(std::size_t i) const { return first_[i]; }
  bool repeated(std::size_t i) const { return repeated_[i] != 0; }

 private:
  std::vector<std::size_t> first_;
  std::vector<char> repeated_;
};

/// One group's record of the hashes it has counted.
class OncePerGroup {
 public:
  /// Whether position `i` is the first of its hash this group sees.
  bool first_time(const HashOccurrences& h, std::size_t i) {
    return !h.repeated(i) || seen_.insert(h.first(i)).second;
  }

 private:
  std::unordered_set<std::size_t> seen_;
};

}  // namespace mirac
