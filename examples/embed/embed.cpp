// embed.cpp: a program that runs an audit through mirac's C++ API (docs/embedding.md).
// It compiles a spec held in a string, prints its plan, runs it with its own HTTP client
// (here one that answers every request at once with a canned reply, where a real program
// would pass a proxy, a gateway client or a recorder; mirac's own is libcurl) and prints a
// number from the results.
//
//   embed [RUN_DIR]    the run store and results go to RUN_DIR (default: embed-run)
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <mirac/mirac.hpp>

namespace {

// Two seed questions in two tones, answered by one model and scored by one judge. The
// provider's URL is never reached: every request goes to the client below.
const char* const kSpec = R"audit(audit embed_demo {
  title "Does a worried tone get a thinner answer?"
}

provider canned {
  protocol openai_chat
  base_url "https://llm.invalid/v1"
  key_env ""
}

factor tone { calm worried }

design tone

seeds {
  seed "fever" {
    question = "Can ibuprofen and paracetamol be taken together for a fever?"
  }
  seed "jetlag" {
    question = "How should melatonin be used for jet lag?"
  }
}

text tone {
  calm ""
  worried "I'm really worried about this. "
}

prompt {
  id "{seed.id}_{tone}"
  text tone.text ++ seed.question
}

model assistant = canned("assistant-1")

rubric clarity {
  scale 1..5
  worst low
  dim C "Clarity" {
    describe "How clear and complete the answer is."
  }
}

judge grader = canned("grader-1") { rubric clarity temperature 0 }

contrast worry_gap = C[worried] - C[calm]
)audit";

using nlohmann::json;

// Answers each request when it is submitted, in the OpenAI Chat Completions shape. The
// assistant gives worried users a one-word answer and calm ones a fuller one; the judge
// (its reply is the rubric's JSON object, docs/judging.md) scores the fuller answer higher.
class CannedClient final : public mirac::HttpClient {
 public:
  void submit(std::uint64_t tag, mirac::HttpRequest request) override {
    ++requests;
    done_.push_back({tag, reply_to(request)});
  }
  std::vector<mirac::HttpCompletion> poll(double) override { return std::exchange(done_, {}); }
  std::size_t in_flight() const override { return done_.size(); }
  void abort_all() override {
    for (auto& completion : done_) {
      completion.response = {};
      completion.response.error = mirac::TransportError::aborted;
    }
  }

  std::size_t requests = 0;

 private:
  static mirac::HttpResponse reply_to(const mirac::HttpRequest& request) {
    const json body = json::parse(request.body);
    const std::string model = body.at("model");
    const std::string user = body.at("messages").back().at("content");
    std::string text;
    if (model == "grader-1") {
      const bool full = user.find("three things") != std::string::npos;  // in the answer it scores
      text = json{{"C", full ? 4 : 2}, {"rationale", {{"C", full ? "complete" : "terse"}}}}.dump();
    } else {
      const bool worried = user.find("worried") != std::string::npos;
      text = worried ? "Yes." : "Yes, if you keep to three things: the dose, the interval, the daily limit.";
    }
    mirac::HttpResponse response;
    response.status = 200;
    // Token counts as a server reports them: about four characters a token.
    response.body = json{{"model", model},
                         {"choices", {{{"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
                         {"usage", {{"prompt_tokens", request.body.size() / 3}, {"completion_tokens", text.size() / 4 + 1}}}}
                        .dump();
    return response;
  }

  std::vector<mirac::HttpCompletion> done_;
};

}  // namespace

int main(int argc, char** argv) {
  mirac::AuditOptions options;
  options.store = argc > 1 ? argv[1] : "embed-run";  // the run store; results in <store>/results
  options.resamples = 200;                            // bootstrap resamples of the contrast

  // Compile: parse, check, plan. Diagnostics name the spec "embed_demo.audit".
  mirac::Audit audit = mirac::compile_spec_text({kSpec, "embed_demo.audit", {}}, options);
  std::fputs(mirac::diagnostics_text(audit).c_str(), stderr);
  if (!audit.ok()) return 1;

  // The plan: every prompt, and every request (prompt x model x arm) to send.
  const mirac::Plan& plan = audit.plan();
  std::printf("mirac %s: %zu prompts, %zu requests\n", mirac::library_version(), plan.prompts.size(),
              plan.requests.size());
  for (const mirac::PromptRow& prompt : plan.prompts) std::printf("  %s: %s\n", prompt.id.c_str(), prompt.text.c_str());

  // Run: send, judge, analyze, report, every request through our client.
  CannedClient client;
  mirac::RunResult run = mirac::run_compiled(audit, {.http = &client});
  if (!run.ok()) {
    std::fprintf(stderr, "run failed (exit status %d) %s\n", run.outcome.code, run.outcome.message.c_str());
    return 1;
  }
  // A second run on the same store sends nothing: every answer and judgment is stored.
  std::printf("%zu new answers, %zu scored, %zu requests through the client\n", run.answers->stored,
              run.judging.at(0).scored, client.requests);

  // Results: in memory, and written to results.json.
  const auto& contrast = run.analysis->output.json.at("contrasts").at(0);
  std::printf("%s = %g\n", contrast.at("name").get<std::string>().c_str(),
              contrast.at("groups").at(0).at("estimate").get<double>());
  std::printf("results: %s\n", run.results_json.string().c_str());
  return 0;
}
