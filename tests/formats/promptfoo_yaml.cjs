// js-yaml as promptfoo 0.123.1 calls it (src/util/yamlLoad.ts: loadAll with the core schema plus the merge,
// binary, timestamp, omap, pairs and legacy set tags; one document). Reads one JSON line (a list of texts)
// on stdin, writes one JSON line: {version, results: [{ok: true, value} | {ok: false, message}]}.
// Dates become {"$date": ISO string}, so that a test can tell them from strings.
const path = require("path");
const pkg = process.argv[2];
const yaml = require(path.join(path.dirname(pkg), "dist", "js-yaml.cjs.js"));
const legacySetTag = yaml.defineMappingTag("tag:yaml.org,2002:set", {
  ...yaml.legacyMapTag,
  identify: yaml.setTag.identify,
  represent: yaml.setTag.represent,
  addPair: (container, key, value) => {
    if (value !== null) return "cannot resolve a set item";
    return yaml.legacyMapTag.addPair(container, key, null);
  },
});
const schema = yaml.CORE_SCHEMA.withTags(yaml.mergeTag, yaml.binaryTag, yaml.timestampTag, yaml.omapTag,
  yaml.pairsTag, legacySetTag);
function loadYaml(text) {
  const docs = yaml.loadAll(text, { schema });
  if (docs.length === 0) return undefined;
  if (docs.length > 1) throw new yaml.YAMLException("expected a single document in the stream, but found more");
  return docs[0];
}
function plain(v) {
  if (v instanceof Date) return { $date: v.toISOString() };
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v)) out[k] = plain(v[k]);
    return out;
  }
  if (typeof v === "number" && !Number.isFinite(v)) return { $number: String(v) };
  return v === undefined ? null : v;
}
const version = require(pkg).version;
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const texts = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    const results = texts.map((t) => {
      try {
        return { ok: true, value: plain(loadYaml(t)) };
      } catch (e) {
        return { ok: false, message: String(e && e.message).split("\n")[0] };
      }
    });
    process.stdout.write(JSON.stringify({ version, results }) + "\n");
  }
});
