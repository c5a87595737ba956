#include "cli/view_hosts.hpp"

#include <algorithm>
#include <cctype>

namespace mirac::cli {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

// An IPv6 address as a name: without the brackets a URL puts around it.
std::string bare(std::string_view name) {
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  return lower(name);
}

bool all_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

ViewHosts::ViewHosts(const std::string& listening_on, const std::vector<std::string>& allowed)
    : names_{"localhost", "127.0.0.1", "::1"} {
  const std::string bound = bare(listening_on);
  if (!bound.empty() && bound != "0.0.0.0" && bound != "::") names_.insert(bound);
  for (const std::string& name : allowed) names_.insert(bare(name));
}

bool ViewHosts::allows(std::string_view host_header) const {
  std::string_view name = host_header, port;
  if (!host_header.empty() && host_header.front() == '[') {  // [IPv6] or [IPv6]:port
    const std::size_t close = host_header.find(']');
    if (close == std::string_view::npos) return false;
    name = host_header.substr(1, close - 1);
    if (name.find(':') == std::string_view::npos) return false;  // brackets only ever hold IPv6
    const std::string_view rest = host_header.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    if (!rest.empty()) port = rest.substr(1);
  } else if (const std::size_t colon = host_header.find(':'); colon != std::string_view::npos) {
    name = host_header.substr(0, colon);
    port = host_header.substr(colon + 1);  // a second colon fails the digits below
  }
  if (name.empty() || port.size() > 5 || !all_digits(port)) return false;
  return names_.count(lower(name)) > 0;
}

std::string ViewHosts::problem_with_name(const std::string& name) {
  const std::string b = bare(name);
  if (b.empty()) return "is empty";
  if (name.find('/') != std::string::npos) return "is a host name or address, without a scheme or path";
  const bool bracketed = b.size() != lower(name).size();
  if (!bracketed && std::count(b.begin(), b.end(), ':') == 1)
    return "is a host name or address without a port (the view answers it on any port)";
  for (unsigned char c : b)
    if (!std::isalnum(c) && c != '.' && c != '-' && c != '_' && c != ':')
      return "has a character no host name holds ('" + std::string(1, char(c)) + "')";
  return "";
}

}  // namespace mirac::cli
