// batch_test.cpp: the batch APIs. Their wire formats (parsing both protocols' result
// lines), then whole runs through the real libcurl client against the fake provider:
// partial failure, retries and expiry resent in a new batch, half prices, a run stopped
// while its batch runs and the next one collecting it, and a batch created by a run that
// died before recording it found again instead of paid twice.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include "batch_e2e.hpp"

using namespace mirac;
using namespace mirac::test;

TEST_CASE("batch wire: OpenAI result lines: an answer, an HTTP error, an expired request, a non-HTTP error") {
  const std::string jsonl =
      R"({"id":"batch_req_1","custom_id":"r0","response":{"status_code":200,"request_id":"req_1","body":{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}},"error":null})"
      "\n"
      R"({"id":"batch_req_2","custom_id":"r1","response":{"status_code":400,"request_id":"req_2","body":{"error":{"message":"bad","type":"invalid_request_error"}}},"error":null})"
      "\n\n"
      R"({"id":"batch_req_3","custom_id":"r2","response":null,"error":{"code":"batch_expired","message":"window closed"}})"
      "\n"
      R"({"id":"batch_req_4","custom_id":"r3","response":null,"error":{"code":"server_error","message":"oops"}})"
      "\nnot json\n";
  std::size_t bad = 0;
  auto lines = parse_batch_results(WireProtocol::openai_chat, jsonl, bad);
  CHECK(bad == 1);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].kind == BatchResult::Kind::response);
  CHECK(lines[0].response.status == 200);
  CHECK(*lines[0].response.header("x-request-id") == "req_1");
  CHECK(interpret(WireProtocol::openai_chat, lines[0].response, 0).answer.text == "hi");
  CHECK(lines[1].response.status == 400);
  CHECK(interpret(WireProtocol::openai_chat, lines[1].response, 0).verdict == Verdict::fatal_request);
  CHECK(lines[2].kind == BatchResult::Kind::expired);
  CHECK(lines[3].kind == BatchResult::Kind::error);
  CHECK(lines[3].message == "server_error: oops");
}

TEST_CASE("batch wire: Anthropic results of all four types; errors keep their HTTP meaning") {
  const std::string jsonl =
      R"({"custom_id":"r0","result":{"type":"succeeded","message":{"content":[{"type":"text","text":"yes"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}}})"
      "\n"
      R"({"custom_id":"r1","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"busy"},"request_id":"req_9"}}})"
      "\n"
      R"({"custom_id":"r2","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"no"}}}})"
      "\n"
      R"({"custom_id":"r3","result":{"type":"expired"}})"
      "\n"
      R"({"custom_id":"r4","result":{"type":"canceled"}})";
  std::size_t bad = 0;
  auto lines = parse_batch_results(WireProtocol::anthropic_messages, jsonl, bad);
  CHECK(bad == 0);
  REQUIRE(lines.size() == 5);
  CHECK(interpret(WireProtocol::anthropic_messages, lines[0].response, 0).answer.text == "yes");
  CHECK(lines[1].response.status == 529);
  CHECK(*lines[1].response.header("request-id") == "req_9");
  CHECK(interpret(WireProtocol::anthropic_messages, lines[1].response, 0).verdict == Verdict::retry);
  CHECK(interpret(WireProtocol::anthropic_messages, lines[2].response, 0).verdict == Verdict::fatal_request);
  CHECK(lines[3].kind == BatchResult::Kind::expired);
  CHECK(lines[4].kind == BatchResult::Kind::cancelled);
}

TEST_CASE("batch wire: the JSONL input carries each body verbatim; the upload is multipart with purpose=batch") {
  const std::string jsonl = openai_batch_jsonl({{"r0", R"({"model":"m","messages":[]})"}, {"r1", R"({"model":"m"})"}});
  CHECK(jsonl ==
        "{\"custom_id\":\"r0\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"m\",\"messages\":[]}}\n"
        "{\"custom_id\":\"r1\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"m\"}}\n");
  HttpRequest up = openai_upload_request({WireProtocol::openai_chat, "http://h/v1/", "k"}, jsonl, "mb-1");
  CHECK(up.url == "http://h/v1/files");
  CHECK(up.body.find("name=\"purpose\"\r\n\r\nbatch\r\n") != std::string::npos);
  CHECK(up.body.find(jsonl) != std::string::npos);
  bool multipart = false;
  for (const auto& [name, value] : up.headers) multipart = multipart || value == "multipart/form-data; boundary=mirac-mb-1";
  CHECK(multipart);
  CHECK(batch_poll_request({WireProtocol::anthropic_messages, "https://api.anthropic.com", ""}, "msgbatch_1").url ==
        "https://api.anthropic.com/v1/messages/batches/msgbatch_1");
  CHECK(batch_poll_request({WireProtocol::anthropic_messages, "https://api.anthropic.com", ""}, "x").method == "GET");
}


TEST_CASE("batch run: partial failure, a retried error and an expired request, for both protocols") {
  for (bool anthropic : {false, true}) {
    CAPTURE(anthropic);
    BatchE2E e;
    std::vector<ModelCall> calls = {
        e.call(anthropic, "b0", "plain one"),
        e.call(anthropic, "b1", "plain two"),
        e.call(anthropic, "b2", "refused [[fake fail=400]]"),
        e.call(anthropic, "b3", "flaky [[fake fail=500 times=1]]"),
        e.call(anthropic, "b4", "late batch-expire"),
        e.call(anthropic, "b5", "plain three"),
    };
    auto s = e.run(calls);
    CHECK(s.fatal_error == "");
    CHECK(s.total == 6);
    CHECK(s.stored == 5);
    CHECK(s.failed == 1);
    CHECK(s.batches_open == 0);
    CHECK(s.batches_collected == 2);  // the first, then one with the retried and the expired requests
    CHECK(e.server.stats().batches_created == 2);
    CHECK(e.server.stats().paid_twice == 0);
    for (const char* h : {"b0", "b1", "b3", "b4", "b5"}) {
      CAPTURE(h);
      auto a = e.store->answer(h);
      REQUIRE(a);
      CHECK(a->status == "done");
      CHECK(a->text.find("echo: ") == 0);
    }
    auto refused = e.store->answer("b2");
    REQUIRE(refused);
    CHECK(refused->status == "failed");
    CHECK(refused->cause == "invalid_request");
    CHECK(e.store->answer("b3")->attempts == 2);
    CHECK(e.store->attempts("b3").front().outcome == "retry");
    CHECK(e.store->attempts("b4").front().cause == "batch_expired");
    // Half the list price, from the tokens the server reported.
    auto a = e.store->answer("b0");
    const double list = anthropic ? (a->input_tokens * 3.0 + a->output_tokens * 15.0) / 1e6
                                  : (a->input_tokens * 1.0 + a->output_tokens * 4.0) / 1e6;
    CHECK(a->cost_usd == doctest::Approx(list / 2));
    // The request stored is the body a request alone would have sent.
    CHECK(a->request_body.find("\"plain one\"") != std::string::npos);
    auto batches = e.batches();
    CHECK(batches->batches(true).empty());
    CHECK(batches->batches(false).size() == 2);
    // A second run has nothing to send.
    auto again = e.run(calls);
    CHECK(again.skipped == 5);
    CHECK(again.batched == 1);  // the refused one, tried again
    CHECK(e.server.stats().paid_twice == 0);
  }
}

TEST_CASE("batch run: a judge's request sent in a batch is stored referring to the answer it quotes") {
  BatchE2E e;
  AnswerRecord answer;
  answer.hash = "answered";
  answer.status = "done";
  answer.provider = "openai";
  answer.model = "gpt-4.1-mini";
  answer.text = "Take two tablets a day with water, and see a doctor if it persists.";
  answer.cause = "ok";
  AttemptRecord attempt;
  attempt.hash = answer.hash;
  attempt.attempt = 1;
  attempt.outcome = attempt.cause = "ok";
  REQUIRE(e.store->record_answer(answer, attempt));
  ModelCall judge = e.call(false, "judged", "Score this answer:\n" + answer.text + "\nReply with JSON.");
  judge.quotes = answer.hash;
  auto s = e.run({judge});
  CHECK(s.stored == 1);
  auto stored = e.store->answer("judged");
  REQUIRE(stored);
  CHECK(stored->request_body.find("Take two tablets a day with water") != std::string::npos);
  // Kept as a reference: the body in the store does not hold the quoted text again.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((e.dir.path / "store.sqlite").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  REQUIRE(sqlite3_prepare_v2(db,
                             "SELECT b.request_body LIKE '%tablets%', q.hash FROM bodies b JOIN answers a ON a.id = b.answer "
                             "JOIN answers q ON q.id = b.quoted WHERE a.hash = 'judged'",
                             -1, &q, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(q) == SQLITE_ROW);
  CHECK(sqlite3_column_int(q, 0) == 0);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(q, 1))) == "answered");
  sqlite3_finalize(q);
  sqlite3_close(db);
}

TEST_CASE("batch run: stopped while its batch runs, the next run polls it and sends nothing again") {
  for (bool anthropic : {false, true}) {
    CAPTURE(anthropic);
    fake::FakeServerOptions o;
    o.batch_delay_s = 0.5;
    BatchE2E e(o);
    std::vector<ModelCall> calls;
    for (int i = 0; i < 8; ++i) calls.push_back(e.call(anthropic, "k" + std::to_string(i), "question " + std::to_string(i)));
    e.on_log = [&](const std::string& line) {
      if (line.find("submitted as") != std::string::npos) e.cancel = true;  // Ctrl-C once it is sent
    };
    auto first = e.run(calls);
    CHECK(first.cancelled);
    CHECK(first.batches_open == 1);
    CHECK(first.stored == 0);
    auto open = e.batches()->batches(true);
    REQUIRE(open.size() == 1);
    CHECK(open[0].state == "submitted");
    CHECK(open[0].requests == 8);

    e.cancel = false;
    e.on_log = {};
    auto second = e.run(calls);
    CHECK(second.batched == 0);
    CHECK(second.stored == 8);
    CHECK(second.batches_collected == 1);
    CHECK(e.server.stats().batches_created == 1);
    CHECK(e.server.stats().paid_twice == 0);
  }
}

TEST_CASE("batch run: a batch created before its run could record it is found at the provider, not paid twice") {
  for (bool anthropic : {false, true}) {
    CAPTURE(anthropic);
    BatchE2E e;
    std::vector<ModelCall> calls;
    for (int i = 0; i < 5; ++i) calls.push_back(e.call(anthropic, "f" + std::to_string(i), "found " + std::to_string(i)));
    // What a run killed between sending the batch and hearing back leaves: the batch in
    // the store as `preparing`, and at the provider, created with the store's own id.
    std::vector<BatchRequest> requests;
    BatchRecord record = preparing_batch(e, calls, "mb-killed", requests);
    create_remote(record, items_of(requests));
    REQUIRE(e.server.stats().batches_created == 1);

    auto s = e.run(calls);
    CHECK(s.fatal_error == "");
    CHECK(s.batched == 0);
    CHECK(s.stored == 5);
    CHECK(e.server.stats().batches_created == 1);
    CHECK(e.server.stats().paid_twice == 0);
    CHECK(logged(e, "found at the provider"));
  }
}

TEST_CASE("batch run: a budget puts in a batch only what it can pay for, at batch prices") {
  BatchE2E e;
  std::vector<ModelCall> calls;
  for (int i = 0; i < 10; ++i) calls.push_back(e.call(false, "g" + std::to_string(i), "budgeted " + std::to_string(i)));
  // Room for four requests at their worst-case cost, at half the list price.
  auto [in, out] = estimate_tokens(calls[0], e.options.default_max_output_tokens);
  const double each = 0.5 * (in * 1.0 + out * 4.0) / 1e6;
  e.options.budget_usd = 4.5 * each;
  auto s = e.run(calls);
  CHECK(s.budget_exhausted);
  CHECK(s.batched == 4);
  CHECK(s.stored == 4);
  CHECK(s.not_sent["budget"] == 6);
  CHECK(s.spend_usd <= 4.5 * each);
}

TEST_CASE("batch progress: the progress line and the summary say where the batches are") {
  Progress p;
  p.total = 100;
  p.done = 40;
  p.batches = {{"running", 2}, {"waiting", 1}};
  p.batch_requests = 60;
  CHECK(format_progress_line(p, "answers", 120).find("batches 2 running, 1 waiting (60 requests)") != std::string::npos);
  CHECK(format_progress(p).find("| batches 2 running, 1 waiting (60 requests)") != std::string::npos);
  RunSummary s;
  s.total = 100;
  s.batched = 60;
  s.batches_collected = 1;
  s.batches_open = 2;
  CHECK(format_summary(s).find("batches: 60 request(s) submitted in new batches, 1 batch(es) collected, 2 still open at "
                               "the provider") != std::string::npos);
}

TEST_CASE("batch run: answers are made as one by one (answer_record.hpp): the key a server echoes is stored nowhere") {
  for (bool anthropic : {false, true}) {
    CAPTURE(anthropic);
    BatchE2E e;
    auto s = e.run({e.call(anthropic, "e0", "tell me [[fake echo=key]]")});
    REQUIRE(s.stored == 1);
    auto a = e.store->answer("e0");
    REQUIRE(a);
    const std::string key = anthropic ? kAnthropicKey : kOpenAiKey;
    CHECK(a->text.find("your key is") != std::string::npos);
    for (const std::string* field : {&a->text, &a->response_body, &a->provider_request_id, &a->request_body})
      CHECK(field->find(key) == std::string::npos);
    for (const auto& attempt : e.store->attempts("e0")) CHECK(attempt.provider_request_id.find(key) == std::string::npos);
    CHECK(a->cause == "ok");
    CHECK(a->attempts == 1);
    CHECK(a->quotes == "");
  }
}
