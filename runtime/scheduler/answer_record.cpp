// answer_record.cpp: answer records from what a server said (answer_record.hpp).
#include "runtime/scheduler/answer_record.hpp"

namespace mirac {
namespace {

AnswerRecord from_source(const AnswerSource& source) {
  AnswerRecord rec;
  rec.hash = source.call.hash;
  rec.provider = source.call.provider;
  rec.model = source.call.model;
  rec.request_body = source.request_body;
  rec.quotes = source.call.quotes;
  rec.started_at = source.started_at;
  rec.ended_at = source.ended_at;
  rec.attempts = source.attempts;
  return rec;
}

}  // namespace

double answer_cost(const ParsedAnswer& answer, const ModelPrice& price, double factor) {
  return factor *
         (static_cast<double>(answer.input_tokens) * price.input_per_mtok +
          static_cast<double>(answer.output_tokens) * price.output_per_mtok) / 1e6;
}

AnswerRecord done_answer(const AnswerSource& source, const HttpResponse& response, const ParsedAnswer& answer,
                         double latency_s, double cost_usd, PromptTokenFloor& prompt_floor) {
  AnswerRecord rec = from_source(source);
  rec.status = "done";
  rec.response_body = response.body;
  rec.http_status = response.status;
  rec.text = answer.text;
  rec.finish_reason = answer.finish_reason;
  rec.truncated = answer.truncated;
  rec.warnings = server_warnings(source.call, answer, prompt_floor);
  rec.returned_model = answer.returned_model;
  rec.provider_request_id = answer.request_id;
  rec.system_fingerprint = answer.system_fingerprint;
  rec.input_tokens = answer.input_tokens;
  rec.output_tokens = answer.output_tokens;
  rec.latency_s = latency_s;
  rec.cost_usd = cost_usd;
  rec.cause = "ok";
  return rec;
}

AnswerRecord failed_answer(const AnswerSource& source, const HttpResponse* response, const std::string& cause,
                           const std::string& message, const std::string& provider_request_id, double latency_s) {
  AnswerRecord rec = from_source(source);
  rec.status = "failed";
  if (response) {
    rec.response_body = response->body;
    rec.http_status = response->status;
  }
  rec.provider_request_id = provider_request_id;
  rec.latency_s = latency_s;
  rec.cause = cause;
  rec.message = message;
  return rec;
}

void redact_answer(AnswerRecord& rec, AttemptRecord& a, const Redactor& redact) {
  for (std::string* field : {&rec.request_body, &rec.response_body, &rec.text, &rec.finish_reason, &rec.returned_model,
                             &rec.provider_request_id, &rec.system_fingerprint, &rec.message, &rec.cause,
                             &a.message, &a.provider_request_id, &a.response_body, &a.cause})
    *field = redact(std::move(*field));
}

}  // namespace mirac
