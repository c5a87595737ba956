// answer_record.hpp: the one place an answer record is made from what a server said, for
// every path that stores an answer (requests sent one by one, and batches' results), so
// that each stored answer has the same fields filled the same way: prices, the checks of
// what a server did not do, and every text that came from a server redacted of API keys.
#pragma once

#include <functional>
#include <string>

#include "runtime/http/http_client.hpp"
#include "runtime/model_call.hpp"
#include "runtime/providers/provider.hpp"
#include "runtime/providers/server_checks.hpp"
#include "runtime/scheduler/scheduler.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

/// Removes every API key from a text that came back from a server.
using Redactor = std::function<std::string(std::string)>;

/// The request an answer is for, and the final attempt's times.
struct AnswerSource {
  const ModelCall& call;
  const std::string& request_body;  ///< the bytes sent
  double started_at = 0, ended_at = 0;  ///< Unix seconds, of the final attempt
  int attempts = 0;
};

/// A done answer: the server's text and accounting, and what it cost.
AnswerRecord done_answer(const AnswerSource& source, const HttpResponse& response, const ParsedAnswer& answer,
                         double latency_s, double cost_usd, PromptTokenFloor& prompt_floor);

/// A failed answer: why (`cause`, `message`), and the server's last response if one came.
AnswerRecord failed_answer(const AnswerSource& source, const HttpResponse* response, const std::string& cause,
                           const std::string& message, const std::string& provider_request_id, double latency_s);

/// What the tokens cost at a price per million input and output tokens, times `factor`
/// (a batch API's share of the list price; 1 for requests sent one by one).
double answer_cost(const ParsedAnswer& answer, const ModelPrice& price, double factor = 1.0);

/// Redacts every field of an answer and its final attempt that came from a server: done
/// before either reaches the store or the journal.
void redact_answer(AnswerRecord& answer, AttemptRecord& attempt, const Redactor& redact);

}  // namespace mirac
