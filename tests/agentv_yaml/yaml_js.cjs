// Parse a batch of YAML texts exactly as agentv 4.42.4 does (its core package's parseYamlValue:
// `parse(content, { merge: true })` from the `yaml` npm package agentv depends on), in one process.
//
//   node yaml_js.cjs AGENTV_PACKAGE_JSON < requests.jsonl > answers.jsonl
//
// Each stdin line: a JSON list of strings. Each stdout line: {"version": yaml's version, "results":
// [...]}, one result per text: {"ok": true, "value": <the parsed value as JSON>} (plus "circular": true
// when an alias sits inside its own anchor: no JSON form) or {"ok": false, "line", "col",
// "offset", "code", "message"} (line/col/offset are null for errors the package raises without a
// position, e.g. while resolving aliases or merge keys; col and offset count UTF-16 units, as
// JavaScript does; message is its first line, without the " at line L, column C"; printed is the whole
// message, as agentv prints it).
'use strict';
const fs = require('fs');
const { createRequire } = require('module');

const agentvPackage = require('path').resolve(process.argv[2]);
const requireFromAgentv = createRequire(agentvPackage);
const yaml = requireFromAgentv('yaml');
const version = JSON.parse(fs.readFileSync(requireFromAgentv.resolve('yaml/package.json'), 'utf8')).version;
const PARSE_OPTIONS = { merge: true };

function toJson(value) {
  // NaN/Infinity and undefined have no JSON form: tag them so the comparison can still see them.
  return JSON.parse(JSON.stringify(value, (_k, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return { $number: String(v) };
    if (typeof v === 'bigint') return { $bigint: String(v) };
    if (v === undefined) return { $undefined: true };
    if (v instanceof Map || v instanceof Set) return { $unsupported: v.constructor.name };
    if (v && v.type === 'Buffer' && Array.isArray(v.data)) return { $binary: Buffer.from(v.data).toString('base64') };
    return v;
  }) ?? null);
}

function one(text) {
  const warn = console.warn;
  console.warn = () => {}; // warnings do not refuse a file; agentv only prints them
  let value;
  try {
    value = yaml.parse(text, PARSE_OPTIONS);
  } catch (err) {
    const pos = err && err.linePos && err.linePos[0];
    const message = String(err && err.message || err).split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, line: pos ? pos.line : null, col: pos ? pos.col : null,
             offset: err && err.pos ? err.pos[0] : null, code: (err && err.code) || null, message,
             printed: String(err && err.message || err) };
  } finally {
    console.warn = warn;
  }
  try {
    return { ok: true, value: toJson(value) };
  } catch (err) {
    // an alias inside its own anchor: the package gives a circular structure (agentv fails on it)
    return { ok: true, circular: true, value: null };
  }
}

// One request per input line (a JSON list of texts), one answer per output line: a test session keeps
// one process open and sends it as many batches as it needs.
const lines = require('readline').createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const texts = JSON.parse(line);
  process.stdout.write(JSON.stringify({ version, results: texts.map(one) }) + '\n');
});
