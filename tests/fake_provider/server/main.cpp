// main.cpp: the fake provider as a standalone process, for tests that SIGKILL a real
// `mirac run`. Prints "listening on <base url>" and the port (also to --port-file), then
// serves until SIGINT/SIGTERM or --lifetime-s.
#include <signal.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>

#include "fake_server.hpp"

namespace {

void usage() {
  std::cerr << "usage: mirac_fake_provider [--port N] [--port-file PATH] [--latency-ms N]\n"
               "         [--rpm N] [--rpm-window-s S] [--lifetime-s S] [--openai-key K]\n"
               "         [--anthropic-key K] [--quota] [--batch-delay-ms N] [--batch-create-delay-ms N]\n"
               "         [--batch-create-faults 500,500after,drop,ok,...]\n";
}

}  // namespace

int main(int argc, char** argv) {
  mirac::fake::FakeServerOptions opt;
  opt.max_lifetime_s = 600;
  std::string port_file;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--port") opt.port = std::stoi(next());
    else if (a == "--port-file") port_file = next();
    else if (a == "--latency-ms") opt.latency_s = std::stod(next()) / 1000.0;
    else if (a == "--rpm") opt.rpm_limit = std::stoi(next());
    else if (a == "--rpm-window-s") opt.rpm_window_s = std::stod(next());
    else if (a == "--lifetime-s") opt.max_lifetime_s = std::stod(next());
    else if (a == "--openai-key") opt.openai_key = next();
    else if (a == "--anthropic-key") opt.anthropic_key = next();
    else if (a == "--quota") opt.quota_exhausted = true;
    else if (a == "--batch-delay-ms") opt.batch_delay_s = std::stod(next()) / 1000.0;
    else if (a == "--batch-create-delay-ms") opt.batch_create_delay_s = std::stod(next()) / 1000.0;
    else if (a == "--batch-create-faults") {
      std::string list = next();
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = std::min(list.find(',', at), list.size());
        opt.batch_create_faults.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    }
    else {
      usage();
      return 2;
    }
  }
  // Block the stop signals in every thread; the main thread waits for them synchronously.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  mirac::fake::FakeServer server(opt);
  std::string error;
  if (!server.start(error)) {
    std::cerr << "mirac_fake_provider: " << error << "\n";
    return 1;
  }
  std::cout << "listening on " << server.base_url() << "\n" << server.port() << std::endl;
  if (!port_file.empty()) {
    std::string tmp = port_file + ".tmp";
    std::ofstream(tmp) << server.port() << "\n";
    std::rename(tmp.c_str(), port_file.c_str());  // readers never see a partial file
  }
  timespec tick{0, 200 * 1000 * 1000};
  while (server.running()) {
    if (sigtimedwait(&set, nullptr, &tick) > 0) break;
  }
  server.stop();
  auto s = server.stats();
  std::cerr << "mirac_fake_provider: " << s.requests << " requests, " << s.answered
            << " answered, " << s.rate_limited << " rate-limited, " << s.batches_created << " batches, "
            << s.batch_requests_run << " batch requests run, paid twice " << s.paid_twice << "\n";
  return 0;
}
