// server_checks.hpp: what a server did not do with a request, as its answer shows it: an
// output-token limit it ignored (llama.cpp's server and Ollama read `max_tokens` only), a
// prompt it shortened to fit its context (a "context shift" that still answers 200). Such
// answers are stored, marked, counted and reported, never silently scored as complete.
#pragma once

#include <string>
#include <unordered_map>

#include "runtime/model_call.hpp"
#include "runtime/providers/provider.hpp"

namespace mirac {

/// Codes in AnswerRecord::warnings (space-separated).
inline constexpr const char* kLimitIgnored = "limit_ignored";        ///< more output tokens than the limit sent
inline constexpr const char* kPromptShortened = "prompt_shortened";  ///< fewer prompt tokens than the prompt has

/// A count of tokens that any tokenizer mirac knows of gives the prompt (system and user) at
/// least: a token never spans a space or punctuation, so each run of letters and digits
/// is one or more tokens; CJK text is counted at four characters a token, more than the
/// most compact Chinese tokenizers reach.
long long fewest_prompt_tokens(const ModelCall& call);

/// fewest_prompt_tokens over the calls of one run, counting each shared system prompt once:
/// counted per answer, a judge's instructions and an arm's system prompt (kilobytes each)
/// were a twentieth of a whole offline MIRA run. Calls are told apart by their system
/// prompt's address, so the calls must outlive the counter.
class PromptTokenFloor {
 public:
  long long operator()(const ModelCall& call);

 private:
  struct Counts {
    long long words = 0, cjk = 0;
  };
  std::unordered_map<const std::string*, Counts> systems_;
};

/// Prompts below this many tokens (by fewest_prompt_tokens) are not checked: chat templates
/// and server accounting differ too much there.
inline constexpr long long kShortestCheckedPrompt = 64;
/// A prompt reported at less than this share of fewest_prompt_tokens was shortened.
inline constexpr double kShortenedShare = 0.75;

/// The warning codes of one answer to `call`, space-separated; empty when none applies.
std::string server_warnings(const ModelCall& call, const ParsedAnswer& answer);
/// The same with the run's counter.
std::string server_warnings(const ModelCall& call, const ParsedAnswer& answer, PromptTokenFloor& floor);

/// True when `warnings` (AnswerRecord::warnings) holds `code`.
bool has_warning(const std::string& warnings, const char* code);

}  // namespace mirac
