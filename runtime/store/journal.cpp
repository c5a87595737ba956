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
namespace {

using Json = nlohmann::json;

Json to_json(const JournalEntry& e) {
  const AnswerRecord& a = e.answer;
  const AttemptRecord& t = e.attempt;
  return Json{{"answer",
               {{"hash", a.hash}, {"status", a.status}, {"provider", a.provider}, {"model", a.model},
                {"request_body", a.request_body}, {"response_body", a.response_body},
                {"http_status", a.http_status}, {"text", a.text}, {"finish_reason", a.finish_reason},
                {"truncated", a.truncated}, {"returned_model", a.returned_model},
                {"provider_request_id", a.provider_request_id}, {"system_fingerprint", a.system_fingerprint},
                {"input_tokens", a.input_tokens}, {"output_tokens", a.output_tokens}, {"latency_s", a.latency_s},
                {"started_at", a.started_at}, {"ended_at", a.ended_at}, {"cost_usd", a.cost_usd},
                {"cause", a.cause}, {"message", a.message}, {"attempts", a.attempts}}},
              {"attempt",
               {{"hash", t.hash}, {"attempt", t.attempt}, {"started_at", t.started_at}, {"ended_at", t.ended_at},
                {"http_status", t.http_status}, {"outcome", t.outcome}, {"cause", t.cause},
                {"message", t.message}, {"provider_request_id", t.provider_request_id},
                {"retry_delay_s", t.retry_delay_s}, {"response_body", t.response_body}}}};
}

JournalEntry from_json(const Json& j) {
  JournalEntry e;
  const Json& a = j.at("answer");
  AnswerRecord& r = e.answer;
  a.at("hash").get_to(r.hash);
  a.at("status").get_to(r.status);
  a.at("provider").get_to(r.provider);
  a.at("model").get_to(r.model);
  a.at("request_body").get_to(r.request_body);
  a.at("response_body").get_to(r.response_body);
  a.at("http_status").get_to(r.http_status);
  a.at("text").get_to(r.text);
  a.at("finish_reason").get_to(r.finish_reason);
  a.at("truncated").get_to(r.truncated);
  a.at("returned_model").get_to(r.returned_model);
  a.at("provider_request_id").get_to(r.provider_request_id);
  a.at("system_fingerprint").get_to(r.system_fingerprint);
  a.at("input_tokens").get_to(r.input_tokens);
  a.at("output_tokens").get_to(r.output_tokens);
  a.at("latency_s").get_to(r.latency_s);
  a.at("started_at").get_to(r.started_at);
  a.at("ended_at").get_to(r.ended_at);
  a.at("cost_usd").get_to(r.cost_usd);
  a.at("cause").get_to(r.cause);
  a.at("message").get_to(r.message);
  a.at("attempts").get_to(r.attempts);
  const Json& t = j.at("attempt");
  AttemptRecord& m = e.attempt;
  t.at("hash").get_to(m.hash);
  t.at("attempt").get_to(m.attempt);
  t.at("started_at").get_to(m.started_at);
  t.at("ended_at").get_to(m.ended_at);
  t.at("http_status").get_to(m.http_status);
  t.at("outcome").get_to(m.outcome);
  t.at("cause").get_to(m.cause);
  t.at("message").get_to(m.message);
  t.at("provider_request_id").get_to(m.provider_request_id);
  t.at("retry_delay_s").get_to(m.retry_delay_s);
  t.at("response_body").get_to(m.response_body);
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
