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
    w = gguf.GGUFWriter(args.out, "llama")
    w.add_name("beamharmony-template-check")
    w.add_context_length(512)
    w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff)
    w.add_block_count(n_layer)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

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

    w.add_tensor("token_embd.weight", zeros(n_vocab, n_embd))
    w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    w.add_tensor("output.weight", zeros(n_vocab, n_embd))
    for i in range(n_layer):
        w.add_tensor("blk.%d.attn_norm.weight" % i, np.ones(n_embd, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor("blk.%d.%s.weight" % (i, name), zeros(n_embd, n_embd))
        w.add_tensor("blk.%d.ffn_norm.weight" % i, np.ones(n_embd, dtype=np.float32))
        w.add_tensor("blk.%d.ffn_gate.weight" % i, zeros(n_ff, n_embd))
        w.add_tensor("blk.%d.ffn_up.weight" % i, zeros(n_ff, n_embd))
        w.add_tensor("blk.%d.ffn_down.weight" % i, zeros(n_embd, n_ff))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
