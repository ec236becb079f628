#!/usr/bin/env python3
"""Write a tiny GGUF model that llama-server can load, for template checks.

llama-server needs a model before it answers /apply-template, which renders
a chat template without generating. This model is a two-layer "llama" with
16-dimensional zero weights and a vocabulary of the 256 byte tokens plus
<unk>, <s> and </s>: it loads in a moment and generates nothing useful.

Usage:

    python3 make_tiny_gguf.py --gguf-py LLAMA_CPP/gguf-py OUT.gguf

Needs Python 3 with numpy and the gguf-py package of a llama.cpp checkout
(given by --gguf-py, or importable already); nothing is installed.
"""

import argparse
import sys

import tiny_llama


def main(argv):
    parser = argparse.ArgumentParser(description="Write a tiny GGUF model for llama-server template checks.")
    parser.add_argument("--gguf-py", help="the gguf-py directory of a llama.cpp checkout")
    parser.add_argument("out", help="the .gguf file to write")
    args = parser.parse_args(argv)
    if args.gguf_py:
        sys.path.insert(0, args.gguf_py)
    import numpy as np
    import gguf

    n_vocab, n_embd, n_ff, n_layer, n_head = 259, 16, 32, 2, 2
    w = tiny_llama.open_writer(gguf, args.out, "beamharmony-template-check", 512, n_embd, n_ff, n_layer, n_head)

    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * n_vocab)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(False)

    def zeros(*shape):
        return np.zeros(shape, dtype=np.float32)

    tiny_llama.write_tensors(w, np, zeros(n_vocab, n_embd), zeros(n_vocab, n_embd), n_layer, n_ff, zeros)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
