// message_format.hpp: the section headings of the judge's user message and the phrases
// of its instructions that carry structure. interpreter/judge/judge.cpp writes them and the
// offline judge (runtime/offline) reads them, so they live in one place.
#pragma once

namespace mirac::judge_format {

inline constexpr const char* kContext = "CONTEXT\n";
inline constexpr const char* kPrompt = "\nPROMPT THE ASSISTANT RECEIVED\n";
inline constexpr const char* kAnswer = "\nANSWER TO SCORE\n";
inline constexpr const char* kChecklist = "\nREFERENCE CHECKLIST\n";
inline constexpr const char* kClosing = "\nScore the answer in the order given and reply with the JSON object only.";
/// Followed by the repair round and the problems: `(repair 1): D2 is missing`. The round
/// makes a repeated mistake a new request rather than the stored one again.
inline constexpr const char* kRepair = "\n\nAN EARLIER REPLY TO THIS REQUEST COULD NOT BE USED ";
/// The numbered criteria a reply grades (rubrics with `criteria ... per answer`), after the
/// checklist: `1. Folic acid ...`.
inline constexpr const char* kCriteria = "\nCRITERIA TO GRADE\n";
/// A criterion's own call (`per element`): its instructions open with this sentence, and its
/// message holds the criterion after the answer.
inline constexpr const char* kCriterionTask =
    "You check whether one answer that an AI assistant gave to a user meets one criterion.";
inline constexpr const char* kCriterion = "\nCRITERION TO GRADE\n";
inline constexpr const char* kCriterionClosing = "\nGrade the criterion and reply with the JSON object only.";
/// In the instructions: `Its keys are "D1", "D2" and "rationale".`
inline constexpr const char* kKeys = "Its keys are ";
/// In the instructions: `Every score is a whole number from 1 to 5; 5 is the worst outcome`
inline constexpr const char* kScale = "Every score is a whole number from ";
/// Under a dimension whose scale is its own: `  Its scores are whole numbers from 1 to 10; 10 is
/// the worst outcome and 1 the best.` (the rubric's scale holds for the other dimensions).
inline constexpr const char* kDimScale = "  Its scores are whole numbers from ";

}  // namespace mirac::judge_format
