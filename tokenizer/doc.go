// Package tokenizer loads a Hugging Face tokenizer.json of the byte-level
// BPE family (GPT-2, Llama 3, Qwen 2 and 3, DeepSeek V3, o200k and gpt-oss,
// Beam) and encodes and decodes text exactly as Hugging Face's tokenizers
// library does, in pure Go.
//
//	tk, err := tokenizer.Load("path/to/checkpoint") // or .../tokenizer.json
//	enc := tk.Encode("<|start|>user<|message|>Hi<|end|>")
//	enc.IDs          // token ids, markers included
//	enc.Offsets      // [start, end) of each token, in characters
//	enc.CharToToken(13)
//	text := tk.Decode(enc.IDs, true) // skip special tokens
//
// Encode works as tokenizer(text, add_special_tokens=False): the added
// tokens (Beam's markers) found in the text become their ids, and the text
// between them runs through the normalizer, the pre-tokenizer and the BPE
// model. EncodeOrdinary and AppendEncodeOrdinary encode text without
// matching added tokens, so marker text in user content stays ordinary text;
// a caller that places markers itself (a renderer) encodes the text between
// them with AppendEncodeOrdinary and appends each marker's TokenToID.
//
// What it runs: model BPE (both merges forms, ignore_merges,
// continuing_subword_prefix, end_of_word_suffix, byte_fallback, unk_token
// and fuse_unk); added tokens with special, normalized, lstrip, rstrip and
// single_word, their ids assigned by Hugging Face's rule; normalizers NFC,
// NFD, NFKC, NFKD and Sequence; pre-tokenizers Split (regex or string,
// every behavior, invert), Digits, ByteLevel (last) and Sequence;
// post-processors ByteLevel (trim_offsets) and TemplateProcessing (which
// adds nothing without special tokens); decoders ByteLevel, ByteFallback,
// Fuse, Strip, Replace and Sequence. Anything else is an error naming the
// component and its JSON path.
//
// Characters are classed with the Unicode versions Hugging Face's library
// reads, not Go's (15.0): 16.0 in Split patterns and single_word (its
// Oniguruma and regex crate), 17.0 in the Digits pre-tokenizer (its Rust
// standard library), and 9.0 in the normalizers (its
// unicode-normalization-alignments crate), so the ids and offsets of a text
// are Hugging Face's for characters assigned since any of them.
//
// A Tokenizer is safe for concurrent use. Encoding keeps a bounded cache of
// merged words per pooled state, so goroutines share no lock. EncodeBatch
// encodes many texts, or a few long ones, on all cores.
//
// # API
//
//   - Loading: [Load] (a checkpoint directory or a tokenizer.json, with
//     [FileName] and its tokenizer_config.json, bounded by [MaxFileBytes]
//     and the other limits of its group) or [New] (the two files' bytes)
//     gives a [Tokenizer]; [Fingerprint] identifies the files, for caches.
//   - Encoding: [Tokenizer.Encode] (an [Encoding]: ids with offsets in
//     characters, markers recognised) and [Tokenizer.EncodeOrdinary]
//     (marker text stays text); [Tokenizer.EncodeContext] and
//     [Tokenizer.EncodeOrdinaryContext] are the same bounded by a context,
//     failing with [ErrTimeout] when one match of a pre-tokenizer pattern
//     runs too long; [Tokenizer.AppendEncode],
//     [Tokenizer.AppendEncodeOrdinary] and
//     [Tokenizer.AppendEncodeOrdinaryContext] append ids only, without
//     allocating (what a server or a dataset pipeline asks);
//     [Tokenizer.EncodeBatch] and [Tokenizer.EncodeOrdinaryBatch] encode
//     many texts on all cores.
//   - Decoding and the vocabulary: [Tokenizer.Decode], [Tokenizer.TokenToID],
//     [Tokenizer.IDToToken], [Tokenizer.IsSpecial], [Tokenizer.EOS],
//     [Tokenizer.VocabSize], [Tokenizer.AddedTokens] ([AddedToken]), and
//     [Tokenizer.Warnings] (what loading accepted but noted).
package tokenizer
