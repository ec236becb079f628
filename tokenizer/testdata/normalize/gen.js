// Writes the golden offsets of TestNormalizerOffsetsGolden: for each
// normalizer and each sequence of up to 3 characters of chars.json, the
// character offsets Hugging Face's Rust library (npm package tokenizers,
// not a dependency of this repository) gives the byte-level tokens.
//
//   npm install tokenizers && node gen.js chars.json offsets.json && gzip -9 offsets.json
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
function bytesToUnicode() {
  const bs = [];
  for (let i = 33; i <= 126; i++) bs.push(i);
  for (let i = 161; i <= 172; i++) bs.push(i);
  for (let i = 174; i <= 255; i++) bs.push(i);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); n++; }
  const m = {};
  bs.forEach((b, i) => { m[b] = String.fromCodePoint(cs[i]); });
  return m;
}
const m = bytesToUnicode();
const vocab = {};
for (let b = 0; b < 256; b++) vocab[m[b]] = b;
const chars = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = {};
for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD']) {
  const tj = {
    version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: { type: form },
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    post_processor: null, decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges: [] },
  };
  fs.writeFileSync('/tmp/hf/tok-' + form + '.json', JSON.stringify(tj));
  const tok = Tokenizer.fromFile('/tmp/hf/tok-' + form + '.json');
  const rows = [];
  const seqs = [];
  for (const a of chars) { seqs.push([a]); for (const b of chars) { seqs.push([a, b]); for (const c of chars) seqs.push([a, b, c]); } }
  out[form] = { seqs };
}
// tokenizers' encode is async in node; run them all.
(async () => {
  const res = {};
  for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD']) {
    const tok = Tokenizer.fromFile('/tmp/hf/tok-' + form + '.json');
    const lines = [];
    for (const seq of out[form].seqs) {
      const text = seq.join('');
      const enc = await tok.encode(text, null, { addSpecialTokens: false });
      lines.push(enc.getOffsets().map(o => o[0] + ',' + o[1]).join(' '));
    }
    res[form] = lines;
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(res));
})();
