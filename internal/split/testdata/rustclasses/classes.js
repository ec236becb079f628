// Lists, for each pattern, the code points Hugging Face's Rust library
// (npm package tokenizers, whose Split runs Oniguruma; not a dependency of
// this repository, install it anywhere) matches, for TestRustClasses:
//
//   NODE_PATH=/path/to/node_modules node classes.js TOKENIZER.json PATTERNS.json OUT.json
//
// PATTERNS.json is a JSON array of patterns that match one character; the
// pre-tokenizer of TOKENIZER.json is replaced by a Split of each, with
// behavior Removed, over a text of every code point (64 Ki at a time), and
// what it removes is the pattern's set. OUT.json: {pattern: [[lo, hi],
// ...]} (inclusive ranges), or {pattern: "error: ..."} when the library
// refuses it.
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [tokenizerPath, patternsPath, outPath] = process.argv.slice(2);
const base = JSON.parse(fs.readFileSync(tokenizerPath, 'utf8'));
const patterns = JSON.parse(fs.readFileSync(patternsPath, 'utf8'));
const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'classes-')), 'tokenizer.json');
const out = {};
for (const pattern of patterns) {
  base.pre_tokenizer = { type: 'Split', pattern: { Regex: pattern }, behavior: 'Removed', invert: false };
  fs.writeFileSync(tmp, JSON.stringify(base));
  let pre;
  try {
    pre = Tokenizer.fromFile(tmp).getPreTokenizer();
  } catch (err) {
    out[pattern] = 'error: ' + err;
    continue;
  }
  const ranges = [];
  for (let lo = 0; lo < 0x110000; lo += 0x10000) {
    const cps = [];
    for (let c = lo; c < lo + 0x10000; c++) if (c < 0xd800 || c > 0xdfff) cps.push(c);
    const kept = new Set();
    for (const [piece] of pre.preTokenizeString(String.fromCodePoint(...cps))) {
      for (const ch of piece) kept.add(ch.codePointAt(0));
    }
    for (const c of cps) {
      if (kept.has(c)) continue;
      const last = ranges[ranges.length - 1];
      if (last && last[1] === c - 1) last[1] = c;
      else ranges.push([c, c]);
    }
  }
  out[pattern] = ranges;
}
fs.writeFileSync(outPath, JSON.stringify(out));
