// bodies_test.cpp: encoding a stored body and back, byte for byte, whatever the body holds.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "runtime/store/bodies.hpp"

using namespace mirac;

namespace {

// Encodes, checks the parts are what the body refers to, decodes, and gives the result.
std::string round_trip(const std::string& body, const BodyTexts& texts, const PartSizes& sizes, EncodedBody& encoded) {
  encoded = encode_body(body, texts, sizes);
  if (!encoded.encoded) return encoded.body;  // stored verbatim, read back as it is
  std::map<std::string, std::string> parts(encoded.parts.begin(), encoded.parts.end());
  std::string out;
  REQUIRE(decode_body(encoded.body, texts,
                      [&](const std::string& id, std::string& literal) {
                        auto it = parts.find(id);
                        if (it == parts.end()) return false;
                        literal = it->second;
                        return true;
                      },
                      out));
  return out;
}

}  // namespace

TEST_CASE("bodies: a quoted answer inside a message becomes a reference, the pieces around it shared parts") {
  const std::string answer = "Take \"two\" tablets\n\tdaily \\ 每天两次";
  const std::string before = std::string(300, 'b'), after = std::string(300, 'a');
  const std::string body = R"({"user":")" + before + R"(Take \"two\" tablets\n\tdaily \\ 每天两次)" + after +
                           R"(","again":"Take \"two\" tablets\n\tdaily \\ 每天两次"})";
  EncodedBody e;
  CHECK(round_trip(body, BodyTexts{{}, answer}, PartSizes{1024, 256}, e) == body);
  CHECK(e.encoded);
  CHECK(e.quotes);
  CHECK(e.body.find("tablets") == std::string::npos);  // both occurrences referred to
  CHECK(e.parts.size() == 2);                          // the two long pieces; the short ones stay
  CHECK(e.body.size() < 250);
}

TEST_CASE("bodies: short, absent or unencodable quoted texts leave the body as it was") {
  const std::string body = R"({"user":"a short answer inside","n":1})";
  EncodedBody e;
  CHECK(round_trip(body, BodyTexts{{}, "short"}, PartSizes{1024, 256}, e) == body);
  CHECK_FALSE(e.encoded);
  CHECK(round_trip(body, BodyTexts{{}, "not in the body at all, and long"}, PartSizes{1024, 256}, e) == body);
  CHECK_FALSE(e.encoded);
  const std::string invalid = "bad \xff\xfe utf-8 that is long enough";
  CHECK(round_trip(body, BodyTexts{{}, invalid}, PartSizes{1024, 256}, e) == body);
  CHECK_FALSE(e.quotes);
  // The marker byte in the body: verbatim.
  const std::string marked = std::string("{\"user\":\"x\x01y a short answer inside\"}");
  CHECK(round_trip(marked, BodyTexts{{}, "a short answer inside"}, PartSizes{1024, 256}, e) == marked);
  CHECK_FALSE(e.encoded);
}

TEST_CASE("bodies: the own text, long literals and quoted texts together") {
  const std::string own = "the reply", quoted = "the answer being judged, quoted";
  const std::string body = R"({"content":"the reply","system":")" + std::string(2000, 's') +
                           R"(","user":"judge: the answer being judged, quoted."})";
  EncodedBody e;
  CHECK(round_trip(body, BodyTexts{own, quoted}, PartSizes{1024, 256}, e) == body);
  CHECK(e.encoded);
  CHECK(e.quotes);
  CHECK(e.parts.size() == 1);
}
