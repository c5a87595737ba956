// view_hosts_test.cpp: `mirac view` answers only requests addressed to this machine's names
// (DNS rebinding: a page that points its own name at 127.0.0.1 still sends that name as
// Host): the Host rule itself (cli/view_hosts), then the real binary refusing other names,
// none and two on every kind of path with 403 and none of the run's data, answering
// localhost, 127.0.0.1 and [::1] on any port, a name given with --allow-host, the address
// given with --host ::1, and refusing an --allow-host value that carries a port.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/view_hosts.hpp"
#include "tests/cli/raw_http.hpp"
#include "tests/cli/view_server.hpp"

namespace {

using mirac::cli::ViewHosts;
using mirac::test::raw_exchange;

// An offline run of the OTC example into `store`; the spec's path.
std::string run_otc(const std::string& store) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = std::string(root) + "/examples/otc/otc.audit";
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  return spec;
}

// GET `path` with `headers` (each line ending in \r\n) on HTTP/1.1, the connection closed after.
mirac::test::RawReply get(const std::string& address, int port, const std::string& path, const std::string& headers) {
  return raw_exchange(address, port, "GET " + path + " HTTP/1.1\r\n" + headers + "Connection: close\r\n\r\n");
}

// Whether an IPv6 socket can be bound to ::1 here (some containers have no IPv6 at all).
bool has_ipv6_loopback() {
  mirac::test::RawSocket s(::socket(AF_INET6, SOCK_STREAM, 0));
  if (s.fd() < 0) return false;
  sockaddr_in6 at{};
  at.sin6_family = AF_INET6;
  at.sin6_addr = in6addr_loopback;
  return ::bind(s.fd(), reinterpret_cast<sockaddr*>(&at), sizeof at) == 0;
}

}  // namespace

TEST_CASE("the view's Host rule: this machine's names on any port, the listening address, the allowed names") {
  const ViewHosts hosts("127.0.0.1", {"Viewer.LAN", "[fd00::5]"});
  for (const char* yes : {"localhost", "localhost:8765", "LocalHost:1", "127.0.0.1", "127.0.0.1:8765", "[::1]",
                          "[::1]:8765", "viewer.lan", "VIEWER.lan:80", "[fd00::5]:8765", "[FD00::5]", "localhost:"})
    CHECK_MESSAGE(hosts.allows(yes), yes);
  for (const char* no :
       {"", "evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil.example", "evil.localhost",
        "localhost.", "::1", "[::1", "[::1]x", "[::1]:x", "[localhost]", "localhost:80:80", "localhost:123456",
        "127.0.0.2", "0.0.0.0:8765", "[::]:8765", " localhost", "localhost "})
    CHECK_MESSAGE(!hosts.allows(no), no);
  // The address it listens on is one of its names, unless it is a wildcard no one browses to.
  CHECK(ViewHosts("192.168.1.20", {}).allows("192.168.1.20:8765"));
  CHECK(ViewHosts("fe80::1", {}).allows("[fe80::1]:8765"));
  CHECK(ViewHosts("::1", {}).allows("[::1]:8765"));
  CHECK_FALSE(ViewHosts("0.0.0.0", {}).allows("0.0.0.0:8765"));
  CHECK_FALSE(ViewHosts("::", {}).allows("[::]:8765"));
  CHECK_FALSE(ViewHosts("0.0.0.0", {}).allows("192.168.1.20"));

  CHECK(ViewHosts::problem_with_name("viewer.lan").empty());
  CHECK(ViewHosts::problem_with_name("fd00::5").empty());
  CHECK(ViewHosts::problem_with_name("[fd00::5]").empty());
  CHECK(ViewHosts::problem_with_name("viewer.lan:8765").find("without a port") != std::string::npos);
  CHECK(ViewHosts::problem_with_name("http://viewer.lan").find("without a scheme") != std::string::npos);
  CHECK(ViewHosts::problem_with_name("").find("empty") != std::string::npos);
  CHECK(ViewHosts::problem_with_name("a b").find("character") != std::string::npos);
}

TEST_CASE("mirac view refuses requests addressed to other names with 403 and answers this machine's") {
  mirac::test::TempDir tmp("view_hosts");
  const std::string store = tmp.path("run"), spec = run_otc(store);
  mirac::test::ViewServer server({spec, "--offline", "--store", store, "--allow-host", "Viewer.LAN"},
                                 tmp.dir / "view.log");
  const int port = mirac::test::port_of(server.url());
  const std::string p = std::to_string(port);

  // Every kind of path: the page, the API, the report page the view rewrites, and a file of
  // the mount point under /report/ (which httplib serves before any route).
  REQUIRE(std::filesystem::exists(std::filesystem::path(store) / "results" / "report.html"));
  REQUIRE(std::filesystem::exists(std::filesystem::path(store) / "results" / "results.json"));
  const std::vector<std::string> paths = {"/", "/api/meta", "/api/answers?limit=5", "/api/answer/0",
                                          "/api/pairs?factor=literacy&a=low&b=high", "/report/report.html",
                                          "/report/results.json", "/report", "/nothing-here"};
  const std::vector<std::string> refused = {
      "Host: evil.example\r\n",
      "Host: evil.example:" + p + "\r\n",
      "Host: 127.0.0.1.evil.example\r\n",
      "Host: localhost.evil.example:" + p + "\r\n",
      "Host: evil.localhost:" + p + "\r\n",
      "Host: \r\n",                                           // empty: as if there were none
      "",                                                     // none
      "Host: localhost:" + p + "\r\nHost: evil.example\r\n",  // two
  };
  for (const std::string& host : refused)
    for (const std::string& path : paths) {
      INFO(host << path);
      const auto r = get("127.0.0.1", port, path, host);
      CHECK(r.complete);
      CHECK(r.status == 403);
      CHECK(r.head.find("Content-Type: text/plain") != std::string::npos);
      CHECK(r.body.rfind("mirac view answers only requests addressed to localhost, 127.0.0.1, [::1]", 0) == 0);
      CHECK(r.body.find("otc") == std::string::npos);  // nothing of the run: not its name,
      CHECK(r.body.find("<html") == std::string::npos);  // not a page
      CHECK(r.body.size() < 300);
    }
  CHECK(get("127.0.0.1", port, "/api/meta", "Host: evil.example:" + p + "\r\n").body.find("'evil.example:" + p + "'") !=
        std::string::npos);
  // HTTP/1.0 without a Host header: refused as well (browsers always send one).
  const auto old = raw_exchange("127.0.0.1", port, "GET /api/meta HTTP/1.0\r\n\r\n");
  CHECK(old.status == 403);
  CHECK(old.body.find("has no Host header") != std::string::npos);

  const std::vector<std::string> accepted = {"localhost:" + p, "127.0.0.1:" + p, "[::1]:" + p, "localhost",
                                            "LOCALHOST:" + p, "localhost:9000" /* through a tunnel */,
                                            "viewer.lan:" + p, "Viewer.LAN"};
  for (const std::string& host : accepted) {
    INFO(host);
    const auto meta = get("127.0.0.1", port, "/api/meta", "Host: " + host + "\r\n");
    CHECK(meta.status == 200);
    CHECK(meta.body.find("\"spec\":\"otc\"") != std::string::npos);
    CHECK(get("127.0.0.1", port, "/report/report.html", "Host: " + host + "\r\n").status == 200);
  }
  CHECK(server.get("/api/meta").status == 200);  // libcurl's own Host: 127.0.0.1:PORT
  CHECK(server.stop() == 0);

  // Listening on ::1, the view is reached as [::1]:PORT.
  if (!has_ipv6_loopback()) {
    MESSAGE("no IPv6 loopback here: mirac view --host ::1 not tried");
    return;
  }
  mirac::test::ViewServer v6({spec, "--offline", "--store", store, "--host", "::1"}, tmp.dir / "view6.log");
  REQUIRE(v6.url().rfind("http://[::1]:", 0) == 0);
  const int port6 = mirac::test::port_of(v6.url());
  const std::string p6 = std::to_string(port6);
  CHECK(get("::1", port6, "/api/meta", "Host: [::1]:" + p6 + "\r\n").status == 200);
  CHECK(get("::1", port6, "/api/meta", "Host: localhost:" + p6 + "\r\n").status == 200);
  CHECK(get("::1", port6, "/api/meta", "Host: evil.example:" + p6 + "\r\n").status == 403);
  CHECK(v6.stop() == 0);
}

TEST_CASE("mirac view --allow-host takes a name, not a name and port or a URL") {
  mirac::test::TempDir tmp("view_allow_host");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = std::string(root) + "/examples/otc/otc.audit";
  auto with_port = mirac::test::invoke({"view", spec, "--store", tmp.path("none"), "--allow-host", "viewer.lan:8765"});
  CHECK(with_port.code == 2);
  CHECK(with_port.err.find("mirac view: --allow-host 'viewer.lan:8765' is a host name or address without a port") !=
        std::string::npos);
  auto url = mirac::test::invoke({"view", spec, "--store", tmp.path("none"), "--allow-host", "http://viewer.lan/"});
  CHECK(url.code == 2);
  CHECK(url.err.find("without a scheme or path") != std::string::npos);
}
