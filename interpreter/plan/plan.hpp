// plan.hpp: phase 3, the execution plan. Deterministic and offline: the prompts, the
// requests (prompt x model x arm, each with the hash of exactly what would be sent), the
// judge tasks, and the analyses to run.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/hash/hash.hpp"
#include "runtime/store/hash_set.hpp"

#include "interpreter/model/spec.hpp"
#include "runtime/model_call.hpp"

namespace mirac {

struct PromptRow {
  std::string id;
  std::string text;
  std::string seed;
  std::vector<int> levels;  ///< level index per factor of spec.factors
};

/// One request: a prompt asked of a model, in an arm, for one of its answers. Compact by
/// design (about 90 bytes): at ten times MIRA a plan holds 432,000 of them, and a whole
/// ModelCall each (some 400 bytes with its hash string) made the plan most of what
/// `mirac view` and `mirac status` held. The call itself is built when it is wanted.
struct RequestRow {
  std::size_t prompt = 0;
  int model = 0;
  int arm = 0;
  int answer = 0;  ///< which of the prompt's answers, 0 .. K-1 (as ModelCall::answer)
  /// The call of this model, arm and answer, shared by all their requests: everything
  /// but the prompt and the hash.
  std::shared_ptr<const ModelCall> target;
  SharedText user;      ///< the prompt's text, shared with the prompt's other requests
  HashDigest digest{};  ///< the request's hash, as 32 bytes

  /// The hash of the canonical request, 64 lower-case hex digits (ModelCall::hash).
  std::string hash() const { return digest_hex(digest); }
  /// The whole call, as the scheduler sends it.
  ModelCall call() const;
};

/// One answer to score: the judge's request is made once the answer exists.
struct JudgeTask {
  std::size_t request = 0;
  int judge = 0;
};

struct Plan {
  std::vector<PromptRow> prompts;
  std::vector<RequestRow> requests;
  std::vector<JudgeTask> judge_tasks;
};

/// Assembles every prompt (seed x design cell, in design order) and the requests.
/// Problems (a template naming an unknown field, duplicate prompt ids) go to `diags`.
Plan build_plan(const Spec& spec, Diagnostics& diags);

/// The provider's part of a call: its name, protocol, base URL, key variable and token
/// limit field (a provider's settings, as check resolved them).
void address_to(ModelCall& call, const Provider& provider);

/// The canonical request of a ModelCall (what its hash is taken over).
nlohmann::json canonical_request(const ModelCall& call);

/// Hashes calls that differ only in their user message (a judge's requests: one model, one
/// set of parameters, one system prompt). The rest of the canonical request is serialised
/// once, so a hash costs one escape of the message and one SHA-256: finding 43,200 stored
/// judgments no longer rebuilds 43,200 requests with their reply schema.
class UserMessageHasher {
 public:
  UserMessageHasher() = default;
  /// `call`'s own user message is ignored; `system_sha256` stands for its system prompt (null: none).
  UserMessageHasher(const ModelCall& call, const nlohmann::json& system_sha256);
  /// The hash `call` would have with `user` as its message.
  std::string hash(const std::string& user) const;

  /// Hashing in pieces, for messages that share a beginning: `begin(start)` is the state
  /// after the message's first part, `closing(end)` its last part as hashed, and
  /// `finish(begin(start), middle, closing(end))` equals `hash(start + middle + end)`.
  Sha256 begin(std::string_view message_start) const;
  static std::string closing(std::string_view message_end);
  static std::string finish(const Sha256& begun, std::string_view middle, const std::string& closing);
  /// The canonical request up to the user message: everything the hashed calls share.
  const std::string& head() const { return head_; }

 private:
  std::string head_;  ///< the canonical JSON up to the user message's value
  Sha256 head_state_;  ///< head_ hashed: a request's hash goes on from here
};

}  // namespace mirac
