// Reads [[pattern, flags, subject], ...] as JSON on stdin and prints, for each, what
// `new RegExp(pattern, flags).test(subject)` gives in this Node.js: true, false or "error".
let data = '';
process.stdin.on('data', (d) => { data += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(data).map(([p, f, s]) => {
    let re;
    try { re = new RegExp(p, f); } catch (e) { return 'error'; }
    return re.test(s);
  });
  process.stdout.write(JSON.stringify(out));
});
