// view_server.hpp: a `mirac view` server started for a test (the real binary, --port 0),
// its URL read from what it prints, plain GETs against it with libcurl, and a clean stop
// with SIGTERM. Shared by tests/cli and tests/browser.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <curl/curl.h>

#include "tests/cli/mirac_binary.hpp"

namespace mirac::test {

struct HttpReply {
  long status = 0;
  std::string body, content_type;
};

inline HttpReply http_get(const std::string& url) {
  HttpReply reply;
  CURL* curl = curl_easy_init();
  REQUIRE(curl != nullptr);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, +[](char* data, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
  });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  const CURLcode rc = curl_easy_perform(curl);
  INFO(url << ": " << curl_easy_strerror(rc));
  REQUIRE(rc == CURLE_OK);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  char* type = nullptr;
  curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
  if (type) reply.content_type = type;
  curl_easy_cleanup(curl);
  return reply;
}

/// `mirac view ARGS --port 0` running until stop() (or the end of the test).
class ViewServer {
 public:
  ViewServer(const std::vector<std::string>& args, const std::filesystem::path& log) : log_(log) {
    std::vector<std::string> all = {"view"};
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), {"--port", "0"});
    pid_ = spawn(all, "http://127.0.0.1:9/v1", log);
    // Its first line on standard output names the real port (and [::1] for --host ::1).
    const std::regex line(R"(mirac view: (http://(127\.0\.0\.1|\[::1\]):[0-9]+)/ \(Ctrl-C to stop\))");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::smatch m;
    std::string text;
    while (std::chrono::steady_clock::now() < deadline) {
      text = read_text(log);
      if (std::regex_search(text, m, line)) {
        url_ = m[1];
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait_exit(pid_);
      pid_ = -1;
    }
    FAIL("mirac view did not print its URL: " << text);
  }
  ~ViewServer() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait_exit(pid_);
    }
  }
  ViewServer(const ViewServer&) = delete;
  ViewServer& operator=(const ViewServer&) = delete;
  /// http://127.0.0.1:PORT (or http://[::1]:PORT), without a trailing slash.
  const std::string& url() const { return url_; }
  HttpReply get(const std::string& path) const { return http_get(url_ + path); }
  /// SIGTERM; the exit status.
  int stop() {
    REQUIRE(pid_ > 0);
    kill(pid_, SIGTERM);
    const int code = wait_exit(pid_);
    pid_ = -1;
    return code;
  }
  std::string log() const { return read_text(log_); }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  std::string url_;
};

}  // namespace mirac::test
