// offline.cpp: `--offline`, the spec run against the built-in offline provider
// (runtime/offline/offline_model.hpp) instead of the providers it names.
#include "interpreter/check/check.hpp"

namespace mirac {

void use_offline_provider(Spec& spec) {
  if (!spec.providers.count("offline")) {
    Provider p;
    p.name = "offline";
    p.protocol = "openai_chat";
    p.base_url = "offline:";
    p.settings = {{"concurrency", 64}};
    spec.providers.emplace(p.name, std::move(p));
  }
  // New model strings keep simulated answers apart from real ones in the store and in
  // exports; the offline provider's judge is chosen by "judge" in the name.
  for (auto& m : spec.models) {
    m.provider = "offline";
    m.price.reset();  // nothing is paid offline
    if (m.model.rfind("sim-", 0) != 0) m.model = "sim-" + m.model;
  }
  for (auto& j : spec.judges) {
    j.provider = "offline";
    j.price.reset();
    if (j.model.find("judge") == std::string::npos) j.model = "judge-" + j.model;
  }
}

}  // namespace mirac
