// view_hosts.hpp: the Host headers `mirac view` answers. Listening on 127.0.0.1 keeps other
// machines out, but not a web page in this machine's browser: a site can point its own name
// at 127.0.0.1 once its page is loaded (DNS rebinding) and then read the view as if it were
// its own origin. The browser still sends that site's name as Host, so answering only the
// names that mean this machine (and those the user lists) shuts the page out.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mirac::cli {

class ViewHosts {
 public:
  /// `localhost`, `127.0.0.1` and `::1`; the address the server listens on (`--host`),
  /// unless it is a wildcard (0.0.0.0, ::), which names no one machine; and each
  /// of `allowed` (`--allow-host`, checked by `problem_with_name`).
  ViewHosts(const std::string& listening_on, const std::vector<std::string>& allowed);

  /// Whether a request with this Host header value is answered: a listed name or address
  /// (any case; an IPv6 address in brackets), optionally with a port. The port is not
  /// checked: a name on this machine is safe on any port, and a tunnel (`ssh -L 9000:
  /// localhost:8765`) makes the browser send its own. Empty or malformed: refused.
  bool allows(std::string_view host_header) const;

  /// Why `name` cannot be an --allow-host value (it has a port, a scheme, a path, or
  /// nothing); empty when it can.
  static std::string problem_with_name(const std::string& name);

 private:
  std::set<std::string> names_;  // lower case; IPv6 addresses without brackets
};

}  // namespace mirac::cli
