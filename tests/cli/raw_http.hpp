// raw_http.hpp: HTTP/1.1 written by hand on a TCP socket, for what libcurl will not send
// (any Host header, none, two, a request cut off half-way) and for connections held open
// in silence. Loopback only; IPv4 or IPv6 by the address given.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace mirac::test {

/// A connected TCP socket, closed with the object.
class RawSocket {
 public:
  RawSocket() = default;
  explicit RawSocket(int fd) : fd_(fd) {}
  RawSocket(RawSocket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  RawSocket& operator=(RawSocket&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

/// A connection to `address` ("127.0.0.1", "::1") on `port`; fails the test when refused.
inline RawSocket connect_raw(const std::string& address, int port) {
  const bool v6 = address.find(':') != std::string::npos;
  RawSocket s(::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0));
  REQUIRE(s.fd() >= 0);
  int rc = -1;
  if (v6) {
    sockaddr_in6 to{};
    to.sin6_family = AF_INET6;
    to.sin6_port = htons(static_cast<uint16_t>(port));
    REQUIRE(inet_pton(AF_INET6, address.c_str(), &to.sin6_addr) == 1);
    rc = ::connect(s.fd(), reinterpret_cast<sockaddr*>(&to), sizeof to);
  } else {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    REQUIRE(inet_pton(AF_INET, address.c_str(), &to.sin_addr) == 1);
    rc = ::connect(s.fd(), reinterpret_cast<sockaddr*>(&to), sizeof to);
  }
  INFO("connect to " << address << ":" << port << ": errno " << errno);
  REQUIRE(rc == 0);
  return s;
}

/// Writes all of `bytes` (MSG_NOSIGNAL: a socket the server closed fails the write, not the test process).
inline bool send_raw(const RawSocket& s, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(s.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Whether the server has closed `s` by `deadline`: an end of stream or a reset (bytes it
/// sends first are read and dropped).
inline bool closed_by(const RawSocket& s, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{s.fd(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count()))) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::recv(s.fd(), buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
}

struct RawReply {
  bool complete = false;  // the server closed the connection before the time allowed ran out
  int status = 0;
  std::string head, body;
};

/// `request` sent on a new connection to `address`:`port`, and everything the server sends
/// back until it closes the connection (ask it to: `Connection: close`), or until `limit`.
inline RawReply raw_exchange(const std::string& address, int port, const std::string& request,
                             std::chrono::seconds limit = std::chrono::seconds(20)) {
  RawSocket s = connect_raw(address, port);
  RawReply reply;
  REQUIRE(send_raw(s, request));
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string all;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{s.fd(), POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[4096];
    const ssize_t n = ::recv(s.fd(), buf, sizeof buf, 0);
    if (n <= 0) {
      reply.complete = true;
      break;
    }
    all.append(buf, static_cast<std::size_t>(n));
  }
  const std::size_t end_of_head = all.find("\r\n\r\n");
  reply.head = all.substr(0, end_of_head);
  if (end_of_head != std::string::npos) reply.body = all.substr(end_of_head + 4);
  if (all.rfind("HTTP/1.1 ", 0) == 0 && all.size() >= 12) reply.status = std::stoi(all.substr(9, 3));
  return reply;
}

/// The port of a URL such as http://127.0.0.1:PORT or http://[::1]:PORT.
inline int port_of(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

}  // namespace mirac::test
