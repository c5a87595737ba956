// placeholder.cpp: the offline answer of a spec that declares its truth (a simulate
// block): one sentence, in the prompt's own script, saying that no model was asked. It
// claims no content, so nobody reads it as an answer, and names the model and the system
// prompt so that two models' (or arms') answers to one prompt are different texts, judged
// apart.
#include <cctype>
#include <cstdint>
#include <map>

#include <fmt/format.h>

#include "runtime/offline/offline_model.hpp"
#include "runtime/text/utf8.hpp"

namespace mirac {

namespace {

enum class Script { latin, han, kana, hangul, cyrillic, arabic, greek, hebrew, thai, devanagari };

Script script_of(char32_t c) {
  if (c >= 0x3040 && c <= 0x30FF) return Script::kana;
  if ((c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF)) return Script::han;
  if ((c >= 0xAC00 && c <= 0xD7AF) || (c >= 0x1100 && c <= 0x11FF)) return Script::hangul;
  if (c >= 0x0400 && c <= 0x04FF) return Script::cyrillic;
  if (c >= 0x0600 && c <= 0x06FF) return Script::arabic;
  if (c >= 0x0370 && c <= 0x03FF) return Script::greek;
  if (c >= 0x0590 && c <= 0x05FF) return Script::hebrew;
  if (c >= 0x0E00 && c <= 0x0E7F) return Script::thai;
  if (c >= 0x0900 && c <= 0x097F) return Script::devanagari;
  return Script::latin;
}

bool is_letter_like(char32_t c) { return c > 0x7F ? c != 0xFFFD && !(c >= 0x3000 && c <= 0x303F) && !(c >= 0xFF00 && c <= 0xFF65) : std::isalpha(static_cast<int>(c)) != 0; }

// The prompt's main script. Japanese mixes kanji with kana, so any kana makes it Japanese.
Script main_script(const std::string& text) {
  std::map<Script, std::size_t> count;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = next_code_point(text, i);
    if (is_letter_like(c)) ++count[script_of(c)];
  }
  if (count[Script::kana] > 0) return Script::kana;
  Script best = Script::latin;
  std::size_t most = 0;
  for (const auto& [s, n] : count)
    if (n > most) best = s, most = n;
  return best;
}

const char* sentence(Script s) {
  switch (s) {
    case Script::han: return "模拟回答（mirac 离线运行）：没有询问任何语言模型，这里没有回答内容。";
    case Script::kana: return "シミュレーションの回答（mirac オフライン実行）：言語モデルには何も尋ねておらず、回答の内容はありません。";
    case Script::hangul: return "시뮬레이션 답변(mirac 오프라인 실행): 어떤 언어 모델에도 묻지 않았으며 답변 내용은 없습니다.";
    case Script::cyrillic: return "Смоделированный ответ (mirac, офлайн): ни одна языковая модель не спрашивалась, содержания ответа нет.";
    case Script::arabic: return "إجابة محاكاة (mirac دون اتصال): لم يُسأل أي نموذج لغوي، ولا يوجد محتوى للإجابة.";
    case Script::greek: return "Προσομοιωμένη απάντηση (mirac εκτός σύνδεσης): δεν ρωτήθηκε κανένα γλωσσικό μοντέλο· δεν υπάρχει περιεχόμενο απάντησης.";
    case Script::hebrew: return "תשובה מדומה (mirac במצב לא מקוון): אף מודל שפה לא נשאל, ואין כאן תוכן של תשובה.";
    case Script::thai: return "คำตอบจำลอง (mirac แบบออฟไลน์): ไม่ได้ถามโมเดลภาษาใด ๆ และไม่มีเนื้อหาคำตอบ";
    case Script::devanagari: return "सिम्युलेटेड उत्तर (mirac ऑफ़लाइन): किसी भाषा मॉडल से नहीं पूछा गया, इसमें उत्तर की कोई सामग्री नहीं है।";
    case Script::latin: break;
  }
  return "Simulated answer (mirac offline run): no language model was asked, and there is no answer content here.";
}

std::uint32_t digest(const std::string& text) {
  std::uint32_t h = 2166136261u;  // FNV-1a, 32 bits
  for (unsigned char c : text) h = (h ^ c) * 16777619u;
  return h;
}

}  // namespace

std::string placeholder_answer(const std::string& model, const std::string* system, const std::string& user,
                               int answer) {
  std::string arm = system ? fmt::format("system prompt {:08x}", digest(*system)) : "no system prompt";
  if (answer > 0) arm += fmt::format(" · answer {}", answer + 1);
  return fmt::format("{} [{} · {}]", sentence(main_script(user)), model, arm);
}

}  // namespace mirac
