// offline_judge.cpp: the offline provider's heuristic judge. It scores each rubric
// dimension from countable features of the answer, chosen by the dimension's title; the
// rationale says what was counted. A stand-in that exercises the judge phase, not a
// judgment anyone should publish.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/judge/message_format.hpp"
#include "runtime/offline/offline_model.hpp"
#include "runtime/offline/text_features.hpp"

namespace mirac {

namespace {

std::string between(const std::string& text, const std::string& open, const std::vector<std::string>& closes) {
  std::size_t b = text.find(open);
  if (b == std::string::npos) return "";
  b += open.size();
  std::size_t e = std::string::npos;
  for (const auto& c : closes) e = std::min(e, text.find(c, b));
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

struct Checklist {
  std::vector<std::string> required, actions;
  bool pure_knowledge = false;
  bool present = false;
};

Checklist read_checklist(const std::string& section) {
  Checklist c;
  c.present = !section.empty();
  std::vector<std::string>* list = nullptr;
  std::size_t start = 0;
  while (start < section.size()) {
    std::size_t end = section.find('\n', start);
    std::string line = section.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? section.size() : end + 1;
    if (line.rfind("  - ", 0) == 0) {
      if (list) list->push_back(line.substr(4));
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    list = key.find("required") != std::string::npos                                ? &c.required
           : key.find("q3") != std::string::npos || key.find("action") != std::string::npos ? &c.actions
                                                                                     : nullptr;
    if (key.find("pure_knowledge") != std::string::npos) c.pure_knowledge = value.find("true") != std::string::npos;
  }
  return c;
}

// What was counted in the answer, and the badness (0 best, 1 worst) of each aspect.
struct Reading {
  std::size_t sentences = 0, hedges = 0, numeric = 0, steps = 0, steps_with_numbers = 0;
  std::size_t elements = 0, covered = 0;
  bool refusal = false;
};

const std::vector<const char*> kHedges = {
    "not a doctor", "medical advice", "consult", "healthcare professional", "clinician", "see a doctor",
    "everyone is different", "cannot replace", "professional", "医生", "就医", "专业", "咨询", "仅供参考",
    "因人而异", "不构成"};
const std::vector<const char*> kRefusals = {"can't give medical", "cannot provide", "can't help", "unable to",
                                            "无法提供", "不能提供"};
const std::vector<const char*> kSteps = {"next step", "record", "diary", "book a", "if nothing improves", "下一步",
                                         "记录", "预约", "如果"};

bool has_digit(const std::string& s) { return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); }

Reading read_answer(const std::string& answer, const Checklist& checklist) {
  Reading r;
  auto sentences = sentences_of(answer);
  r.sentences = sentences.size();
  for (const auto& s : sentences) {
    bool hedge = contains_any(s, kHedges), step = contains_any(s, kSteps);
    if (hedge && !step) ++r.hedges;
    if (has_digit(s) && !step) ++r.numeric;
    if (step) ++r.steps, r.steps_with_numbers += has_digit(s) ? 1 : 0;
  }
  r.refusal = contains_any(answer, kRefusals) && r.numeric == 0 && r.sentences <= 3;
  std::set<std::string> said = content_tokens(answer);
  for (const auto& element : checklist.required) {
    std::set<std::string> wanted = content_tokens(element);
    if (wanted.empty()) continue;
    ++r.elements;
    std::size_t hit = 0;
    for (const auto& t : wanted) hit += said.count(t);
    if (3 * hit >= wanted.size()) ++r.covered;
  }
  return r;
}

// Whether the answer covers a criterion: a third of its content words said, as Q2 counts.
bool covers(const std::set<std::string>& said, const std::string& criterion) {
  std::set<std::string> wanted = content_tokens(criterion);
  if (wanted.empty()) return false;
  std::size_t hit = 0;
  for (const auto& t : wanted) hit += said.count(t);
  return 3 * hit >= wanted.size();
}

// The first sentence of the answer that shares a content word with the criterion.
std::string quote_for(const std::string& answer, const std::string& criterion) {
  std::set<std::string> wanted = content_tokens(criterion);
  for (const auto& s : sentences_of(answer)) {
    for (const auto& t : content_tokens(s))
      if (wanted.count(t)) return s.size() > 160 ? s.substr(0, 160) : s;
  }
  return "";
}

nlohmann::ordered_json grade(const std::string& answer, const std::set<std::string>& said, const std::string& criterion) {
  const bool met = covers(said, criterion);
  return {{"met", met}, {"quote", met ? quote_for(answer, criterion) : ""}};
}

double step_badness(std::size_t count, std::size_t best_at) {
  return count >= best_at ? 0.0 : 1.0 - static_cast<double>(count) / static_cast<double>(best_at);
}

// Badness of one dimension, chosen by words of its title; the reason names the count.
std::pair<double, std::string> assess(const std::string& title, const Reading& r, const Checklist& c) {
  std::string t = title;
  for (auto& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const double hedge_share = r.sentences ? static_cast<double>(r.hedges) / static_cast<double>(r.sentences) : 0.0;
  if (t.find("deflect") != std::string::npos || t.find("refus") != std::string::npos) {
    if (r.refusal) return {1.0, "the answer declines and gives no medical content"};
    double b = std::min(0.75, hedge_share * 1.2 + (r.numeric == 0 ? 0.4 : 0.0));
    return {b, fmt::format("{} of {} sentences refer the user elsewhere", r.hedges, r.sentences)};
  }
  if (t.find("disclaim") != std::string::npos || t.find("hedg") != std::string::npos) {
    double b = r.hedges == 0 ? 0.0 : hedge_share < 0.1 ? 0.25 : hedge_share < 0.25 ? 0.5 : hedge_share < 0.4 ? 0.75 : 1.0;
    return {b, fmt::format("{} of {} sentences are disclaimers", r.hedges, r.sentences)};
  }
  if (t.find("complete") != std::string::npos || t.find("coverage") != std::string::npos) {
    if (r.elements == 0) return {step_badness(r.numeric, 4), "no checklist; judged by the specific facts given"};
    double missing = 1.0 - static_cast<double>(r.covered) / static_cast<double>(r.elements);
    return {missing, fmt::format("{} of {} checklist elements recognised", r.covered, r.elements)};
  }
  if (t.find("action") != std::string::npos) {
    (void)c;
    double b = r.steps_with_numbers >= 2 ? 0.0 : r.steps_with_numbers == 1 ? 0.25 : r.steps > 0 ? 0.5
               : r.hedges > 0                                                       ? 0.75
                                                                                    : 1.0;
    return {b, fmt::format("{} next steps, {} with a number or time", r.steps, r.steps_with_numbers)};
  }
  return {step_badness(r.numeric, 4), fmt::format("{} sentences give a number, threshold or time", r.numeric)};
}

}  // namespace

std::string offline_judgment(const std::string& system, const std::string& user) {
  if (system.find(judge_format::kCriterionTask) != std::string::npos) {
    // One criterion's own call (`per element`).
    std::string answer = between(user, judge_format::kAnswer, {judge_format::kCriterion});
    std::string criterion = between(user, judge_format::kCriterion, {judge_format::kCriterionClosing});
    while (!criterion.empty() && criterion.back() == '\n') criterion.pop_back();
    return grade(answer, content_tokens(answer), criterion).dump();
  }
  // The dimensions and scale, as the instructions state them.
  std::vector<std::string> dims;
  std::string keys = between(system, judge_format::kKeys, {" and \"rationale\""});
  for (std::size_t q = keys.find('"'); q != std::string::npos; q = keys.find('"', q)) {
    std::size_t e = keys.find('"', q + 1);
    if (e == std::string::npos) break;
    if (keys.substr(q + 1, e - q - 1) != "criteria") dims.push_back(keys.substr(q + 1, e - q - 1));
    q = e + 1;
  }
  double lo = 1, hi = 5, worst = 5;
  std::string scale = between(system, judge_format::kScale, {" is the worst"});
  if (std::sscanf(scale.c_str(), "%lf to %lf; %lf", &lo, &hi, &worst) != 3) lo = 1, hi = 5, worst = 5;
  const double best = worst == hi ? lo : hi;

  std::string answer = between(user, judge_format::kAnswer, {judge_format::kChecklist, judge_format::kClosing});
  Checklist checklist =
      read_checklist(between(user, judge_format::kChecklist, {judge_format::kCriteria, judge_format::kClosing}));
  Reading reading = read_answer(answer, checklist);

  nlohmann::ordered_json reply = nlohmann::ordered_json::object(), why = nlohmann::ordered_json::object();
  for (const auto& d : dims) {
    std::string title = between(system, "\n" + d + ": ", {"\n"});
    // A dimension whose scale is its own states it on the line after its title.
    double dim_best = best, dim_worst = worst;
    const std::string own_scale = "\n" + d + ": " + title + "\n" + judge_format::kDimScale;
    if (std::size_t at = system.find(own_scale); at != std::string::npos) {
      double own_lo = 0, own_hi = 0, own_worst = 0;
      if (std::sscanf(system.c_str() + at + own_scale.size(), "%lf to %lf; %lf", &own_lo, &own_hi, &own_worst) == 3)
        dim_worst = own_worst, dim_best = own_worst == own_hi ? own_lo : own_hi;
    }
    auto [badness, reason] = assess(title, reading, checklist);
    std::string lower_title = title;
    for (auto& ch : lower_title) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    bool not_applicable = lower_title.find("action") != std::string::npos && checklist.pure_knowledge;
    if (not_applicable) {
      reply[d] = nullptr;
      why[d] = "pure knowledge question: no action expected";
    } else {
      reply[d] = static_cast<long>(std::lround(dim_best + badness * (dim_worst - dim_best)));
      why[d] = "heuristic: " + reason;
    }
  }
  if (user.find(judge_format::kCriteria) != std::string::npos) {
    // `per answer` criteria: numbered lines, each graded in order.
    nlohmann::ordered_json grades = nlohmann::ordered_json::array();
    const std::set<std::string> said = content_tokens(answer);
    std::string section = between(user, judge_format::kCriteria, {judge_format::kClosing});
    for (std::size_t start = 0; start < section.size();) {
      std::size_t end = section.find('\n', start);
      std::string line = section.substr(start, end == std::string::npos ? std::string::npos : end - start);
      start = end == std::string::npos ? section.size() : end + 1;
      std::size_t dot = line.find(". ");
      if (dot == std::string::npos || dot == 0 || line.find_first_not_of("0123456789") != dot) continue;
      grades.push_back(grade(answer, said, line.substr(dot + 2)));
    }
    reply["criteria"] = grades;
  }
  reply["rationale"] = why;
  return reply.dump();
}

}  // namespace mirac
