#include "cli/rewrite_command.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/status_command.hpp"
#include "interpreter/data.hpp"
#include "interpreter/rewrite.hpp"
#include "runtime/scheduler/run_plan.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

namespace {

constexpr int kOk = 0, kSpecError = 1, kUsageError = 2, kRunError = 4;

// A signal handler can only reach a global.
std::atomic<bool> g_cancel_rewrite{false};
extern "C" void on_sigint_rewrite(int) { g_cancel_rewrite.store(true); }

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
// rewritten now) followed by `fresh`. False, with the file's problems on `err`, if it exists
// but is not a JSONL file: it is then left alone.
bool merged_lock(const std::filesystem::path& path, const Spec& spec, const Variant& v,
                 const std::vector<nlohmann::ordered_json>& fresh, std::string& content, std::size_t& kept,
                 std::ostream& err) {
  std::set<std::string> replaced;
  for (const auto& r : fresh) replaced.insert(record_key(spec, v, r));
  kept = 0;
  content.clear();
  if (std::filesystem::exists(path)) {
    SourceManager sources;
    Diagnostics diags;
    auto table = read_table(path, path.string(), "jsonl", SourceRange{}, sources, diags);
    if (!table || diags.has_errors()) {
      diags.print(err, sources);
      err << fmt::format("mirac rewrite: {} exists and is not a lock file; not overwritten (use -o)\n", path.string());
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

int cmd_rewrite(const RunCommandOptions& o, const std::string& output, std::ostream& out, std::ostream& err) {
  CheckOptions options;
  if (!o.data.empty()) options.data_root = o.data;
  if (const char* env = std::getenv("MIRAC_DATA"); env && *env) options.env_data_root = env;
  std::vector<std::string> missing_locks;
  auto c = compile_for_rewrite(o.spec, options, missing_locks);
  std::vector<RewriteRequest> requests;
  if (c->ok()) requests = build_rewrite_requests(c->spec, c->diags);
  if (!c->diags.all().empty()) c->diags.print(err, c->sources);
  if (!c->ok()) return kSpecError;
  const Spec& spec = c->spec;

  // --only: seeds and the levels of the variants' factors (the other factors do not vary rewrites).
  OnlyFilter only;
  std::string error;
  if (!parse_only(o.only, spec, false, only, error)) {
    err << "mirac: " << error << '\n';
    return kUsageError;
  }
  for (const auto& [key, values] : only.values) {
    bool varies = key == "seed";
    for (const auto& v : spec.variants)
      for (int f : v.by) varies = varies || spec.factors[static_cast<std::size_t>(f)].name == key;
    if (!varies) {
      err << fmt::format("mirac: --only: factor '{}' does not vary any variant's rewrites\n", key);
      return kUsageError;
    }
  }
  std::map<std::size_t, std::vector<const RewriteRequest*>> by_variant;
  std::vector<ModelCall> calls;
  for (const auto& r : requests) {
    bool keep = only.keeps("seed", r.seed);
    for (int f : spec.variants[r.variant].by) {
      const Factor& factor = spec.factors[static_cast<std::size_t>(f)];
      keep = keep && only.keeps(factor.name, factor.levels[static_cast<std::size_t>(r.levels[static_cast<std::size_t>(f)])].name.name);
    }
    if (!keep) continue;
    if (o.limit > 0 && calls.size() >= o.limit) break;
    by_variant[r.variant].push_back(&r);
    calls.push_back(r.call);
  }
  for (const auto& path : missing_locks) out << fmt::format("lock file '{}' does not exist yet\n", path);
  if (calls.empty()) {
    out << fmt::format("rewrite {}: nothing to rewrite: {}\n", spec.name,
                       o.only.empty() ? "every seed has a text in every cell" : "every selected seed and cell has a text");
    return kOk;
  }
  if (!output.empty() && by_variant.size() > 1) {
    err << "mirac rewrite: several variants need rewrites and -o names one lock file; leave -o out (each variant "
           "gets <run dir>/<field>.lock.jsonl) or narrow with --only\n";
    return kUsageError;
  }

  const std::filesystem::path dir = run_dir(spec, o);
  for (const auto& [vi, rows] : by_variant) {
    const Variant& v = spec.variants[vi];
    out << fmt::format("rewrite {}: {} texts of '{}' to request from {}(\"{}\"), store {}\n", spec.name, rows.size(),
                       v.field, v.rewriter->preset.name, v.rewriter->model.value, dir.string());
  }
  g_cancel_rewrite.store(false);
  auto previous = std::signal(SIGINT, on_sigint_rewrite);
  const bool terminal = isatty(STDERR_FILENO) != 0;
  RunHooks hooks;
  hooks.on_progress = [&](const Progress& p) {
    if (terminal) err << '\r' << format_progress_bar(p, 30) << (p.final ? "\n" : "") << std::flush;
    else if (p.final) err << format_progress(p) << '\n';
  };
  hooks.log = [&](const std::string& line) { err << (terminal ? "\n" : "") << line << '\n'; };
  RunSummary summary = run_plan(calls, dir, scheduler_options(spec, o), g_cancel_rewrite, hooks);
  std::signal(SIGINT, previous);
  out << format_summary(summary);
  if (!summary.fatal_error.empty() && summary.stored == 0 && summary.skipped == 0) return kRunError;

  auto store = Store::open(dir, error);
  if (!store) {
    err << "mirac: " << error << '\n';
    return kRunError;
  }
  bool complete = true;
  for (const auto& [vi, rows] : by_variant) {
    const Variant& v = spec.variants[vi];
    std::vector<nlohmann::ordered_json> fresh;
    std::vector<std::string> problems;
    std::size_t truncated = 0;
    for (const RewriteRequest* r : rows) {
      std::optional<AnswerRecord> a = store->answer(r->call.hash);
      if (!a) {
        problems.push_back(fmt::format("seed '{}' cell {}: not sent", r->seed, r->cell));
      } else if (a->status != "done") {
        problems.push_back(fmt::format("seed '{}' cell {}: {}: {}", r->seed, r->cell, a->cause, a->message));
      } else {
        // Surrounding white space is the model's formatting, not part of the question.
        const auto first = a->text.find_first_not_of(" \t\r\n");
        const auto last = a->text.find_last_not_of(" \t\r\n");
        std::string text = first == std::string::npos ? "" : a->text.substr(first, last - first + 1);
        if (text.empty()) {
          problems.push_back(fmt::format("seed '{}' cell {}: the answer is empty", r->seed, r->cell));
          continue;
        }
        truncated += a->truncated;
        fresh.push_back(lock_record(spec, *r, text));
      }
    }
    const std::filesystem::path lock = output.empty() ? dir / (v.field + ".lock.jsonl") : std::filesystem::path(output);
    std::size_t kept = 0;
    std::string content;
    if (!fresh.empty()) {
      if (!merged_lock(lock, spec, v, fresh, content, kept, err)) return kSpecError;
      if (!write_file(lock, content, error)) {
        err << error << '\n';
        return kUsageError;
      }
      out << fmt::format("wrote {} rewrites of '{}' to {}{}\n", fresh.size(), v.field, lock.string(),
                         kept ? fmt::format(" (and kept its {} earlier records)", kept) : "");
      if (truncated > 0)
        out << fmt::format("warning: {} of them were cut by the token limit; raise max_tokens in the rewriter's settings "
                           "or edit them\n", truncated);
    }
    if (!problems.empty()) {
      complete = false;
      out << fmt::format("{} rewrites of '{}' failed or were not sent (run again to retry):\n", problems.size(), v.field);
      for (std::size_t i = 0; i < problems.size() && i < 10; ++i) out << "  " << problems[i] << '\n';
      if (problems.size() > 10) out << fmt::format("  ... and {} more\n", problems.size() - 10);
    }
    if (!fresh.empty())
      out << fmt::format("review {}, then read it in the spec: lock jsonl(\"{}\") in variant '{}' (a path relative to "
                         "the data root)\n", lock.string(), lock.filename().string(), v.field);
  }
  return complete ? kOk : kRunError;
}

}  // namespace mirac
