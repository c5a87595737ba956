// bad_input_test.cpp: input that once crashed the real binary or was silently accepted:
// bytes that are not UTF-8 in data and system prompts, nesting deep enough to exhaust the
// stack, empty and header-only specs, directories, FIFOs and devices where files belong,
// a full disk under `prompts -o`, and pilots whose analyses lack a level.
#include <doctest/doctest.h>

#include <string>
#include <sys/stat.h>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

namespace {

using mirac::test::invoke;
using mirac::test::TempDir;

// Seeds from seeds.csv, one prompt each, one OpenAI-protocol model; `arm` is an extra line.
std::string csv_spec(const std::string& arm = "") {
  return "audit bad { title \"bad input\" }\nuse stdlib.providers\n"
         "seeds from csv(\"seeds.csv\") {\n  id = seed_id\n  question = q\n}\n" + arm +
         "prompt {\n  id \"{seed.id}\"\n  text seed.question\n}\n"
         "model gpt = openai(\"gpt-test\") { max_tokens 16 }\n";
}

}  // namespace

TEST_CASE("a byte that is not UTF-8 in a data cell is an error at its line and column, before anything is sent") {
  TempDir tmp("bad_utf8_cell");
  tmp.write("seeds.csv", "seed_id,q\ns1,fine\ns2,caf\xE9 au lait?\n");
  const std::string spec = tmp.write("bad.audit", csv_spec());
  for (const std::string command : {"check", "prompts"}) {
    auto r = invoke({command, spec});
    INFO(command << ": " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("seeds.csv:3:7: error: invalid UTF-8 (byte 0xE9) in data file 'seeds.csv'") != std::string::npos);
  }
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  auto run = invoke({"run", spec, "--store", tmp.path("store")}, server.base_url());
  CHECK(run.code == 1);
  CHECK(server.stats().requests == 0);
  server.stop();
}

TEST_CASE("a system prompt file that is not UTF-8 is reported by check; run pays for nothing") {
  TempDir tmp("bad_utf8_system");
  tmp.write("seeds.csv", "seed_id,q\ns1,one?\ns2,two?\n");
  tmp.write("system.txt", "You are careful.\nBe \xFF kind.\n");
  const std::string spec = tmp.write("bad.audit", csv_spec("arm careful { system file(\"system.txt\") }\n"));
  auto check = invoke({"check", spec});
  INFO(check.err);
  CHECK(check.code == 1);
  CHECK(check.err.find("system.txt:2:4: error: invalid UTF-8 (byte 0xFF) in system prompt file 'system.txt'") !=
        std::string::npos);
  CHECK(check.err.find("Be ? kind.") != std::string::npos);  // the line shown, without the raw byte
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  auto run = invoke({"run", spec, "--store", tmp.path("store")}, server.base_url());
  CHECK(run.code == 1);
  CHECK(server.stats().requests == 0);
  server.stop();
}

TEST_CASE("nesting deep enough to exhaust the stack is an error, not a segfault") {
  TempDir tmp("deep");
  tmp.write("seeds.csv", "seed_id,q\ns1,one?\n");
  std::string deep = std::string(10000, '(') + "seed.question" + std::string(10000, ')');
  std::string spec_text = csv_spec();
  spec_text.replace(spec_text.find("text seed.question"), 18, "text " + deep);
  auto expr = invoke({"check", tmp.write("deep.audit", spec_text)});
  INFO(expr.err);
  CHECK(expr.code == 1);
  CHECK(expr.err.find("nested more than 100 levels deep") != std::string::npos);
  std::string negations;
  for (int i = 0; i < 10000; ++i) negations += "- ";
  auto unary = invoke({"check", tmp.write("neg.audit", "audit neg { title \"x\" }\ncontrast c = " + negations + "1\n")});
  CHECK(unary.code == 1);
  CHECK(unary.err.find("nested more than 100 levels deep") != std::string::npos);

  tmp.write("seeds.jsonl", "{\"seed_id\": \"s1\", \"q\": " + std::string(100000, '[') + std::string(100000, ']') + "}\n");
  std::string jsonl_spec = csv_spec();
  jsonl_spec.replace(jsonl_spec.find("csv(\"seeds.csv\")"), 16, "jsonl(\"seeds.jsonl\")");
  auto json = invoke({"check", tmp.write("jsonl.audit", jsonl_spec)});
  INFO(json.err);
  CHECK(json.code == 1);
  CHECK(json.err.find("seeds.jsonl:1:") != std::string::npos);
  CHECK(json.err.find("JSON nested more than 200 levels deep") != std::string::npos);
}

TEST_CASE("an empty spec, a header-only spec, a directory and `use` of a directory are errors; a BOM is not") {
  TempDir tmp("empty_specs");
  auto empty = invoke({"check", tmp.write("empty.audit", "")});
  CHECK(empty.code == 1);
  CHECK(empty.err.find("empty.audit:1:1: error: the spec declares no prompt, so there is nothing to send; it lacks "
                       "'seeds', a 'prompt { id ... text ... }', a 'model'") != std::string::npos);
  auto header = invoke({"check", tmp.write("header.audit", "audit only { title \"just a header\" }\n")});
  CHECK(header.code == 1);
  CHECK(header.err.find("header.audit:1:1: error: the spec declares no prompt, so there is nothing to send; it lacks "
                        "'seeds', a 'prompt") != std::string::npos);
  auto dir = invoke({"check", tmp.dir.string()});
  CHECK(dir.code == 1);
  CHECK(dir.err.find("cannot read spec file: it is a directory") != std::string::npos);
  std::filesystem::create_directories(tmp.dir / "lib");
  auto use_dir = invoke({"check", tmp.write("use.audit", "use \"lib\"\n" + csv_spec())});
  INFO(use_dir.err);
  CHECK(use_dir.code == 1);
  CHECK(use_dir.err.find("lib': it is a directory") != std::string::npos);

  tmp.write("seeds.csv", "seed_id,q\ns1,one?\n");
  auto bom = invoke({"check", tmp.write("bom.audit", "\xEF\xBB\xBF" + csv_spec())});
  INFO(bom.err);
  CHECK(bom.code == 0);
  CHECK(bom.out.find("ok (1 seeds, 1 prompts, 1 requests)") != std::string::npos);
}

TEST_CASE("a FIFO or a device given as a data file is refused at once") {
  TempDir tmp("fifo");
  REQUIRE(mkfifo(tmp.path("seeds.csv").c_str(), 0600) == 0);
  auto fifo = invoke({"check", tmp.write("fifo.audit", csv_spec())});
  INFO(fifo.err);
  CHECK(fifo.code == 1);
  CHECK(fifo.err.find("cannot read data file") != std::string::npos);
  CHECK(fifo.err.find("it is not a regular file") != std::string::npos);
  std::string device = csv_spec();
  device.replace(device.find("csv(\"seeds.csv\")"), 16, "csv(\"/dev/zero\")");
  auto zero = invoke({"check", tmp.write("device.audit", device)});
  CHECK(zero.code == 1);
  CHECK(zero.err.find("it is not a regular file") != std::string::npos);
}

TEST_CASE("mirac prompts -o on a full disk fails instead of leaving an empty file") {
  TempDir tmp("full_disk");
  tmp.write("seeds.csv", "seed_id,q\ns1,one?\n");
  auto full = invoke({"prompts", tmp.write("p.audit", csv_spec()), "-o", "/dev/full"});
  CHECK(full.code == 2);
  CHECK(full.err.find("/dev/full: error: write failed") != std::string::npos);
}

TEST_CASE("a pilot whose subset lacks a factor level skips the analysis that needs it and exits 0") {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = (std::filesystem::path(root) / "examples/otc/otc.audit").string();
  TempDir tmp("pilot");
  auto limit = invoke({"run", spec, "--offline", "--store", tmp.path("limit"), "--limit", "3"});
  INFO(limit.out << limit.err);
  CHECK(limit.code == 0);
  CHECK(limit.err.find("errors in the spec") == std::string::npos);
  CHECK(limit.err.find("skipped") != std::string::npos);
  auto only = invoke({"run", spec, "--offline", "--store", tmp.path("only"), "--only", "model=mini"});
  INFO(only.out << only.err);
  CHECK(only.code == 0);
}
