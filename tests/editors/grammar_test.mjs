// grammar_test.mjs: the TextMate grammar of editors/vscode/ held to the parser. Every .audit
// file of the repository is tokenized by VS Code's own engine (vscode-textmate on
// vscode-oniguruma), and for each file the real PEGTL grammar parses (tokens/audit_tokens)
// every keyword it matched must be scoped as a keyword, every comment as a comment, every
// string as a string, every number as a number; no name an expression reads may look like a
// keyword; code outside comments and strings must not look like either; and no rule may
// still be open at the end of the file. The grammar's keyword lists are compared with
// grammar/grammar.hpp, and the problem matcher the extension contributes is run on real
// `mirac check` output and compared with the one docs/editors.md shows. Run by CTest (tests/editors/CMakeLists.txt), which sets:
//   MIRAC_SOURCE_DIR, MIRAC_BINARY, MIRAC_AUDIT_TOKENS, MIRAC_EDITORS_TEST_MODULES.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (CTest sets it: tests/editors/CMakeLists.txt)`);
  return value;
};
const sourceDir = env('MIRAC_SOURCE_DIR');
const modules = env('MIRAC_EDITORS_TEST_MODULES');
const require = createRequire(path.join(modules, 'package.json'));
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const extensionDir = path.join(sourceDir, 'editors', 'vscode');
const grammarPath = path.join(extensionDir, 'syntaxes', 'audit.tmLanguage.json');
const grammarJson = JSON.parse(fs.readFileSync(grammarPath, 'utf8'));
const grammarHpp = fs.readFileSync(path.join(sourceDir, 'grammar', 'grammar.hpp'), 'utf8');

async function loadGrammar() {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.audit' ? vsctm.parseRawGrammar(JSON.stringify(grammarJson), grammarPath) : null,
  });
  return registry.loadGrammar('source.audit');
}

// Every .audit file in the folders that hold specs, modules, examples and test corpora.
function auditFiles() {
  const files = [];
  for (const top of ['specs', 'stdlib', 'examples', 'tests']) {
    const dir = path.join(sourceDir, top);
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.audit')) files.push(path.join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  return files.sort();
}

function parserTokens(files) {
  const out = execFileSync(env('MIRAC_AUDIT_TOKENS'), files, { maxBuffer: 1 << 28, encoding: 'utf8' });
  return JSON.parse(out);
}

// The TextMate tokens of a file, and a way to ask for the scopes at a byte offset (the
// parser counts bytes, the engine UTF-16 units of one line at a time).
function tokenize(grammar, bytes) {
  const text = bytes.toString('utf8');
  const lines = text.split(/\r?\n/);
  let stack = vsctm.INITIAL;
  const tokenLines = [];
  for (const line of lines) {
    const result = grammar.tokenizeLine(line, stack);
    tokenLines.push(result.tokens);
    stack = result.ruleStack;
  }
  // Byte offset -> [line, UTF-16 column]; line breaks map to null.
  const where = new Array(bytes.length + 1).fill(null);
  let byte = 0;
  for (let l = 0; l < lines.length; ++l) {
    const line = lines[l];
    let column = 0;
    for (const ch of line) {
      const size = Buffer.byteLength(ch, 'utf8');
      for (let k = 0; k < size; ++k) where[byte + k] = [l, column];
      byte += size;
      column += ch.length;
    }
    if (byte < bytes.length && bytes[byte] === 0x0d) byte += 1;
    if (byte < bytes.length && bytes[byte] === 0x0a) byte += 1;
  }
  const scopesAt = (offset) => {
    const at = where[offset];
    if (!at) return null;
    const [l, column] = at;
    const token = tokenLines[l].find((t) => t.startIndex <= column && column < t.endIndex);
    return token ? token.scopes : [];
  };
  return { text, lines, finalStack: stack, scopesAt };
}

const has = (scopes, prefix) => scopes.some((s) => s.startsWith(prefix));
const keywordScoped = (word, scopes) =>
  ['true', 'false', 'none'].includes(word) ? has(scopes, 'constant.language.') : has(scopes, 'keyword.');

// What each kind of parser token must (and must not) look like, checked byte by byte
// (blanks inside comments and strings too; line breaks have no scopes).
const expectations = {
  keyword: { ok: (t, scopes) => keywordScoped(t.text, scopes), says: 'a keyword scope' },
  comment: { ok: (t, scopes) => has(scopes, 'comment.'), says: 'a comment scope' },
  string: { ok: (t, scopes) => has(scopes, 'string.'), says: 'a string scope' },
  number: { ok: (t, scopes) => has(scopes, 'constant.numeric.'), says: 'a number scope' },
  name: {
    ok: (t, scopes) => !['keyword.', 'constant.language.', 'comment.', 'string.', 'constant.numeric.'].some((p) => has(scopes, p)),
    says: 'no keyword, constant, comment or string scope (an expression reads it as a name)',
  },
};

function place(file, tokenized, offset) {
  const bytesBefore = Buffer.from(tokenized.text, 'utf8').subarray(0, offset).toString('utf8');
  const line = bytesBefore.split('\n').length;
  return `${path.relative(sourceDir, file)}:${line}`;
}

function checkFile(grammar, parsed) {
  const bytes = fs.readFileSync(parsed.file);
  const tokenized = tokenize(grammar, bytes);
  const problems = [];
  const inCommentOrString = new Uint8Array(bytes.length);
  for (const token of parsed.tokens) {
    if (token.kind === 'comment' || token.kind === 'string') inCommentOrString.fill(1, token.begin, token.end);
    const expectation = expectations[token.kind];
    for (let offset = token.begin; offset < token.end; ++offset) {
      const scopes = tokenized.scopesAt(offset);
      if (scopes === null) continue;
      if (!expectation.ok(token, scopes)) {
        problems.push(`${place(parsed.file, tokenized, token.begin)}: ${token.kind} ${JSON.stringify(token.text)} ` +
                      `should have ${expectation.says}, has [${scopes.join(' ')}]`);
        break;
      }
    }
  }
  // Code is neither comment nor string: catches a string or comment that runs on.
  for (let offset = 0; offset < bytes.length; ++offset) {
    if (inCommentOrString[offset] || /\s/.test(String.fromCharCode(bytes[offset]))) continue;
    const scopes = tokenized.scopesAt(offset);
    if (scopes && (has(scopes, 'comment.') || has(scopes, 'string.'))) {
      problems.push(`${place(parsed.file, tokenized, offset)}: code has a comment or string scope [${scopes.join(' ')}]`);
      break;
    }
  }
  // depth 1: only the grammar's root is open, as after the last declaration.
  if (tokenized.finalStack.depth !== 1) {
    problems.push(`${path.relative(sourceDir, parsed.file)}: ${tokenized.finalStack.depth - 1} rule(s) still open at the end of the file`);
  }
  return problems;
}

// The words of a PEGTL rule's body: struct NAME : sor<TAO_PEGTL_KEYWORD("a"), ...> {};
function keywordsOfRule(rule) {
  const body = grammarHpp.match(new RegExp(`struct ${rule} : ([\\s\\S]*?)\\{\\};`));
  assert.ok(body, `grammar/grammar.hpp has no rule ${rule}`);
  return [...body[1].matchAll(/TAO_PEGTL_KEYWORD\("(\w+)"\)/g)].map((m) => m[1]);
}
const allGrammarKeywords = [...new Set([...grammarHpp.matchAll(/TAO_PEGTL_KEYWORD\("(\w+)"\)/g)].map((m) => m[1]))].sort();
const declarationKeywords = keywordsOfRule('declaration_keyword');
const reservedWords = [...grammarHpp.matchAll(/struct kw_(\w+) : TAO_PEGTL_KEYWORD\("(\w+)"\)/g)].map((m) => m[2]);

// The source of capture group `n` of a regular expression: groups counted by their opening
// parenthesis, as the engine does, skipping escapes, character classes and (?...) groups.
function groupSource(regex, n) {
  const opened = [];
  let count = 0;
  for (let i = 0, inClass = false; i < regex.length; ++i) {
    const c = regex[i];
    if (c === '\\') { ++i; continue; }
    if (inClass) { if (c === ']') inClass = false; continue; }
    if (c === '[') inClass = true;
    else if (c === '(') {
      const capturing = regex[i + 1] !== '?';
      if (capturing) ++count;
      opened.push({ at: i + 1, number: capturing ? count : 0 });
    } else if (c === ')') {
      const group = opened.pop();
      if (group.number === n) return regex.slice(group.at, i);
    }
  }
  return null;
}

// Every keyword the TextMate grammar scopes, by scope: the words of each capture group
// whose scope is keyword.* or constant.language.* and which is a plain list of words.
function scopedWords() {
  const words = [];
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [regexKey, capturesKey] of [['match', 'captures'], ['begin', 'beginCaptures']]) {
      if (typeof node[regexKey] !== 'string' || !node[capturesKey]) continue;
      for (const [n, { name }] of Object.entries(node[capturesKey])) {
        const source = groupSource(node[regexKey], Number(n));
        if (/^(keyword|constant\.language)\./.test(name) && /^[a-z_]+(\|[a-z_]+)*$/.test(source ?? '')) {
          for (const word of source.split('|')) words.push({ word, scope: name });
        }
      }
    }
    Object.values(node).forEach(visit);
  };
  visit(grammarJson);
  return words;
}

const grammarPromise = loadGrammar();
const files = auditFiles();
const parsedFiles = parserTokens(files);

test('the repository has .audit files to tokenize, and most of them parse', () => {
  assert.ok(files.length >= 20, `only ${files.length} .audit files found under ${sourceDir}`);
  const parsed = parsedFiles.filter((f) => f.parsed);
  assert.ok(parsed.length >= files.length / 2, `only ${parsed.length} of ${files.length} files parse`);
  for (const must of ['specs/mira.audit', 'stdlib/providers.audit', 'tests/grammar/corpus/all_constructs.audit']) {
    const entry = parsedFiles.find((f) => path.relative(sourceDir, f.file) === must);
    assert.ok(entry?.parsed, `${must} should parse: ${entry?.error}`);
  }
});

test('every token the parser sees has its scope in every file that parses', async (t) => {
  const grammar = await grammarPromise;
  const problems = [];
  const parsed = parsedFiles.filter((f) => f.parsed);
  for (const file of parsed) problems.push(...checkFile(grammar, file));
  const tokens = parsed.reduce((n, f) => n + f.tokens.length, 0);
  t.diagnostic(`${parsed.length} of ${files.length} files parse; ${tokens} of their tokens checked`);
  assert.deepEqual(problems, []);
});

test('files that do not parse still tokenize', async () => {
  const grammar = await grammarPromise;
  for (const broken of parsedFiles.filter((f) => !f.parsed)) tokenize(grammar, fs.readFileSync(broken.file));
});

test('every keyword of grammar/grammar.hpp occurs in the files and is scoped there', () => {
  const seen = new Set(parsedFiles.filter((f) => f.parsed).flatMap((f) => f.tokens.filter((t) => t.kind === 'keyword').map((t) => t.text)));
  const unseen = allGrammarKeywords.filter((k) => !seen.has(k));
  assert.deepEqual(unseen, [], 'keywords no file uses: add them to tests/grammar/corpus/all_constructs.audit');
});

test('the grammar scopes exactly the keywords of grammar.hpp, declarations as declarations', () => {
  const words = scopedWords();
  const declarations = new Set(words.filter((w) => w.scope.startsWith('keyword.declaration.')).map((w) => w.word));
  assert.ok(declarationKeywords.length >= 20 && reservedWords.length >= 10);
  assert.deepEqual([...declarations].sort(), [...declarationKeywords].sort());
  const reserved = new Set(words.filter((w) => /^(keyword\.operator\.logical|keyword\.control|keyword\.other\.vs|constant\.language)\./.test(w.scope)).map((w) => w.word));
  assert.deepEqual([...reserved].sort(), [...reservedWords].sort());
  // Every other keyword is contextual: a keyword where the grammar expects it, a name elsewhere.
  assert.deepEqual([...new Set(words.map((w) => w.word))].sort(), allGrammarKeywords);
});

test('the extension declares the language, its grammar and its configuration', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
  const language = manifest.contributes.languages.find((l) => l.id === 'audit');
  assert.deepEqual(language.extensions, ['.audit']);
  const contributed = manifest.contributes.grammars.find((g) => g.language === 'audit');
  assert.equal(contributed.scopeName, grammarJson.scopeName);
  assert.equal(path.resolve(extensionDir, contributed.path), grammarPath);
  const configuration = JSON.parse(fs.readFileSync(path.resolve(extensionDir, language.configuration), 'utf8'));
  assert.deepEqual(configuration.comments, { lineComment: '//', blockComment: ['/*', '*/'] });
});

test("the extension's problem matcher reads mirac check's errors and warnings", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
  const matcher = manifest.contributes.problemMatchers.find((m) => m.name === 'mirac');
  const pattern = new RegExp(matcher.pattern.regexp);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirac-editors-'));
  const common = ['factor language { zh en }', 'factor tone { calm anxious }', 'seeds {', '  seed s1 { question = "头痛怎么办？" }', '}'];
  const specs = {
    // a factor no prompt's text depends on: a warning, and the spec checks (exit 0)
    'warning.audit': [...common, 'prompt { id "{seed.id}_{language}_{tone}" text seed.question ++ language }'],
    // unknown dimensions, after text that is not ASCII
    'two errors.audit': [...common, 'prompt { id "{seed.id}_{language}_{tone}" text seed.question ++ tone }',
                         'contrast GAP = /* 问 */ D3[zh] - D3[en]'],
  };
  const severities = new Set();
  for (const [name, lines] of Object.entries(specs)) {
    const spec = path.join(dir, name);
    fs.writeFileSync(spec, lines.join('\n') + '\n');
    const text = spawnSync(env('MIRAC_BINARY'), ['check', spec], { encoding: 'utf8' });
    const found = (text.stdout + text.stderr).split('\n').map((l) => l.match(pattern)).filter(Boolean).map((m) => ({
      file: m[matcher.pattern.file], line: Number(m[matcher.pattern.line]), column: Number(m[matcher.pattern.column]),
      severity: m[matcher.pattern.severity], message: m[matcher.pattern.message],
    }));
    const json = JSON.parse(spawnSync(env('MIRAC_BINARY'), ['check', '--format', 'json', spec], { encoding: 'utf8' }).stdout);
    assert.ok(json.length > 0, `${name}: mirac check found nothing`);
    assert.deepEqual(found, json.map((d) => ({ file: d.file, line: d.line, column: d.column, severity: d.severity, message: d.message })));
    json.forEach((d) => severities.add(d.severity));
    // VS Code counts columns in UTF-16 units, mirac in characters: the same outside emoji and
    // the rarest CJK, so the column lands on the problem's first character.
    if (name === 'two errors.audit') assert.equal(lines[found[0].line - 1].indexOf('D3') + 1, found[0].column);
  }
  assert.deepEqual([...severities].sort(), ['error', 'warning']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('docs/editors.md shows the problem matcher the extension contributes', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
  const { name, ...contributed } = manifest.contributes.problemMatchers.find((m) => m.name === 'mirac');
  const page = fs.readFileSync(path.join(sourceDir, 'docs', 'editors.md'), 'utf8');
  const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  const tasks = blocks.map((b) => { try { return JSON.parse(b); } catch { return null; } }).find((b) => b?.tasks);
  assert.equal(tasks.tasks[0].problemMatcher, `$${name}`);
  const inline = blocks.find((b) => b.trimStart().startsWith('"problemMatcher"'));
  assert.deepEqual(JSON.parse(`{${inline}}`).problemMatcher, contributed);
});
