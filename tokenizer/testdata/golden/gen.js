// Writes the golden encodings of TestGoldenEncodings with Hugging Face's
// Rust library (npm package tokenizers; not a dependency of this
// repository, install it anywhere):
//
//   go test ./tokenizer -run TestGoldenEncodings -write-corpus /tmp/corpus.json
//   NODE_PATH=/path/to/node_modules node testdata/golden/gen.js /tmp/corpus.json testdata/golden
//
// For each fixture it writes NAME.json.gz: {"ids": [[...]], "offsets": [[[s, e], ...]]},
// character offsets, one entry per corpus text, add_special_tokens false.
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

(async () => {
  const { texts, dirs } = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const outDir = process.argv[3];
  for (const [name, dir] of Object.entries(dirs)) {
    // Run from the tokenizer directory: the fixtures' paths are relative to
    // it. Their tokenizer_config.json files add no token tokenizer.json
    // lacks, so tokenizer.json alone gives the same encodings.
    const tok = Tokenizer.fromFile(path.join(path.resolve(dir), 'tokenizer.json'));
    const out = { ids: [], offsets: [] };
    for (const text of texts) {
      const enc = await tok.encode(text, null, { addSpecialTokens: false });
      out.ids.push(enc.getIds());
      out.offsets.push(enc.getOffsets());
    }
    fs.writeFileSync(path.join(outDir, name + '.json.gz'), zlib.gzipSync(JSON.stringify(out), { level: 9 }));
    console.log(name, texts.length);
  }
})();
