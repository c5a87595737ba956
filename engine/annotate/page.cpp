// page.cpp: the annotation page of `mirac annotate sample`: one self-contained HTML file
// (no network, no external file) that shows one answer at a time with its prompt, the
// seed's checklist and the rubric's anchors, takes a score per dimension (N/A where the
// rubric allows it) and a comment, keeps the work in the browser's storage, and saves the
// annotation sheet as CSV for `mirac annotate import`.
#include <string>

#include "engine/annotate/sample.hpp"
#include "runtime/text/html_escape.hpp"

namespace mirac {

namespace {

constexpr const char* kStyle = R"css(
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d2228; background: #f6f7f9; }
#simulated-banner { background: #b00020; color: #fff; padding: 8px 18px; font-weight: bold; text-align: center; }
header { background: #1d2f45; color: #fff; padding: 10px 18px; display: flex; gap: 18px; align-items: center; flex-wrap: wrap; }
header h1 { font-size: 17px; margin: 0; font-weight: 600; }
header .progress { margin-left: auto; }
main { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 18px; padding: 18px; }
section { background: #fff; border: 1px solid #d8dde3; border-radius: 6px; padding: 12px 16px; }
h2 { font-size: 14px; text-transform: uppercase; letter-spacing: .04em; color: #56606b; margin: 8px 0; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.dim { border-top: 1px solid #e4e7eb; padding: 10px 0; }
.dim h3 { margin: 0 0 4px; font-size: 15px; }
.describe { color: #56606b; margin: 0 0 6px; }
.anchors { margin: 0 0 8px; padding-left: 18px; color: #3b444e; font-size: 13px; }
.scores button { min-width: 40px; margin: 0 4px 4px 0; padding: 5px 8px; border: 1px solid #9aa5b1; background: #fff; border-radius: 4px; cursor: pointer; font: inherit; }
.scores button.chosen { background: #1d5fa8; color: #fff; border-color: #1d5fa8; }
textarea { width: 100%; box-sizing: border-box; font: inherit; }
nav { display: flex; gap: 8px; padding: 0 18px 18px; align-items: center; flex-wrap: wrap; }
nav button { padding: 6px 14px; font: inherit; }
dl { margin: 0; } dt { font-weight: 600; } dd { margin: 0 0 6px 0; }
.done { color: #1b7a3a; } .todo { color: #a33b1f; }
#csv-output { height: 90px; font: 12px monospace; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
)css";

// The page's behaviour. Scores are kept per answer id in localStorage (when the browser
// allows it for files), so closing the tab loses nothing; "Save CSV" downloads the sheet
// and also shows it in a text box to copy from.
constexpr const char* kScript = R"js(
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('annotation-data').textContent);
  const storeKey = 'mirac-annotation:' + data.spec + ':' + data.items.length + ':' + (data.items[0] ? data.items[0].id : '');
  let scores = {};
  try { scores = JSON.parse(window.localStorage.getItem(storeKey) || '{}'); } catch (e) { scores = {}; }
  let current = 0;
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const entry = (id) => (scores[id] = scores[id] || {});
  const keep = () => { try { window.localStorage.setItem(storeKey, JSON.stringify(scores)); } catch (e) { /* private mode */ } };
  const complete = (item) => data.dims.every((d) => entry(item.id)[d.name] !== undefined && entry(item.id)[d.name] !== '');
  const values = () => { const v = []; for (let s = data.scale[0]; s <= data.scale[1]; ++s) v.push(String(s)); return v; };

  function renderChecklist(box, checklist) {
    box.replaceChildren();
    if (!checklist) { box.append(el('p', {}, 'No checklist for this seed.')); return; }
    const dl = el('dl');
    for (const [k, v] of Object.entries(checklist)) {
      dl.append(el('dt', {}, k));
      if (Array.isArray(v)) { const ul = el('ul'); v.forEach((x) => ul.append(el('li', {}, String(x)))); const dd = el('dd'); dd.append(ul); dl.append(dd); }
      else dl.append(el('dd', {}, typeof v === 'string' ? v : JSON.stringify(v)));
    }
    box.append(dl);
  }

  function render() {
    const item = data.items[current];
    document.getElementById('position').textContent = 'Answer ' + (current + 1) + ' of ' + data.items.length;
    const done = data.items.filter(complete).length;
    const progress = document.getElementById('progress');
    progress.textContent = done + ' of ' + data.items.length + ' complete';
    progress.className = 'progress ' + (done === data.items.length ? 'done' : 'todo');
    document.getElementById('prompt').textContent = item.prompt;
    document.getElementById('answer').textContent = item.answer;
    renderChecklist(document.getElementById('checklist'), item.checklist);
    const dims = document.getElementById('dims');
    dims.replaceChildren();
    for (const d of data.dims) {
      const box = el('div', { class: 'dim' });
      box.append(el('h3', {}, d.name + ' ' + d.title));
      if (d.describe) box.append(el('p', { class: 'describe' }, d.describe));
      if (d.anchors.length) {
        const ul = el('ul', { class: 'anchors' });
        d.anchors.forEach((a) => ul.append(el('li', {}, a.score + ' ' + a.label + (a.text ? ': ' + a.text : ''))));
        box.append(ul);
      }
      const row = el('div', { class: 'scores', role: 'group', 'aria-label': d.name });
      for (const v of values().concat(d.na ? ['N/A'] : [])) {
        const b = el('button', { type: 'button', 'data-dim': d.name, 'data-value': v }, v);
        if (entry(item.id)[d.name] === v) b.className = 'chosen';
        b.addEventListener('click', () => { entry(item.id)[d.name] = v; keep(); render(); });
        row.append(b);
      }
      box.append(row);
      dims.append(box);
    }
    const comment = document.getElementById('comment');
    comment.value = entry(item.id).comment || '';
    document.getElementById('previous').disabled = current === 0;
    document.getElementById('next').disabled = current === data.items.length - 1;
  }

  // Cells as runtime/text/csv_cells.cpp writes them: a text a spreadsheet would run as a
  // formula (=, +, -, @, tab or CR first, after any ') gets one ' in front and is quoted,
  // and `mirac annotate import` takes it off again; a plain number (a score) stays as is.
  const plainNumber = (s) => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s);
  const quote = (s) => '"' + s.replace(/"/g, '""') + '"';
  const cell = (s) => {
    if (!plainNumber(s) && /^'*[=+\-@\t\r]/.test(s)) return quote("'" + s);
    return /[",\r\n]/.test(s) ? quote(s) : s;
  };
  function sheet() {
    const lines = [['item', 'id', 'prompt_id'].concat(data.dims.map((d) => d.name), ['comment']).map(cell).join(',')];
    for (const item of data.items) {
      const e = entry(item.id);
      const row = [String(item.item), item.id, item.prompt_id].concat(data.dims.map((d) => e[d.name] || ''), [e.comment || '']);
      lines.push(row.map(cell).join(','));
    }
    return lines.join('\n') + '\n';
  }

  document.getElementById('comment').addEventListener('input', (ev) => { entry(data.items[current].id).comment = ev.target.value; keep(); });
  document.getElementById('previous').addEventListener('click', () => { if (current > 0) { --current; render(); } });
  document.getElementById('next').addEventListener('click', () => { if (current < data.items.length - 1) { ++current; render(); } });
  document.getElementById('save').addEventListener('click', () => {
    const text = sheet();
    const out = document.getElementById('csv-output');
    out.textContent = text;
    out.value = text;
    const link = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: data.spec + '-annotations.csv' });
    document.body.append(link);
    link.click();
    link.remove();
  });
  if (data.items.length) render();
  else document.getElementById('position').textContent = 'The sample is empty.';
})();
)js";

}  // namespace

std::string annotation_page(const nlohmann::ordered_json& data) {
  const std::string title = "Annotate " + data.value("spec", std::string("audit"));
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                     html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  if (data.value("simulated", false))
    html += "<div id=\"simulated-banner\" role=\"alert\">Simulated answers: mirac's offline provider wrote every "
            "answer below. Nothing here is a finding about any real model.</div>\n";
  html += "<header><h1>" + html_escape(title) +
          "</h1><span id=\"position\"></span><span id=\"progress\" class=\"progress\"></span></header>\n"
          "<main>\n<div>\n<section><h2>Prompt</h2><div id=\"prompt\" class=\"text\"></div></section>\n"
          "<section><h2>Answer</h2><div id=\"answer\" class=\"text\"></div></section>\n"
          "<section><h2>Checklist</h2><div id=\"checklist\"></div></section>\n</div>\n"
          "<div>\n<section><h2>Scores</h2><div id=\"dims\"></div>\n<h2>Comment</h2>"
          "<textarea id=\"comment\" rows=\"3\"></textarea></section>\n</div>\n</main>\n"
          "<nav><button id=\"previous\" type=\"button\">Previous</button><button id=\"next\" type=\"button\">Next</button>"
          "<button id=\"save\" type=\"button\">Save CSV</button>"
          "<textarea id=\"csv-output\" readonly aria-label=\"saved CSV\"></textarea></nav>\n";
  // The answers, prompts and checklists are untrusted: as JSON escaped for a <script>
  // element, so that no `<!--`, `<script` or `</script>` in them can end the data block.
  const std::string json = data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  html += "<script type=\"application/json\" id=\"annotation-data\">" + script_json(json) + "</script>\n";
  html += std::string("<script>") + kScript + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace mirac
