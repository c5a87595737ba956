// hostile_provider.hpp: a loopback OpenAI-protocol model server for the tests of untrusted
// text. It answers every prompt with the text the test makes of it (markup, script,
// spreadsheet formulas) and judges with the offline judge's scores but rationales the test
// chooses, so a real `mirac run` stores hostile answers and rationales the way a real
// model's would arrive. Shared by tests/cli and tests/browser.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "runtime/offline/offline_model.hpp"

namespace mirac::test {

/// How the judge answers: the offline judge's reply with the rationales (and scores) given.
struct HostileJudge {
  std::string model;      ///< requests for this model string are judge requests
  std::string rationale;  ///< every dimension's rationale
  /// Every scored dimension's score, from the judge's user message; unset or nullopt: the
  /// offline judge's own.
  std::function<std::optional<int>(const std::string& user)> score = {};
};

class HostileProvider {
 public:
  /// The answer to the last user message of a request (the prompt).
  using Answer = std::function<std::string(const std::string& prompt)>;

  /// Judge requests (judge.model) get the judge's reply; every other request gets
  /// answer(prompt).
  HostileProvider(Answer answer, HostileJudge judge) : answer_(std::move(answer)), judge_(std::move(judge)) {
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      const nlohmann::json body = nlohmann::json::parse(req.body);
      const std::string model = body.at("model");
      std::string system, user;
      for (const auto& m : body.at("messages")) (m.at("role") == "system" ? system : user) = m.at("content");
      std::string content;
      if (model == judge_.model) {
        nlohmann::ordered_json reply = nlohmann::ordered_json::parse(offline_judgment(system, user));
        const std::optional<int> score = judge_.score ? judge_.score(user) : std::nullopt;
        std::vector<std::string> dims;
        for (const auto& [dim, why] : reply["rationale"].items()) dims.push_back(dim);
        for (const auto& dim : dims) {
          reply["rationale"][dim] = judge_.rationale;
          if (score && reply.contains(dim) && !reply[dim].is_null()) reply[dim] = *score;
        }
        content = reply.dump();
      } else {
        content = answer_(user);
      }
      const nlohmann::json out = {{"id", "hostile-1"}, {"model", model},
                                  {"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
                                  {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 10}}}};
      res.set_content(out.dump(), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~HostileProvider() {
    server_.stop();
    thread_.join();
  }
  HostileProvider(const HostileProvider&) = delete;
  HostileProvider& operator=(const HostileProvider&) = delete;

  /// For a spec's `provider NAME { protocol openai_chat base_url "..." key_env "" }`.
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  Answer answer_;
  HostileJudge judge_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace mirac::test
