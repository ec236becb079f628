// Tokenizes rendered prompts with Hugging Face's Rust library (npm package
// tokenizers; not a dependency of this repository, install it anywhere) and
// computes the assistant mask as transformers' apply_chat_template(...,
// return_assistant_tokens_mask=True) does, for TestRenderTokensRust:
//
//   NODE_PATH=/path/to/node_modules node tokens.js DIR
//
// DIR holds tokenizer.json and cases.json ([{"text": ..., "spans": [[start,
// end], ...]}], spans in characters); it writes DIR/rust.json: [{"ids":
// [...], "mask": [...]}] in order. The mask rule: for each span, the tokens
// from char_to_token(start) through char_to_token(end - 1); a start in no
// token stops the marking, an end in no token (or in token 0) marks to the
// end.
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const path = require('path');

(async () => {
  const dir = process.argv[2];
  const tok = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  const cases = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'));
  const out = [];
  for (const c of cases) {
    const enc = await tok.encode(c.text, null, { addSpecialTokens: false });
    const ids = enc.getIds();
    const mask = new Array(ids.length).fill(0);
    const none = (t) => t === null || t === undefined || t < 0;
    for (const [start, end] of c.spans || []) {
      const first = enc.charToToken(start);
      const last = enc.charToToken(end - 1);
      if (none(first)) break;
      const stop = none(last) || last === 0 ? ids.length : last + 1;
      for (let k = first; k < stop; k++) mask[k] = 1;
    }
    out.push({ ids, mask });
  }
  fs.writeFileSync(path.join(dir, 'rust.json'), JSON.stringify(out));
})().catch((err) => {
  process.stderr.write(String(err) + '\n');
  process.exit(1);
});
