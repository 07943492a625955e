// nunjucks as promptfoo 0.123.1 configures it (src/util/templates.ts getNunjucksEngine: autoescape off,
// undefined values not thrown, the global `env`, the filter `load`), run by the differential test of templates
// (test_promptfoo_nunjucks.py). Reads one JSON line on stdin: [{template, vars, env}], and writes one JSON
// line: {version, results: [{ok: true, text} | {ok: false, message}]}.
const path = require("path");
const prefix = path.resolve(process.argv[2]);
const nunjucks = require(path.join(prefix, "nunjucks"));
const version = require(path.join(prefix, "nunjucks", "package.json")).version;
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
});
process.stdin.on("end", () => {
  const cases = JSON.parse(buf);
  const results = cases.map(({ template, vars, env }) => {
    const engine = nunjucks.configure({ autoescape: false, throwOnUndefined: false });
    engine.addGlobal("env", env || {});
    engine.addFilter("load", (str) => JSON.parse(str));
    try {
      return { ok: true, text: engine.renderString(template, vars) };
    } catch (err) {
      return { ok: false, message: String(err && err.message ? err.message : err).split("\n")[0] };
    }
  });
  process.stdout.write(JSON.stringify({ version, results }) + "\n");
});
