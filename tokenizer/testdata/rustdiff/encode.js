// Encodes and decodes with Hugging Face's Rust library (npm package
// tokenizers; not a dependency of this repository, install it anywhere)
// for TestRustDifferential:
//
//   NODE_PATH=/path/to/node_modules node encode.js DIR
//
// DIR holds corpus.json ({"texts": [...], "tokenizers": {NAME: {"dir": PATH,
// "ids": [[...]]}}}); for each tokenizer it writes DIR/NAME.out.json:
// {"ids", "offsets"} of every text (add_special_tokens false) and "decoded"
// and "decoded_skip" of each of its id sequences.
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const path = require('path');

(async () => {
  const dir = process.argv[2];
  const { texts, tokenizers } = JSON.parse(fs.readFileSync(path.join(dir, 'corpus.json'), 'utf8'));
  for (const [name, { dir: tdir, ids }] of Object.entries(tokenizers)) {
    const tok = Tokenizer.fromFile(path.join(tdir, 'tokenizer.json'));
    const out = { ids: [], offsets: [], decoded: [], decoded_skip: [] };
    for (const text of texts) {
      const enc = await tok.encode(text, null, { addSpecialTokens: false });
      out.ids.push(enc.getIds());
      out.offsets.push(enc.getOffsets());
    }
    for (const s of ids) {
      out.decoded.push(await tok.decode(s, false));
      out.decoded_skip.push(await tok.decode(s, true));
    }
    fs.writeFileSync(path.join(dir, name + '.out.json'), JSON.stringify(out));
  }
})().catch((err) => {
  process.stderr.write(String(err) + '\n');
  process.exit(1);
});
