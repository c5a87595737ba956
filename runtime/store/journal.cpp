// journal.cpp: the spill file as JSON lines. Plain POSIX writes, so a short write or a
// failed fsync is seen and reported rather than buffered away.
#include "runtime/store/journal.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mirac {

using Json = nlohmann::json;

// A journal line holds both records field by field, by name: a field added to either
// record belongs in its list here too, or the journal would drop it. Fields missing from
// a line (written by an older mirac) keep their defaults.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AttemptRecord, hash, attempt, started_at, ended_at, http_status, outcome, cause,
                                   message, provider_request_id, retry_delay_s, response_body)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AnswerRecord, hash, status, provider, model, request_body, quotes, response_body,
                                   http_status, text, finish_reason, truncated, returned_model, provider_request_id,
                                   system_fingerprint, input_tokens, output_tokens, latency_s, started_at, ended_at,
                                   cost_usd, cause, message, attempts, warnings)

namespace {

Json to_json(const JournalEntry& e) { return Json{{"answer", e.answer}, {"attempt", e.attempt}}; }

JournalEntry from_json(const Json& j) {
  JournalEntry e;
  j.at("answer").get_to(e.answer);
  j.at("attempt").get_to(e.attempt);
  return e;
}

}  // namespace

std::filesystem::path journal_path(const std::filesystem::path& run_dir) { return run_dir / "unsaved-answers.jsonl"; }

bool append_journal(const std::filesystem::path& file, const std::vector<JournalEntry>& entries, std::string& error) {
  std::string bytes;
  for (const auto& e : entries) bytes += to_json(e).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = fmt::format("cannot open {}: {}", file.string(), std::strerror(errno));
    return false;
  }
  std::size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = fmt::format("cannot write {}: {}", file.string(), std::strerror(n < 0 ? errno : ENOSPC));
      // Whole lines or nothing: a partial line would only be skipped by the reader.
      if (::ftruncate(fd, ::lseek(fd, 0, SEEK_END) - static_cast<off_t>(written)) != 0) {
      }
      ::close(fd);
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  if (!synced) error = fmt::format("cannot sync {}: {}", file.string(), std::strerror(errno));
  ::close(fd);
  return synced;
}

std::vector<JournalEntry> read_journal(const std::filesystem::path& file, std::size_t& unreadable) {
  unreadable = 0;
  std::vector<JournalEntry> out;
  std::ifstream in(file, std::ios::binary);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    try {
      out.push_back(from_json(Json::parse(line)));
    } catch (const std::exception&) {
      ++unreadable;
    }
  }
  return out;
}

}  // namespace mirac
