// fake_server.cpp: socket plumbing of the fake provider (test-only code): accept loop,
// keep-alive request parsing, fault delivery (reset, truncation, delay).
#include "fake_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>

namespace mirac::fake {
namespace {

constexpr std::size_t kMaxHeader = 64 * 1024;
constexpr std::size_t kMaxBody = 16u << 20;

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

bool send_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

}  // namespace

FakeServer::FakeServer(FakeServerOptions options) : opt_(std::move(options)) {}

FakeServer::~FakeServer() { stop(); }

std::string FakeServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

bool FakeServer::start(std::string& error) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // loopback only, never a real interface
  addr.sin_port = htons(static_cast<uint16_t>(opt_.port));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 1024) != 0) {
    error = std::string("bind/listen: ") + std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  running_ = true;
  acceptor_ = std::thread([this] { accept_loop(); });
  return true;
}

void FakeServer::stop() {
  if (!acceptor_.joinable()) return;
  stopping_ = true;
  stop_cv_.notify_all();
  acceptor_.join();
  running_ = false;
}

bool FakeServer::sleep_unless_stopped(double seconds) {
  std::unique_lock lock(mu_);
  return !stop_cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                            [this] { return stopping_.load(); });
}

void FakeServer::accept_loop() {
  double deadline = now_s() + opt_.max_lifetime_s;
  auto reap = [this](bool all) {
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (all) ::shutdown(it->fd, SHUT_RDWR);  // wakes a blocked recv
      if (all || it->done->load()) {
        it->thread.join();
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
  };
  while (!stopping_ && now_s() < deadline) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) {
      reap(false);
      continue;
    }
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    reap(false);
    if (static_cast<int>(conns_.size()) >= opt_.max_connections) {
      ::close(fd);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    {
      std::lock_guard lock(mu_);
      ++stats_.connections;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    conns_.push_back(Conn{fd, std::thread([this, fd, done] {
                            serve(fd);
                            done->store(true);
                          }),
                          done});
  }
  stopping_ = true;
  stop_cv_.notify_all();
  reap(true);
  ::close(listen_fd_);
  listen_fd_ = -1;
  running_ = false;
}

void FakeServer::serve(int fd) {
  timeval tv{static_cast<time_t>(opt_.idle_timeout_s), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string buf;
  char chunk[16384];
  while (!stopping_) {
    // Read the header block.
    std::size_t end;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (buf.size() > kMaxHeader || stopping_) return (void)::close(fd);
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return (void)::close(fd);
      buf.append(chunk, static_cast<std::size_t>(n));
    }
    Request req;
    std::size_t line_end = buf.find("\r\n");
    std::string request_line = buf.substr(0, line_end);
    auto sp1 = request_line.find(' '), sp2 = request_line.rfind(' ');
    req.method = request_line.substr(0, sp1);
    req.path = sp1 == sp2 ? "/" : request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    for (std::size_t pos = line_end + 2; pos < end;) {
      std::size_t eol = buf.find("\r\n", pos);
      std::string line = buf.substr(pos, eol - pos);
      pos = eol + 2;
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      req.headers[name] = value;
    }
    buf.erase(0, end + 4);
    std::size_t length = 0;
    if (auto it = req.headers.find("content-length"); it != req.headers.end())
      length = std::strtoull(it->second.c_str(), nullptr, 10);
    if (length > kMaxBody) return (void)::close(fd);
    if (auto it = req.headers.find("expect"); it != req.headers.end() && it->second == "100-continue")
      send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    while (buf.size() < length) {
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return (void)::close(fd);
      buf.append(chunk, static_cast<std::size_t>(n));
    }
    req.body = buf.substr(0, length);
    buf.erase(0, length);

    Response res = respond(req);
    if (res.delay_s > 0 && !sleep_unless_stopped(res.delay_s)) return (void)::close(fd);
    if (res.mode == Response::Mode::drop) return (void)::close(fd);
    std::string head = "HTTP/1.1 " + std::to_string(res.status) + " " + reason(res.status) + "\r\n";
    for (const auto& [k, v] : res.headers) head += k + ": " + v + "\r\n";
    head += "Content-Type: application/json\r\n";
    if (res.mode == Response::Mode::truncated) {
      // Promise more than we send, then close: the client sees a short body.
      head += "Content-Length: " + std::to_string(res.body.size() + 100) + "\r\n\r\n";
      send_all(fd, head + res.body);
      return (void)::close(fd);
    }
    if (res.mode == Response::Mode::reset) {
      head += "Content-Length: " + std::to_string(res.body.size() + 100) + "\r\n\r\n";
      send_all(fd, head + res.body.substr(0, res.body.size() / 2));
      linger lg{1, 0};  // close with RST instead of FIN
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
      return (void)::close(fd);
    }
    head += "Content-Length: " + std::to_string(res.body.size()) + "\r\n\r\n";
    if (!send_all(fd, head + res.body)) return (void)::close(fd);
  }
  ::close(fd);
}

FakeServerStats FakeServer::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

std::size_t FakeServer::received_with(const std::string& marker) const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [text, count] : receipts_)
    if (text.find(marker) != std::string::npos) n += static_cast<std::size_t>(count);
  return n;
}

std::vector<std::string> FakeServer::bodies() const {
  std::lock_guard lock(mu_);
  return bodies_;
}

std::vector<std::string> FakeServer::auth_headers() const {
  std::lock_guard lock(mu_);
  return auth_;
}

}  // namespace mirac::fake
