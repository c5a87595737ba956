// shared_params_test.cpp: a plan's requests share one parameters object (SharedParams,
// runtime/model_call.hpp); changing one request's parameters never changes another's.
#include <doctest/doctest.h>

#include <utility>

#include "runtime/model_call.hpp"

using namespace mirac;

TEST_CASE("shared params: copies share one object until one of them is changed") {
  ModelCall first;
  first.params = {{"temperature", 0}, {"max_tokens", 300}};
  ModelCall second = first;
  CHECK(&first.params.json() == &second.params.json());  // one object, not a copy each
  second.params["seed"] = 7;  // the changed one gets its own
  CHECK(&first.params.json() != &second.params.json());
  CHECK_FALSE(std::as_const(first.params).contains("seed"));
  CHECK(second.params.at("seed") == 7);
  CHECK(second.params.erase("temperature") == 1);
  CHECK(std::as_const(first.params)["temperature"] == 0);
  CHECK(first.params == nlohmann::json{{"temperature", 0}, {"max_tokens", 300}});
}

TEST_CASE("shared params: an unset object reads as an empty object, as the canonical request writes it") {
  const ModelCall call;
  CHECK(call.params.json().is_object());
  CHECK(call.params.json().empty());
  nlohmann::json canonical;
  canonical["params"] = call.params.json();
  CHECK(canonical.dump() == R"({"params":{}})");
}
