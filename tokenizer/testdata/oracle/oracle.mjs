// Reference encodings for the Go tokenizer's differential test.
//
//   node oracle.mjs REQUEST.json
//
// REQUEST: {"dir": tokenizer directory, "texts": [...], "decode": [[ids]...],
//           "tiktoken": [texts to encode with js-tiktoken's o200k_base]}
// Writes: {"encode": [{"ids", "text", "text_skip"}], "decode": [{"text", "text_skip"}],
//          "tiktoken": [[ids]...]}
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";

const req = JSON.parse(readFileSync(process.argv[2], "utf8"));
const tokenizerJSON = JSON.parse(readFileSync(join(req.dir, "tokenizer.json"), "utf8"));
let config = {};
try {
  config = JSON.parse(readFileSync(join(req.dir, "tokenizer_config.json"), "utf8"));
} catch (e) {
  if (e.code !== "ENOENT") throw e;
}
const tok = new Tokenizer(tokenizerJSON, config);
const cleanUp = config.clean_up_tokenization_spaces === true;
// The JavaScript port refuses an empty list; Python's decode([]) is "".
const decode = (ids, skip) =>
  ids.length === 0
    ? ""
    : tok.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: cleanUp });

const out = { encode: [], decode: [], tiktoken: [] };
for (const text of req.texts) {
  const ids = tok.encode(text, { add_special_tokens: false }).ids;
  out.encode.push({ ids, text: decode(ids, false), text_skip: decode(ids, true) });
}
for (const ids of req.decode || []) {
  out.decode.push({ text: decode(ids, false), text_skip: decode(ids, true) });
}
if (req.tiktoken && req.tiktoken.length > 0) {
  const { Tiktoken } = await import("js-tiktoken/lite");
  const o200k = (await import("js-tiktoken/ranks/o200k_base")).default;
  const enc = new Tiktoken(o200k);
  for (const text of req.tiktoken) out.tiktoken.push(enc.encode(text, [], []));
}
process.stdout.write(JSON.stringify(out));
