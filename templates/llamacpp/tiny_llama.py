"""The tiny "llama" model the GGUF writers of this directory share
(make_tiny_gguf.py, make_beam_gguf.py, make_tokenizer_gguf.py): its
hyperparameters and its tensors. Each writer chooses the vocabulary and the
weights; a model this small loads in llama-server in a moment and writes
what its weights favour.
"""


def open_writer(gguf, path, name, context, n_embd, n_ff, n_layer, n_head):
    """A GGUFWriter for path with a llama's hyperparameters (f32 tensors)."""
    w = gguf.GGUFWriter(path, "llama")
    w.add_name(name)
    w.add_context_length(context)
    w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff)
    w.add_block_count(n_layer)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    return w


def write_tensors(w, np, emb, out, n_layer, n_ff, weight):
    """Adds the token embedding emb and the output weights out (both
    n_vocab x n_embd), unit norms, and each layer's matrices made by
    weight(rows, cols); then writes the file and closes it."""
    n_embd = emb.shape[1]
    ones = np.ones(n_embd, dtype=np.float32)
    w.add_tensor("token_embd.weight", emb)
    w.add_tensor("output_norm.weight", ones)
    w.add_tensor("output.weight", out)
    for i in range(n_layer):
        w.add_tensor("blk.%d.attn_norm.weight" % i, ones)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor("blk.%d.%s.weight" % (i, name), weight(n_embd, n_embd))
        w.add_tensor("blk.%d.ffn_norm.weight" % i, ones)
        w.add_tensor("blk.%d.ffn_gate.weight" % i, weight(n_ff, n_embd))
        w.add_tensor("blk.%d.ffn_up.weight" % i, weight(n_ff, n_embd))
        w.add_tensor("blk.%d.ffn_down.weight" % i, weight(n_embd, n_ff))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
