// view.js: the behaviour of the page of `mirac view` (index.html), inlined into it.
// Every text from the store goes into the page through text nodes (the el() helper appends
// strings, which the DOM never parses), never as HTML: answers, prompts, rationales and seed
// fields are untrusted and may hold markup. tests/browser/hostile_text_test.cpp feeds it payloads.
'use strict';
// Errors of the page itself are kept in #page-errors (tests read it), not only in the console.
window.addEventListener('error', (e) => { document.getElementById('page-errors').textContent += 'error: ' + e.message + '\n'; });
window.addEventListener('unhandledrejection', (e) => { document.getElementById('page-errors').textContent += 'rejection: ' + e.reason + '\n'; });

const PAGE = 50, PAIR_PAGE = 10;
const state = { meta: null, view: 'answers', filter: {}, offset: 0, pairOffset: 0, pair: {}, selected: null };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}
const fmt = (v) => v === null || v === undefined ? 'N/A' : (Number.isInteger(v) ? String(v) : v.toFixed(2));

async function api(path) {
  const r = await fetch(path);
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}
function showError(e) { $('error').textContent = e ? String(e.message || e) : ''; }

function select(name, label, options, value, onchange) {
  const s = el('select', { name, id: 'f-' + name, onchange });
  s.append(el('option', { value: '' }, '(any)'));
  for (const o of options) { const opt = el('option', { value: o }, o); if (o === value) opt.selected = true; s.append(opt); }
  return el('label', {}, label, s);
}

function buildFilters() {
  const m = state.meta, f = state.filter, box = $('filters');
  box.replaceChildren();
  const change = (name) => (e) => { setFilter(name, e.target.value); };
  box.append(select('model', 'model', m.models, f.model, change('model')));
  box.append(select('arm', 'arm', m.arms, f.arm, change('arm')));
  for (const fac of m.factors) box.append(select(fac.name, fac.name, fac.levels, f[fac.name], change(fac.name)));
  const seed = el('input', { id: 'f-seed', name: 'seed', placeholder: 'seed id', value: f.seed || '' });
  let timer = null;
  seed.addEventListener('input', (e) => { clearTimeout(timer); timer = setTimeout(() => setFilter('seed', e.target.value), 250); });
  box.append(el('label', {}, 'seed', seed));
  box.append(select('judge', 'judge state', m.judge_states, f.judge, change('judge')));
  box.append(select('status', 'answer', ['done', 'failed', 'missing'], f.status, change('status')));
  box.append(select('flag', 'flag', m.flags.map((x) => x.name), f.flag, change('flag')));
  // The answers a mean of the report averages: those scored on its dimension (N/A aside).
  if (m.dims.length) box.append(select('scored_on', 'scored on', m.dims, f.scored_on, change('scored_on')));
}

function buildPairControls() {
  const m = state.meta, p = state.pair, box = $('pair-controls');
  box.replaceChildren();
  const fac = m.factors.find((x) => x.name === p.factor) || m.factors[0];
  if (!fac) { box.append('This spec has no factors, so there are no pairs.'); return; }
  const levels = fac.levels;
  const set = (k) => (e) => { state.pair[k] = e.target.value; if (k === 'factor') { delete state.pair.a; delete state.pair.b; } state.pairOffset = 0; refresh(); };
  const pick = (name, label, options, value, onchange) => {
    const s = el('select', { id: 'p-' + name, onchange });
    for (const o of options) { const opt = el('option', { value: o }, o); if (o === value) opt.selected = true; s.append(opt); }
    return el('label', {}, label, s);
  };
  box.append(pick('factor', 'pair factor', m.factors.map((x) => x.name), fac.name, set('factor')));
  box.append(pick('a', 'a', levels, p.a || levels[0], set('a')));
  box.append(pick('b', 'b', levels, p.b || levels[1] || levels[0], set('b')));
  const pairFlags = m.flags.filter((x) => x.kind === 'pair').map((x) => x.name);
  const flag = el('select', { id: 'p-flag', onchange: (e) => {
    state.pair.flag = e.target.value; state.pairOffset = 0;
    const pf = m.flags.find((x) => x.name === e.target.value);
    if (pf && pf.pairings.length) Object.assign(state.pair, pf.pairings[0]);
    refresh();
  } });
  flag.append(el('option', { value: '' }, '(all pairs)'));
  for (const n of pairFlags) { const o = el('option', { value: n }, n); if (n === p.flag) o.selected = true; flag.append(o); }
  box.append(el('label', {}, 'pair flag fires', flag));
  box.append(pick('dim', 'dimension', [''].concat(m.dims), p.dim || '', set('dim')));
  const min = el('input', { id: 'p-min', class: 'narrow', placeholder: 'a - b ≥', value: p.min_diff || '' });
  min.addEventListener('change', (e) => { state.pair.min_diff = e.target.value; state.pairOffset = 0; refresh(); });
  box.append(el('label', {}, 'min difference', min));
}

function setFilter(name, value) {
  if (value) state.filter[name] = value; else delete state.filter[name];
  state.offset = 0; state.pairOffset = 0;
  refresh();
}

function query(extra) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(Object.assign({}, state.filter, extra || {}))) if (v !== undefined && v !== '') q.set(k, v);
  return q;
}

function saveUrl() {
  const q = query(state.view === 'pairs' ? Object.assign({ view: 'pairs' }, pairParams()) : {});
  history.replaceState(null, '', q.toString() ? '?' + q : location.pathname);
}

function pairParams() {
  const fac = state.meta.factors.find((x) => x.name === state.pair.factor) || state.meta.factors[0];
  if (!fac) return {};
  const p = { factor: fac.name, a: state.pair.a || fac.levels[0], b: state.pair.b || fac.levels[1] || fac.levels[0] };
  if (state.pair.flag) p.flag = state.pair.flag;
  if (state.pair.dim) p.dim = state.pair.dim;
  if (state.pair.dim && state.pair.min_diff) p.min_diff = state.pair.min_diff;
  return p;
}

async function refresh() {
  saveUrl();
  showError(null);
  try {
    if (state.view === 'answers') await loadAnswers(); else await loadPairs();
  } catch (e) { showError(e); }
}

async function loadAnswers() {
  const q = query({ offset: state.offset, limit: PAGE });
  const page = await api('/api/answers?' + q);
  const m = state.meta;
  const head = el('tr', {}, el('th', {}, '#'), el('th', {}, 'prompt'), el('th', {}, 'model'), el('th', {}, 'arm'));
  for (const f of m.factors) head.append(el('th', {}, f.name));
  head.append(el('th', {}, 'answer'), el('th', {}, 'judge'));
  for (const d of m.dims) head.append(el('th', {}, d));
  head.append(el('th', {}, 'flags'), el('th', {}, 'text'));
  $('answers').tHead.replaceChildren(head);
  const body = $('answers').tBodies[0];
  body.replaceChildren();
  for (const r of page.rows) {
    const tr = el('tr', { 'data-id': r.id, onclick: () => showAnswer(r.id) }, el('td', { class: 'num' }, r.id), el('td', {}, r.prompt_id), el('td', {}, r.model), el('td', {}, r.arm));
    if (r.id === state.selected) tr.className = 'selected';
    for (const f of m.factors) tr.append(el('td', {}, r.levels[f.name]));
    tr.append(el('td', {}, r.status), el('td', {}, r.judge));
    for (const d of m.dims) tr.append(el('td', { class: 'num' }, fmt(r.scores[d])));
    tr.append(el('td', {}, ...r.flags.map((f) => el('span', { class: 'flag' }, f))), el('td', { class: 'snippet' }, el('div', {}, r.snippet)));
    body.append(tr);
  }
  const last = Math.min(page.offset + page.rows.length, page.total);
  $('page-info').textContent = page.total ? `${page.offset + 1}–${last} of ${page.total} answers` : 'no answers match';
  $('prev').disabled = page.offset === 0;
  $('next').disabled = last >= page.total;
}

function scoresTable(a, diff) {
  const t = el('table', { class: 'scores' }, el('thead', {}, el('tr', {}, el('th', {}, 'dimension'), el('th', {}, 'score'), diff ? el('th', {}, 'a − b') : null, el('th', {}, 'rationale'))));
  const body = el('tbody');
  for (const d of state.meta.dims) {
    const dv = diff ? diff[d] : null;
    body.append(el('tr', {}, el('td', {}, d), el('td', { class: 'num' }, fmt(a.scores[d])),
      diff ? el('td', { class: 'num diff ' + (dv > 0 ? 'pos' : dv < 0 ? 'neg' : '') }, fmt(dv)) : null,
      el('td', {}, a.rationales[d] || '')));
  }
  t.append(body);
  return t;
}

function answerBlock(a, diff) {
  const parts = [];
  const levels = Object.entries(a.levels).map(([k, v]) => k + ' ' + v).join(', ');
  parts.push(el('p', {}, el('strong', {}, a.prompt_id), ` · seed ${a.seed} · ${a.model} (${a.model_string}) · arm ${a.arm} · ${levels}`));
  parts.push(el('p', {}, `answer: ${a.status} · judge: ${a.judge}`, a.problem ? ` (${a.problem})` : '', ...a.flags.map((f) => el('span', { class: 'flag' }, f))));
  if (a.system) parts.push(el('h3', {}, 'System prompt'), el('div', { class: 'text system' }, a.system));
  parts.push(el('h3', {}, 'Prompt'), el('div', { class: 'text prompt' }, a.prompt));
  parts.push(el('h3', {}, 'Answer'), el('div', { class: 'text answer' }, a.text || a.cause || '(no answer stored)'));
  if (state.meta.dims.length) parts.push(el('h3', {}, 'Scores'), scoresTable(a, diff));
  if (a.criteria.length) {
    const ul = el('ul', { class: 'criteria' });
    for (const c of a.criteria) ul.append(el('li', { class: c.met ? 'met' : 'unmet' }, (c.met ? '✓ ' : '✗ ') + c.criterion, c.quote ? el('div', { class: 'counts' }, '“' + c.quote + '”') : null));
    parts.push(el('h3', {}, 'Criteria'), ul);
  }
  return parts;
}

async function showAnswer(id) {
  state.selected = id;
  for (const tr of $('answers').tBodies[0].rows) tr.classList.toggle('selected', Number(tr.dataset.id) === id);
  try {
    const a = await api('/api/answer/' + id);
    $('detail').replaceChildren(el('h2', {}, 'Answer ' + id), ...answerBlock(a, null));
  } catch (e) { showError(e); }
}

async function loadPairs() {
  buildPairControls();
  const page = await api('/api/pairs?' + query(Object.assign(pairParams(), { offset: state.pairOffset, limit: PAIR_PAGE })));
  const what = page.flag ? ` on which ${page.flag} fires` : '';
  $('pair-count').textContent = `${page.total} pairs ${page.factor}: ${page.a} vs ${page.b}${what} (of ${page.matched} matched; ${page.unmatched} without a partner, ${page.duplicates} groups with duplicates left out)`;
  const list = $('pair-list');
  list.replaceChildren();
  for (const p of page.pairs) {
    const others = Object.entries(p.a.levels).filter(([k]) => k !== page.factor).map(([k, v]) => k + ' ' + v).join(', ');
    const diffs = state.meta.dims.map((d) => el('span', { class: 'diff ' + (p.diff[d] > 0 ? 'pos' : p.diff[d] < 0 ? 'neg' : '') }, `${d} ${fmt(p.diff[d])}`));
    list.append(el('div', { class: 'pair' },
      el('div', { class: 'pair-head' }, el('strong', {}, `seed ${p.a.seed}`), `${p.a.model} · arm ${p.a.arm}${others ? ' · ' + others : ''}`, el('span', {}, 'a − b: ', ...diffs)),
      el('div', { class: 'pair-sides' },
        el('div', { class: 'side side-a' }, el('h2', {}, `a: ${page.factor} ${page.a}`), ...answerBlock(p.a, p.diff)),
        el('div', { class: 'side side-b' }, el('h2', {}, `b: ${page.factor} ${page.b}`), ...answerBlock(p.b, null)))));
  }
  const last = Math.min(page.offset + page.pairs.length, page.total);
  $('pair-page-info').textContent = page.total ? `${page.offset + 1}–${last} of ${page.total} pairs` : 'no pairs match';
  $('pair-prev').disabled = page.offset === 0;
  $('pair-next').disabled = last >= page.total;
}

// Without a pairing asked for: the chosen pair flag's, else the first pair flag's, so the
// pairs shown are those the spec's author thought worth flagging.
function defaultPairing() {
  if (state.pair.factor) return;
  const pf = state.meta.flags.find((x) => x.kind === 'pair' && (!state.pair.flag || x.name === state.pair.flag));
  if (pf && pf.pairings.length) Object.assign(state.pair, pf.pairings[0]);
}

function setView(view) {
  state.view = view;
  if (view === 'pairs') defaultPairing();
  $('tab-answers').classList.toggle('active', view === 'answers');
  $('tab-pairs').classList.toggle('active', view === 'pairs');
  $('answers-view').classList.toggle('hidden', view !== 'answers');
  $('pairs').classList.toggle('hidden', view !== 'pairs');
  $('pair-controls').classList.toggle('hidden', view !== 'pairs');
  refresh();
}

async function start() {
  try {
    state.meta = await api('/api/meta');
  } catch (e) { showError(e); return; }
  const m = state.meta;
  $('title').textContent = (m.title || m.spec) + ' — mirac view';
  document.title = m.spec + ' — mirac view';
  $('counts').textContent = `${m.requests} requests · ${m.answers} answers · ${m.scored} scored` + (m.rater ? ` by ${m.rater}` : '');
  $('warnings').textContent = m.warnings.join('\n');
  if (m.has_report) $('report-link').classList.remove('hidden');
  if (m.simulated) $('simulated-banner').classList.remove('hidden');
  // The URL's query is the state: filters, and with view=pairs the pairing.
  const params = new URLSearchParams(location.search);
  const pairKeys = ['factor', 'a', 'b', 'dim', 'min_diff'];
  const view = params.get('view') === 'pairs' ? 'pairs' : 'answers';
  for (const [k, v] of params) {
    if (k === 'view') continue;
    if (pairKeys.includes(k) || (k === 'flag' && view === 'pairs')) state.pair[k] = v; else state.filter[k] = v;
  }
  buildFilters();
  $('tab-answers').onclick = () => setView('answers');
  $('tab-pairs').onclick = () => setView('pairs');
  $('prev').onclick = () => { state.offset = Math.max(0, state.offset - PAGE); refresh(); };
  $('next').onclick = () => { state.offset += PAGE; refresh(); };
  $('pair-prev').onclick = () => { state.pairOffset = Math.max(0, state.pairOffset - PAIR_PAGE); refresh(); };
  $('pair-next').onclick = () => { state.pairOffset += PAIR_PAGE; refresh(); };
  setView(view);
}
start();
