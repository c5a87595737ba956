// ready_test.cpp: what is checked before the first answer is bought (check_ready_to_send):
// under a budget every judge needs a price, unless the run collects the answers alone.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/audit.hpp"

namespace {

namespace fs = std::filesystem;

}  // namespace

TEST_CASE("an unpriced judge stops a budgeted run, but not one that only collects answers") {
  const fs::path dir = fs::temp_directory_path() / "mirac_ready_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "ready.audit") << R"(audit ready { title "ready" }
use stdlib.providers
use stdlib.mira.rubric
factor tone { plain warm }
seeds { seed q1 { question = "Is it safe?" } }
text tone { plain "" warm "Kindly: " }
prompt { id "{seed.id}_{tone}" text tone.text ++ seed.question }
model gpt = openai("gpt-5.4")
judge grader = openai("gpt-unpriced") { rubric mira }
)";
  const char* had = std::getenv("OPENAI_API_KEY");
  const std::string previous = had ? had : "";
  setenv("OPENAI_API_KEY", "sk-test-ready", 1);
  mirac::AuditOptions o;
  o.spec = dir / "ready.audit";
  o.store = (dir / "run").string();
  o.budget_usd = 1.0;
  mirac::Audit audit = mirac::open_audit(o);
  REQUIRE(audit.ok());
  mirac::Selection selection;
  REQUIRE(mirac::select_requests(audit, selection).ok());
  const mirac::Outcome judged = mirac::check_ready_to_send(audit, selection, true);
  CHECK_FALSE(judged.ok());
  CHECK(judged.message.find("a budget needs a price for every judge too; no price for: gpt-unpriced") !=
        std::string::npos);
  CHECK(mirac::check_ready_to_send(audit, selection, false).ok());
  if (had) setenv("OPENAI_API_KEY", previous.c_str(), 1);
  else unsetenv("OPENAI_API_KEY");
  fs::remove_all(dir);
}
