#include "engine/rewrite/rewrite.hpp"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "engine/selection.hpp"
#include "engine/send/send.hpp"
#include "runtime/offline/offline_model.hpp"
#include "interpreter/model/data.hpp"

namespace mirac {

namespace {

std::string record_line(const nlohmann::ordered_json& j) {
  // UTF-8 as is, so that reviewers read the rewrites in their own script.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The identity of a lock record: its seed and its level of each factor of `by`; empty when
// the record lacks one of them.
std::string record_key(const Spec& spec, const Variant& v, const nlohmann::ordered_json& fields) {
  auto seed = fields.find("seed");
  if (seed == fields.end()) return "";
  std::string key = json_text(*seed);
  for (int f : v.by) {
    auto level = fields.find(spec.factors[static_cast<std::size_t>(f)].name);
    if (level == fields.end()) return "";
    key += "\x1f" + json_text(*level);
  }
  return key;
}

// The lock file's new content: the records already in `path` (kept as written, except those
// rewritten now) followed by `fresh`. False, with the file's problems in `problem`, if it exists
// but is not a JSONL file: it is then left alone.
bool merged_lock(const std::filesystem::path& path, const Spec& spec, const Variant& v,
                 const std::vector<nlohmann::ordered_json>& fresh, std::string& content, std::size_t& kept,
                 std::string& problem) {
  std::set<std::string> replaced;
  for (const auto& r : fresh) replaced.insert(record_key(spec, v, r));
  kept = 0;
  content.clear();
  if (std::filesystem::exists(path)) {
    SourceManager sources;
    Diagnostics diags;
    auto table = read_table(path, path.string(), "jsonl", SourceRange{}, sources, diags);
    if (!table || diags.has_errors()) {
      std::ostringstream printed;
      diags.print(printed, sources);
      problem = printed.str() +
                fmt::format("mirac rewrite: {} exists and is not a lock file; not overwritten (use -o)", path.string());
      return false;
    }
    const std::string& text = sources.text(table->file);
    for (const auto& row : table->rows) {
      if (replaced.count(record_key(spec, v, row.fields))) continue;
      std::string line = text.substr(row.line_begin, row.line_end - row.line_begin);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      content += line + "\n";
      ++kept;
    }
  }
  for (const auto& r : fresh) content += record_line(r) + "\n";
  return true;
}

// Writes through a temporary file, so a crash never leaves half a lock file.
bool write_file(const std::filesystem::path& path, const std::string& content, std::string& error) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << content;
    if (!f.flush()) {
      error = fmt::format("{}: error: cannot write lock file", path.string());
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) error = fmt::format("{}: error: cannot write lock file ({})", path.string(), ec.message());
  return !ec;
}

}  // namespace

Outcome plan_rewrites(const AuditOptions& options, Rewrites& rewrites) {
  auto c = compile_for_rewrite(options.spec, check_options(options), rewrites.missing_locks);
  if (c->ok()) rewrites.requests = build_rewrite_requests(c->spec, c->diags);
  rewrites.audit = adopt_compilation(options, std::move(c));
  if (!rewrites.audit.ok()) return Outcome::fail(kSpecError);
  const Spec& spec = rewrites.audit.spec();

  // --only: seeds and the levels of the variants' factors (the other factors do not vary rewrites).
  OnlyFilter only;
  std::string error;
  if (!parse_only(options.only, spec, false, only, error)) return Outcome::fail(kUsageError, "mirac: " + error);
  for (const auto& [key, values] : only.values) {
    bool varies = key == "seed";
    for (const auto& v : spec.variants)
      for (int f : v.by) varies = varies || spec.factors[static_cast<std::size_t>(f)].name == key;
    if (!varies)
      return Outcome::fail(kUsageError, fmt::format("mirac: --only: factor '{}' does not vary any variant's rewrites", key));
  }
  std::map<std::size_t, std::vector<const RewriteRequest*>> by_variant;
  for (const auto& r : rewrites.requests) {
    bool keep = only.keeps("seed", r.seed);
    for (int f : spec.variants[r.variant].by) {
      const Factor& factor = spec.factors[static_cast<std::size_t>(f)];
      keep = keep && only.keeps(factor.name, factor.levels[static_cast<std::size_t>(r.levels[static_cast<std::size_t>(f)])].name.name);
    }
    if (!keep) continue;
    if (options.limit > 0 && rewrites.calls.size() >= options.limit) break;
    by_variant[r.variant].push_back(&r);
    rewrites.calls.push_back(r.call);
  }
  for (auto& [variant, requests] : by_variant) rewrites.batches.push_back({variant, std::move(requests)});
  return {};
}

Outcome check_lock_output(const Rewrites& rewrites, const std::string& output) {
  if (output.empty() || rewrites.batches.size() <= 1) return {};
  return Outcome::fail(kUsageError, "mirac rewrite: several variants need rewrites and -o names one lock file; leave "
                                    "-o out (each variant gets <run dir>/<field>.lock.jsonl) or narrow with --only");
}

RunSummary send_rewrites(const Rewrites& rewrites, const std::atomic<bool>& cancel, const RunHooks& hooks) {
  const Audit& audit = rewrites.audit;
  SchedulerOptions options = scheduler_options(audit.spec(), audit.options);
  // The offline provider cannot rewrite, and its heuristic answers are English or Chinese
  // whatever the variant's language: a rewriter on it gives back the text it was sent (the
  // seed's text in the level's language), so a pilot's lock reads in the right language.
  options.offline_replies = [](const OfflineRequest& request) -> std::optional<std::string> { return request.user; };
  return run_plan(rewrites.calls, audit.run_dir, options, cancel, hooks);
}

Outcome write_locks(const Rewrites& rewrites, const std::string& output, std::vector<LockWrite>& writes) {
  const Audit& audit = rewrites.audit;
  const Spec& spec = audit.spec();
  if (Outcome checked = check_lock_output(rewrites, output); !checked.ok()) return checked;
  Outcome opened;
  auto store = open_store(audit, opened);
  if (!store) return opened;
  for (const VariantBatch& batch : rewrites.batches) {
    const Variant& v = spec.variants[batch.variant];
    LockWrite& w = writes.emplace_back();
    w.field = v.field;
    std::vector<nlohmann::ordered_json> fresh;
    for (const RewriteRequest* r : batch.requests) {
      std::optional<AnswerRecord> a = store->answer(r->call.hash);
      if (!a) {
        w.problems.push_back(fmt::format("seed '{}' cell {}: not sent", r->seed, r->cell));
      } else if (a->status != "done") {
        w.problems.push_back(fmt::format("seed '{}' cell {}: {}: {}", r->seed, r->cell, a->cause, a->message));
      } else {
        // Surrounding white space is the model's formatting, not part of the question.
        const auto first = a->text.find_first_not_of(" \t\r\n");
        const auto last = a->text.find_last_not_of(" \t\r\n");
        std::string text = first == std::string::npos ? "" : a->text.substr(first, last - first + 1);
        if (text.empty()) {
          w.problems.push_back(fmt::format("seed '{}' cell {}: the answer is empty", r->seed, r->cell));
          continue;
        }
        w.truncated += a->truncated;
        fresh.push_back(lock_record(spec, *r, text));
      }
    }
    w.lock = output.empty() ? audit.run_dir / (v.field + ".lock.jsonl") : std::filesystem::path(output);
    if (fresh.empty()) continue;
    std::string content, problem;
    if (!merged_lock(w.lock, spec, v, fresh, content, w.kept, problem)) {
      writes.pop_back();
      return Outcome::fail(kSpecError, problem);
    }
    if (!write_file(w.lock, content, problem)) {
      writes.pop_back();
      return Outcome::fail(kUsageError, problem);
    }
    w.written = fresh.size();
  }
  return {};
}

}  // namespace mirac
