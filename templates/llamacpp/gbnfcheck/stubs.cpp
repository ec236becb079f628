// Stubs for the vocabulary methods llama-grammar.cpp refers to: a grammar
// loaded without a vocabulary (as gbnfcheck loads it) never calls them.
#include "llama-vocab.h"

#include <cstdlib>

bool llama_vocab::is_eog(llama_token) const { abort(); }
const std::string & llama_vocab::token_to_piece(llama_token) const { abort(); }
int32_t llama_vocab::tokenize(const char *, int32_t, llama_token *, int32_t, bool, bool) const { abort(); }
