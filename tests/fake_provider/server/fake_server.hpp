// fake_server.hpp: a scriptable fake LLM provider on 127.0.0.1 for tests and benchmarks.
// Speaks OpenAI Chat Completions and Anthropic Messages over a minimal HTTP/1.1 server
// (POSIX sockets, one thread per connection, keep-alive), bounded and self-stopping.
//
// Faults are scripted per prompt, so they are deterministic however requests interleave:
// a user message containing `[[fake fail=429 ra=1 times=2]]` gets a 429 with
// `retry-after: 1` the first two times it is received, then a normal answer. Keys:
//   fail=   429 (rate limit; ra=<s>, ra_ms=<ms>), quota (OpenAI insufficient_quota 429),
//           spendcap (Anthropic enforced_spend_limit_reached 429), 402 (billing), 400, 401,
//           404, 408, 409, 500html, 500noretry (x-should-retry: false), 503, 529,
//           reset (connection reset mid-body), truncated (body shorter than Content-Length),
//           malformed (200 with broken JSON), slow (answer after slow=<ms>),
//           length (finish_reason length / stop_reason max_tokens), refusal,
//           blank (DeepSeek keep-alive blank lines before the JSON), arrayerr (Gemini-style
//           array error body, 429), flaterr (vLLM flat error body, 400)
//   times=  apply the fault to the first N receipts of this prompt (default: every time)
//   latency=<ms> extra latency for this prompt
//   echo=key  the key received is echoed in the request-id header and in the answer
//
// It also runs both batch APIs (fake_batches.cpp): OpenAI's files and batches, Anthropic's
// message batches. A batch ends batch_delay_s after it was created; each of its requests
// is then answered as if it had been sent alone (the faults above included, so `fail=500
// times=1` fails it once). A request whose prompt holds `batch-expire` expires, with its
// batch, the first time it is in one; the batch's other requests are answered. A batch
// can be cancelled before it ends: its requests are then not run (nor billed).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mirac::fake {

struct FakeServerOptions {
  int port = 0;                  ///< 0: an ephemeral port
  double latency_s = 0;          ///< added to every response
  int rpm_limit = 0;             ///< enforced: more requests within rpm_window_s get 429
  double rpm_window_s = 60;      ///< sliding window of the enforced limit
  std::string openai_key;        ///< when set, required as "Authorization: Bearer <key>"
  std::string anthropic_key;     ///< when set, required as "x-api-key"
  bool quota_exhausted = false;  ///< every request gets the provider's quota/billing error
  int max_connections = 512;     ///< further connections are closed at once
  double max_lifetime_s = 900;   ///< the server stops itself after this long
  double idle_timeout_s = 30;    ///< a keep-alive connection idle this long is closed
  double batch_delay_s = 0.3;    ///< a batch ends this long after it was created
  /// The answer to a batch's creation comes this long after the batch exists: a client
  /// killed meanwhile has a batch it never heard of.
  double batch_create_delay_s = 0;
  /// What befalls the n-th call creating a batch (each protocol counts its own; an OpenAI
  /// file upload is not one): "500" refused, nothing created; "500after" created, then
  /// answered 500; "drop" created, then the connection closed before any byte of the
  /// answer; "ok" (or past the list's end) created and answered.
  std::vector<std::string> batch_create_faults;
};

struct FakeServerStats {
  std::size_t requests = 0;  ///< complete requests received (every attempt)
  std::size_t answered = 0;  ///< 200 answers sent
  std::size_t paid_twice = 0;  ///< 200 answers to a user message already answered 200 before
  std::size_t rate_limited = 0;  ///< 429s sent because of the enforced RPM limit
  std::size_t connections = 0;
  std::map<int, std::size_t> by_status;       ///< responses by HTTP status (0: reset)
  std::map<std::string, std::size_t> by_path;
  std::size_t batches_created = 0;
  std::size_t batch_requests_run = 0;  ///< requests of batches answered (billed), every batch
};

class FakeServer {
 public:
  explicit FakeServer(FakeServerOptions options = {});
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  /// Binds 127.0.0.1 and starts serving on a background thread.
  bool start(std::string& error);
  /// Stops accepting, closes every connection, joins the threads. Idempotent.
  void stop();
  bool running() const { return running_.load(); }

  int port() const { return port_; }
  std::string base_url() const;  ///< http://127.0.0.1:<port>/v1

  FakeServerStats stats() const;
  /// How many requests had a user message containing `marker`.
  std::size_t received_with(const std::string& marker) const;
  /// Ends every batch not yet ended once its time has come, as a real provider does whether
  /// or not anyone looks (this fake ends a batch when it is asked about): call it before
  /// reading stats(), so that a batch its client never heard of is counted as run.
  void end_every_batch();
  /// Every request body received, in arrival order (capped at 100,000 bodies).
  std::vector<std::string> bodies() const;
  /// Values of the Authorization / x-api-key headers seen, to check auth is sent.
  std::vector<std::string> auth_headers() const;

  struct Request {
    std::string method, path;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
  };
  struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    /// drop: the connection is closed without a byte of the answer.
    enum class Mode { normal, reset, truncated, drop } mode = Mode::normal;
    double delay_s = 0;
  };

 private:
  void accept_loop();
  void serve(int fd);
  Response respond(const Request& req);
  Response respond_batch(const Request& req);  // fake_batches.cpp
  struct Batch;
  void finish_batch(Batch& batch);
  bool sleep_unless_stopped(double seconds);

  FakeServerOptions opt_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> running_{false};
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  struct Conn {
    int fd;
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Conn> conns_;  // accept thread only
  mutable std::mutex mu_;    // guards everything below
  std::condition_variable stop_cv_;
  FakeServerStats stats_;
  std::map<std::string, int> receipts_;  // user text -> times received
  std::map<std::string, int> answers_;   // model, system and user text -> 200 answers sent
  std::deque<double> window_;            // accepted request times for the RPM limit
  std::vector<std::string> bodies_, auth_;
  std::size_t next_id_ = 0;
  std::map<std::string, std::shared_ptr<Batch>> batches_;  // by id
  std::vector<std::string> batch_order_;                   // ids, oldest first
  std::map<std::string, std::string> files_;               // OpenAI files by id
  std::map<std::string, int> batch_prompts_seen_;          // model and user text -> batches it was in
  std::size_t batch_creates_[2] = {0, 0};                  // create calls received: OpenAI, Anthropic
};

}  // namespace mirac::fake
