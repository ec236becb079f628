#!/usr/bin/env python3
"""Write a tiny random-weight GGUF that carries the vocabulary of a
tokenizer.json, so that llama-server tokenizes text as it would for a real
checkpoint with that tokenizer (templates/llamacpp/tokenizer.sh).

Only byte-level BPE tokenizers (GPT-2's family: o200k, cl100k, Beam's) are
written, as llama.cpp's "gpt2" tokenizer model: the vocabulary in id order,
the merges, and the added tokens typed as llama.cpp's converter types them
(special ones CONTROL, the others USER_DEFINED). llama.cpp does not read the
pre-tokenizer's regular expression from the file: it picks its own by the
name in tokenizer.ggml.pre. The name is found from the Split pattern
(o200k's is "gpt-4o"); --pre gives it for any other pattern.

The weights are a one-layer "llama" of 16 dimensions with random values: the
model writes noise. A constant embedding dimension lets the output weights
act as a bias: --end-bias makes <|end|> likely (a random model would rarely
end its reasoning among 200,000 tokens; templates/llamacpp/constrained.sh
with TOKENIZER_DIR), --non-ascii-bias below 0 makes tokens that are not
printable ASCII rare (llama-server answers HTTP 500 to a generation cut in
the middle of a character), --long-bias below 0 makes tokens of more than one
character rare (among 200,000 tokens a random model finds few that end a
number or a string).

Usage:

    python3 make_tokenizer_gguf.py --gguf-py LLAMA_CPP/gguf-py [--pre NAME] [--end-bias B] [--non-ascii-bias N] [--long-bias L] TOKENIZER_JSON OUT.gguf

Needs Python 3 with numpy and the gguf-py package of a llama.cpp checkout.
"""

import argparse
import json
import sys

import tiny_llama

# The Split patterns llama.cpp knows by name (its pre-tokenizer types).
KNOWN_PRE = {
    # o200k_base (GPT-4o, gpt-oss, Beam's stand-in)
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "gpt-4o",
    # cl100k_base (Llama 3's pattern)
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "llama-bpe",
}


def split_pattern(tok):
    """The Regex of the tokenizer's Split pre-tokenizer, or None."""
    pre = tok.get("pre_tokenizer") or {}
    for p in pre.get("pretokenizers", [pre]):
        if p.get("type") == "Split":
            return (p.get("pattern") or {}).get("Regex")
    return None


def main(argv):
    parser = argparse.ArgumentParser(description="Write a tiny GGUF with a tokenizer.json's vocabulary.")
    parser.add_argument("--gguf-py", help="the gguf-py directory of a llama.cpp checkout")
    parser.add_argument("--pre", help="llama.cpp's name for the pre-tokenizer (tokenizer.ggml.pre); found from the Split pattern when left out")
    parser.add_argument("--end-bias", type=float, default=0.0, help="how much the output favours <|end|>")
    parser.add_argument("--non-ascii-bias", type=float, default=0.0, help="how much the output favours (above 0) or avoids (below 0) tokens that are not printable ASCII")
    parser.add_argument("--long-bias", type=float, default=0.0, help="how much the output favours (above 0) or avoids (below 0) tokens of more than one character")
    parser.add_argument("tokenizer", help="the tokenizer.json to read")
    parser.add_argument("out", help="the .gguf file to write")
    args = parser.parse_args(argv)
    if args.gguf_py:
        sys.path.insert(0, args.gguf_py)
    import numpy as np
    import gguf

    with open(args.tokenizer, encoding="utf-8") as f:
        tok = json.load(f)
    model = tok.get("model") or {}
    if model.get("type") != "BPE" or not isinstance(model.get("vocab"), dict):
        sys.exit(f"{args.tokenizer}: model.type is {model.get('type')!r}: only BPE tokenizers are written")
    pre = args.pre
    if pre is None:
        pattern = split_pattern(tok)
        pre = KNOWN_PRE.get(pattern)
        if pre is None:
            sys.exit(f"{args.tokenizer}: llama.cpp has no known name for the Split pattern {pattern!r}: give one with --pre")

    vocab = dict(model["vocab"])
    added = {t["id"]: t for t in tok.get("added_tokens", [])}
    for i, t in added.items():
        vocab[t["content"]] = i
    n_vocab = max(vocab.values()) + 1
    tokens = [None] * n_vocab
    for text, i in vocab.items():
        tokens[i] = text
    types = []
    for i in range(n_vocab):
        if tokens[i] is None:
            tokens[i] = f"[PAD{i}]"  # a hole in the ids, as llama.cpp's converter fills it
            types.append(gguf.TokenType.UNUSED)
        elif i in added:
            types.append(gguf.TokenType.CONTROL if added[i].get("special") else gguf.TokenType.USER_DEFINED)
        else:
            types.append(gguf.TokenType.NORMAL)
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]

    n_embd, n_ff, n_layer, n_head = 16, 32, 1, 2
    w = tiny_llama.open_writer(gguf, args.out, "beamharmony-tokenizer-check", 4096, n_embd, n_ff, n_layer, n_head)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    eos = next((i for i, t in added.items() if t["content"] == "<|return|>"), None)
    if eos is None:
        eos = next((i for i, t in added.items() if t.get("special")), n_vocab - 1)
    w.add_eos_token_id(eos)
    w.add_add_bos_token(False)

    rng = np.random.default_rng(1)

    def rnd(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(np.float32)

    emb = rnd(n_vocab, n_embd)
    emb[:, 0] = 4.0  # a constant dimension: the output weights on it act as a bias
    out = rnd(n_vocab, n_embd)
    out[:, 0] = 0.0
    if args.non_ascii_bias:
        # ByteLevel's alphabet writes printable ASCII as itself, and space,
        # tab and newline as these three letters.
        ascii_chars = set(chr(c) for c in range(0x21, 0x7F)) | {"\u0120", "\u0109", "\u010a"}
        for i, text in enumerate(tokens):
            if i not in added and not set(text) <= ascii_chars:
                out[i, 0] = args.non_ascii_bias
    if args.long_bias:
        for i, text in enumerate(tokens):
            if i not in added and len(text) > 1:
                out[i, 0] += args.long_bias
    end = next((i for i, t in added.items() if t["content"] == "<|end|>"), None)
    if args.end_bias and end is not None:
        out[end, 0] = args.end_bias
    tiny_llama.write_tensors(w, np, emb, out, n_layer, n_ff, rnd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
