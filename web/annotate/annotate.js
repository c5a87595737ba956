// annotate.js: the behaviour of the annotation page (page.html), inlined into it. Scores
// are kept per answer id in localStorage (when the browser allows it for files), so closing
// the tab loses nothing; "Save CSV" downloads the sheet and also shows it in a text box to
// copy from. The data (answers, prompts, checklists: untrusted) is read as JSON from the
// #annotation-data block and only ever set as text.
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
  // A dimension with a scale of its own (`scale 1..10` in it) carries it; the others use the rubric's.
  const values = (d) => { const [lo, hi] = d.scale || data.scale; const v = []; for (let s = lo; s <= hi; ++s) v.push(String(s)); return v; };

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
      for (const v of values(d).concat(d.na ? ['N/A'] : [])) {
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
