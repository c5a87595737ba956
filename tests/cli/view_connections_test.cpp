// view_connections_test.cpp: connections that hang do not hold up `mirac view`. 16 sockets
// connect and send nothing, 16 send half a request line and then one more byte of it every
// 100 ms, so that they never finish it and never go quiet long enough for the server's read
// timeout: they hold their threads for as long as the test wants, whatever the machine's
// speed. With those 32 open, ordinary requests are each answered. Before the fix (httplib's
// default pool, max(8, cores - 1) threads) the 16 half requests alone held every thread of
// any machine with fewer than 18 cores for as long as they trickled, so no answer came at
// all and the test failed at its 20 s limit: no timing makes it pass. Once the trickle
// stops, the server closes all 32 (its timeouts are a few seconds; 60 s are allowed).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/raw_http.hpp"
#include "tests/cli/view_server.hpp"

namespace {

using mirac::test::RawSocket;

// Sends one more byte to each socket every 100 ms on its own thread, until destroyed.
class Trickle {
 public:
  explicit Trickle(const std::vector<RawSocket>& sockets)
      : thread_([this, &sockets] {
          while (!stop_) {
            for (const RawSocket& s : sockets) mirac::test::send_raw(s, "e");
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
        }) {}
  ~Trickle() {
    stop_ = true;
    thread_.join();
  }
  Trickle(const Trickle&) = delete;
  Trickle& operator=(const Trickle&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

TEST_CASE("mirac view answers while 32 connections sit idle or stuck half-way through a request") {
  mirac::test::TempDir tmp("view_connections");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = std::string(root) + "/examples/otc/otc.audit", store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  mirac::test::ViewServer server({spec, "--offline", "--store", store}, tmp.dir / "view.log");
  const int port = mirac::test::port_of(server.url());

  std::vector<RawSocket> idle, half;
  for (int i = 0; i < 16; ++i) idle.push_back(mirac::test::connect_raw("127.0.0.1", port));
  for (int i = 0; i < 16; ++i) {
    half.push_back(mirac::test::connect_raw("127.0.0.1", port));
    REQUIRE(mirac::test::send_raw(half.back(), "GET /api/me"));
  }
  {
    const Trickle trickle(half);
    for (const std::string path : {"/", "/api/meta", "/api/answers?limit=5", "/api/answer/3",
                                   "/api/pairs?factor=literacy&a=low&b=high&limit=2", "/report/report.html"}) {
      INFO(path);
      const auto reply = mirac::test::raw_exchange(
          "127.0.0.1", port,
          "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n\r\n",
          std::chrono::seconds(20));
      REQUIRE_MESSAGE(reply.complete, "no answer within 20 s while 32 connections were held open");
      CHECK(reply.status == 200);
    }
    // The same through libcurl, on keep-alive as a browser would.
    CHECK(server.get("/api/meta").status == 200);
  }

  // The trickle has stopped: the read timeout frees the half requests, the keep-alive
  // timeout (which also bounds the wait for a first request) the idle ones.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (const RawSocket& s : idle) CHECK(mirac::test::closed_by(s, deadline));
  for (const RawSocket& s : half) CHECK(mirac::test::closed_by(s, deadline));
  CHECK(server.get("/api/meta").status == 200);
  CHECK(server.stop() == 0);
}
