// environment.hpp: API keys and base-URL overrides come from the process environment.
// Behind an interface so tests never depend on (or leak) the real environment.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/model_call.hpp"

namespace mirac {

class Environment {
 public:
  virtual ~Environment() = default;
  /// The variable's value; nullopt when unset. Empty values count as unset.
  virtual std::optional<std::string> get(const std::string& name) const = 0;
};

/// Reads the real process environment (getenv).
class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> get(const std::string& name) const override;
};

/// A fixed map, for tests.
class MapEnvironment final : public Environment {
 public:
  explicit MapEnvironment(std::map<std::string, std::string> vars = {}) : vars_(std::move(vars)) {}
  std::optional<std::string> get(const std::string& name) const override;
  void set(const std::string& name, std::string value) { vars_[name] = std::move(value); }

 private:
  std::map<std::string, std::string> vars_;
};

/// "<PROVIDER>_BASE_URL": provider name upper-cased, other characters as '_'.
std::string base_url_variable(const std::string& provider);

/// The base URLs of `<PROVIDER>_BASE_URL`'s value: one, or several separated by commas
/// (a provider's endpoints); blanks around each are dropped.
std::vector<std::string> split_base_urls(const std::string& value);

/// ModelCall.base_url unless <PROVIDER>_BASE_URL overrides it.
std::string effective_base_url(const ModelCall& call, const Environment& env);

struct MissingKey {
  std::string key_env;                 ///< e.g. OPENAI_API_KEY
  std::vector<std::string> providers;  ///< providers that need it
  std::size_t calls = 0;               ///< how many calls need it
};

/// Every key_env the calls need that is unset, all at once, so a user fixes them in one go
/// before anything is sent. Sorted by variable name. `include`, when given, selects the
/// calls to consider (e.g. those not yet answered).
std::vector<MissingKey> missing_keys(const CallRefs& calls, const Environment& env,
                                     const std::function<bool(const ModelCall&)>& include = {});
inline std::vector<MissingKey> missing_keys(const std::vector<ModelCall>& calls, const Environment& env,
                                            const std::function<bool(const ModelCall&)>& include = {}) {
  return missing_keys(call_refs(calls), env, include);
}

/// `key_env` as a message may show it: a key pasted there by mistake is named, not printed.
std::string shown_key_env(const std::string& key_env);

/// One message listing every missing key, e.g. for the CLI; empty when none is missing.
std::string describe_missing_keys(const std::vector<MissingKey>& missing);

}  // namespace mirac
