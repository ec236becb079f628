#!/usr/bin/env python3
"""Writes a tokenizer.json's vocabulary for xgcheck -vocab: one token a line,
by id, its bytes in hexadecimal (an empty line for an id without a token).

Byte-level BPE vocabularies (GPT-2's byte-to-character map, as Beam's and
o200k's are) are mapped back to bytes; added tokens are their text in UTF-8.

Usage: templates/xgrammar/vocab.py TOKENIZER_JSON > vocab.hex
"""
import json
import sys


def byte_decoder():
    # GPT-2's map of the 256 bytes to printable characters, reversed.
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(keep, chars)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        tok = json.load(f)
    decode = byte_decoder()
    byte_level = "ByteLevel" in json.dumps(tok.get("pre_tokenizer")) or "ByteLevel" in json.dumps(tok.get("decoder"))
    tokens = {}
    for text, i in tok["model"]["vocab"].items():
        if byte_level and all(c in decode for c in text):
            tokens[i] = bytes(decode[c] for c in text)
        else:
            tokens[i] = text.encode("utf-8")
    for added in tok.get("added_tokens", []):
        tokens[added["id"]] = added["content"].encode("utf-8")
    out = sys.stdout
    for i in range(max(tokens) + 1):
        out.write(tokens.get(i, b"").hex() + "\n")


if __name__ == "__main__":
    main()
