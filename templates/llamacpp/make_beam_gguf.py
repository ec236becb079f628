#!/usr/bin/env python3
"""Write a tiny random-weight GGUF whose vocabulary holds Beam's markers, for
constrained generation and routing tests against a real llama-server.

The model is a two-layer "llama" with 32-dimensional random weights and a
vocabulary of <unk>, <s>, <pad>, the 256 byte tokens and Beam's seven
markers, each one token, as in Beam's tokenizer. End of sequence is
<|return|>; llama.cpp itself makes <|return|> and <|call|> end-of-generation
tokens and keeps <|end|> an ordinary one (o200k_harmony's rule). The model
writes noise; a constant embedding dimension lets the output weights favour
<|end|>, since a random model would otherwise rarely end its reasoning.

Usage:

    python3 make_beam_gguf.py --gguf-py LLAMA_CPP/gguf-py [--seed N] [--end-bias B] [--high-byte-bias H] OUT.gguf

--high-byte-bias below 0 makes the bytes 0x80-0xFF rare: a random model that
writes them freely writes invalid UTF-8, which llama-server's own parse of a
finished generation refuses (HTTP 500), whatever the grammar.

Needs Python 3 with numpy and the gguf-py package of a llama.cpp checkout.
"""

import argparse
import sys

import tiny_llama

MARKERS = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>"]


def main(argv):
    parser = argparse.ArgumentParser(description="Write a tiny GGUF with Beam's markers as tokens.")
    parser.add_argument("--gguf-py", help="the gguf-py directory of a llama.cpp checkout")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random weights")
    parser.add_argument("--end-bias", type=float, default=1.5, help="how much the output favours <|end|>")
    parser.add_argument("--high-byte-bias", type=float, default=0.0, help="how much the output favours (above 0) or avoids (below 0) the bytes 0x80-0xFF")
    parser.add_argument("out", help="the .gguf file to write")
    args = parser.parse_args(argv)
    if args.gguf_py:
        sys.path.insert(0, args.gguf_py)
    import numpy as np
    import gguf

    # <pad>, not </s>: llama.cpp makes a token named </s> end generation.
    tokens = ["<unk>", "<s>", "<pad>"] + ["<0x%02X>" % b for b in range(256)] + MARKERS
    n_vocab, n_embd, n_ff, n_layer, n_head = len(tokens), 32, 64, 2, 2
    w = tiny_llama.open_writer(gguf, args.out, "beamharmony-constrained-check", 4096, n_embd, n_ff, n_layer, n_head)
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    types += [gguf.TokenType.BYTE] * 256 + [gguf.TokenType.USER_DEFINED] * len(MARKERS)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * n_vocab)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(tokens.index("<|return|>"))
    w.add_add_bos_token(False)

    rng = np.random.default_rng(args.seed)

    def rnd(*shape, scale=0.5):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    emb = rnd(n_vocab, n_embd)
    emb[:, 0] = 4.0  # a constant dimension: the output weights on it act as a bias
    out = rnd(n_vocab, n_embd)
    out[tokens.index("<|end|>"), 0] = args.end_bias
    if args.high_byte_bias:
        for b in range(0x80, 0x100):
            out[tokens.index("<0x%02X>" % b), 0] = args.high_byte_bias
    tiny_llama.write_tensors(w, np, emb, out, n_layer, n_ff, lambda *shape: rnd(*shape, scale=0.1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
