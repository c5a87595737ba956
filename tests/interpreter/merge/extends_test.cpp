// extends_test.cpp: where a variant's data is found. Data a declaration names is found from
// the data root of the file that names it: the base's from the spec's data root (--data,
// $MIRAC_DATA, the base's `data` setting relative to the base), the variant's next to the
// variant (or its own `data` setting); on specs and data written by the test.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "interpreter/driver.hpp"

namespace fs = std::filesystem;

namespace {

struct Dirs {
  fs::path root;
  Dirs() : root(fs::temp_directory_path() / ("mirac_extends_unit_" + std::to_string(::getpid()))) {
    fs::remove_all(root);
  }
  ~Dirs() { fs::remove_all(root); }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::create_directories((root / name).parent_path());
    std::ofstream(root / name, std::ios::binary) << text;
    return root / name;
  }
};

const char* kBase = R"(audit base {
  data "data"
}

use stdlib.providers

factor language { zh en }

seeds from csv("seeds.csv") {
  id = seed_id
  question.zh = zh
  question.en = en
}

prompt {
  id "{seed.id}_{language}"
  text seed.question
}

model gpt = openai("gpt-test")
)";

const char* kVariant = R"(audit variant extends "../base/base.audit" {}

extend factor language { ja }

extend seeds join csv("ja.csv") on seed_id {
  question.ja = ja
}
)";

std::string printed(const mirac::Compilation& c) {
  std::ostringstream out;
  c.diags.print(out, c.sources);
  return out.str();
}

std::string prompt_text(const mirac::Compilation& c, const std::string& id) {
  for (const auto& p : c.plan.prompts)
    if (p.id == id) return p.text;
  return "";
}

}  // namespace

TEST_CASE("a variant's data is found next to it, its base's from the base's data root") {
  Dirs d;
  d.write("base/base.audit", kBase);
  d.write("base/data/seeds.csv", "seed_id,zh,en\ns1,问题,Question\n");
  d.write("variant/ja.csv", "seed_id,ja\ns1,質問\n");
  auto v = d.write("variant/v.audit", kVariant);
  auto c = mirac::compile(v, {});
  INFO(printed(*c));
  REQUIRE(c->ok());
  CHECK(c->plan.prompts.size() == 3);
  CHECK(prompt_text(*c, "s1_en") == "Question");
  CHECK(prompt_text(*c, "s1_ja") == "質問");

  // --data moves the base's data, not the variant's own.
  d.write("elsewhere/seeds.csv", "seed_id,zh,en\ns1,别处,Elsewhere\n");
  mirac::CheckOptions options;
  options.data_root = d.root / "elsewhere";
  auto moved = mirac::compile(v, options);
  INFO(printed(*moved));
  REQUIRE(moved->ok());
  CHECK(prompt_text(*moved, "s1_en") == "Elsewhere");
  CHECK(prompt_text(*moved, "s1_ja") == "質問");
}

TEST_CASE("a variant's own data setting, and its data errors at its own files") {
  Dirs d;
  d.write("base/base.audit", kBase);
  d.write("base/data/seeds.csv", "seed_id,zh,en\ns1,问题,Question\ns2,问题二,Question two\n");
  std::string variant = kVariant;
  variant.replace(variant.find("{}"), 2, "{\n  data \"texts\"\n}");
  d.write("variant/texts/ja.csv", "seed_id,ja\ns1,質問\n");  // s2 is missing
  auto c = mirac::compile(d.write("variant/v.audit", variant), {});
  const std::string diags = printed(*c);
  CHECK_FALSE(c->ok());
  // Both files were found (the variant's `data` is its own, the base keeps reading base/data);
  // the missing row is the one error.
  CHECK(diags.find("cannot read") == std::string::npos);
  CHECK(diags.find("error: seed 's2' has no row in 'ja.csv'") != std::string::npos);
  CHECK(c->diags.error_count() == 1);
}

TEST_CASE("the merged spec (fmt --show=merged) compiles to the variant's very requests") {
  Dirs d;
  d.write("base.audit", R"(audit base {}

use stdlib.providers

factor language { zh en }
factor hls { high low }

seeds {
  seed s1 {
    question.zh = "问题"
    question.en = "Question"
  }
}

text hls {
  high ""
  low { zh "简单地说，" en "Simply put, " }
}

prompt {
  id "{seed.id}_{language}_{hls}"
  text hls.text ++ seed.question
}

model gpt = openai("gpt-test") { temperature 0 }
model other = openai("gpt-other")
)");
  auto v = d.write("v.audit", R"(audit v extends "base.audit" {}

extend factor language { ja }

extend seeds {
  seed s1 {
    question.ja = "質問"
  }
}

extend text hls {
  low { ja "簡単に言うと、" }
}

extend model gpt { max_tokens 512 }
remove model other
model mini = openai("gpt-mini")
)");
  mirac::Compilation loaded;
  mirac::load_merged(v, loaded);
  REQUIRE(loaded.ok());
  const std::string merged = mirac::format_merged(loaded.modules, loaded.chain, loaded.merged, loaded.sources);
  CHECK(merged.find("extends \"") == std::string::npos);  // one spec, no base left
  auto from_variant = mirac::compile(v, {});
  auto from_merged = mirac::compile(d.write("merged.audit", merged), {});
  INFO(printed(*from_variant) << printed(*from_merged) << merged);
  REQUIRE(from_variant->ok());
  REQUIRE(from_merged->ok());
  REQUIRE(from_variant->plan.requests.size() == 12);  // 1 seed x 6 cells x 2 models
  REQUIRE(from_merged->plan.requests.size() == from_variant->plan.requests.size());
  for (std::size_t i = 0; i < from_variant->plan.requests.size(); ++i)
    CHECK(from_merged->plan.requests[i].hash() == from_variant->plan.requests[i].hash());
  CHECK(prompt_text(*from_variant, "s1_ja_low") == "簡単に言うと、質問");
}
