#include "engine/judge/judgment_cache.hpp"

#include <array>
#include <cstdint>
#include <cstring>

#include "runtime/hash/hash.hpp"

namespace mirac {
namespace {

constexpr unsigned char kFormat = 1;  ///< the layout of a value below
constexpr std::size_t kPrefix = 16;    ///< bytes of the context digest in a key
constexpr std::size_t kAnswerBytes = 8;  ///< bytes of the answer's hash kept, to check it

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The first `bytes` bytes that `hex` spells; empty when it spells fewer.
std::string raw(const std::string& hex, std::size_t bytes) {
  std::string out;
  if (hex.size() < 2 * bytes) return out;
  for (std::size_t i = 0; i < bytes; ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return {};
    out += static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string hex_of(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 0xF];
  }
  return out;
}

// A scored judgment as kept: format, round, rounds, the answer's hash (its first bytes),
// the judge request's hash, the scores (NaN for N/A), and which criteria were met.
std::string encode(const std::string& answer_hash, const JudgeState& s) {
  const std::string answer = raw(answer_hash, kAnswerBytes), judge = raw(s.judge_hash, 32);
  if (answer.empty() || judge.size() != 32 || s.round > 255 || s.rounds > 255 || s.scores.scores.size() > 255 ||
      s.scores.criteria.size() > 65535)
    return {};
  std::string v;
  v += static_cast<char>(kFormat);
  v += static_cast<char>(s.round);
  v += static_cast<char>(s.rounds);
  v += answer;
  v += judge;
  v += static_cast<char>(s.scores.scores.size());
  for (double d : s.scores.scores) v.append(reinterpret_cast<const char*>(&d), sizeof d);
  const std::size_t n = s.scores.criteria.size();
  v += static_cast<char>(n >> 8);
  v += static_cast<char>(n & 0xFF);
  std::string bits((n + 7) / 8, '\0');
  for (std::size_t c = 0; c < n; ++c)
    if (s.scores.criteria[c].met) bits[c / 8] = static_cast<char>(bits[c / 8] | (1 << (c % 8)));
  return v + bits;
}

// The first kAnswerBytes bytes of a request's hash, as raw(hash, kAnswerBytes) spells them
// from its hex: the digest's first word, most significant byte first.
std::array<char, kAnswerBytes> answer_bytes(const HashDigest& digest) {
  static_assert(kAnswerBytes <= 8, "the check bytes come from the digest's first word");
  std::array<char, kAnswerBytes> out{};
  for (std::size_t i = 0; i < kAnswerBytes; ++i) out[i] = static_cast<char>((digest[0] >> (56 - 8 * i)) & 0xFF);
  return out;
}

bool decode(const std::string& v, const std::array<char, kAnswerBytes>& answer, JudgeState& s) {
  std::size_t at = 0;
  auto take = [&](std::size_t n) -> std::string_view {
    if (at + n > v.size()) return {};
    std::string_view out(v.data() + at, n);
    at += n;
    return out;
  };
  auto byte = [&] { return static_cast<unsigned char>(take(1).empty() ? 0 : v[at - 1]); };
  if (v.size() < 3 + kAnswerBytes + 32 + 1 || static_cast<unsigned char>(v[0]) != kFormat) return false;
  at = 1;
  const int round = byte();
  const int rounds = byte();
  if (take(kAnswerBytes) != std::string_view(answer.data(), answer.size())) return false;  // another answer: not this one's
  const std::string judge = hex_of(take(32));
  std::vector<double> scores(byte());
  for (double& d : scores) {
    const std::string_view b = take(sizeof d);
    if (b.size() != sizeof d) return false;
    std::memcpy(&d, b.data(), sizeof d);
  }
  const std::size_t high = byte(), low = byte();
  const std::size_t n = high << 8 | low;
  const std::string_view bits = take((n + 7) / 8);
  if (bits.size() != (n + 7) / 8 || at != v.size()) return false;
  s.kind = JudgeState::Kind::scored;
  s.round = round;
  s.rounds = rounds;
  s.judge_hash = judge;
  s.scores = JudgedScores{};  // no rationales: not kept
  s.scores.scores = std::move(scores);
  for (std::size_t c = 0; c < n; ++c)
    s.scores.criteria.push_back(CriterionGrade{(static_cast<unsigned char>(bits[c / 8]) >> (c % 8) & 1) != 0, ""});
  s.from_cache = true;
  return true;
}

}  // namespace

JudgmentCache::JudgmentCache(const JudgeBuilder& judge, const Plan& plan, const Store& store) : plan_(plan) {
  values_ = DerivedValues::open(store.path());
  if (!values_) return;
  Sha256 context;
  context.update("mirac judgments\n").update(judge.judge().name).update("\n").update(judge.request_identity());
  // The files' contents in the order they were read, not their paths: a spec named by
  // another path (relative or absolute, through a link) keeps its judgments.
  const SourceManager& sources = judge.sources();
  for (FileId f = 0; f < static_cast<FileId>(sources.size()); ++f) {
    const std::string& text = sources.text(f);
    context.update("\n").update(std::to_string(text.size())).update("\n").update(text);
  }
  prefix_ = raw(context.hex(), kPrefix);
  entries_.resize(plan.requests.size());
  for (auto& [k, value] : values_->with_prefix(prefix_)) {
    if (k.size() != kPrefix + 4) continue;
    const auto* b = reinterpret_cast<const unsigned char*>(k.data() + kPrefix);
    const std::size_t request = std::size_t{b[0]} << 24 | std::size_t{b[1]} << 16 | std::size_t{b[2]} << 8 | b[3];
    if (request < entries_.size()) entries_[request] = std::move(value);
  }
}

std::string JudgmentCache::key(std::size_t request) const {
  std::string k = prefix_;
  for (int shift = 24; shift >= 0; shift -= 8) k += static_cast<char>((request >> shift) & 0xFF);
  return k;
}

bool JudgmentCache::fill(std::size_t request, int max_repairs, JudgeState& state) const {
  if (request >= entries_.size() || entries_[request].empty()) return false;
  JudgeState kept;
  if (!decode(entries_[request], answer_bytes(plan_.requests[request].digest), kept) || kept.rounds > max_repairs) return false;
  state = std::move(kept);
  return true;
}

void JudgmentCache::save(const std::vector<std::size_t>& rows, const std::vector<JudgeState>& states) {
  if (!values_ || prefix_.empty() || entries_.size() > 0xFFFFFFFFu) return;
  std::vector<std::pair<std::string, std::string>> fresh;
  for (std::size_t i = 0; i < rows.size() && i < states.size(); ++i) {
    const JudgeState& s = states[i];
    if (s.kind != JudgeState::Kind::scored || s.from_cache || rows[i] >= entries_.size()) continue;
    std::string value = encode(plan_.requests[rows[i]].hash(), s);
    if (value.empty() || value == entries_[rows[i]]) continue;
    fresh.emplace_back(key(rows[i]), value);
    entries_[rows[i]] = std::move(value);
  }
  values_->put(fresh);
}

}  // namespace mirac
