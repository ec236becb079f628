/* Stubs for the ggml and gguf symbols llama-grammar.cpp and llama-impl.cpp
   refer to, so that gbnfcheck links without ggml: logging and the clock
   work, the gguf accessors are never called (they abort). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void ggml_abort(const char *file, int line, const char *fmt, ...) {
    fprintf(stderr, "abort %s:%d %s\n", file, line, fmt);
    abort();
}
void ggml_log_get(void **a, void **b) { *a = 0; *b = 0; }
void ggml_log_set(void *a, void *b) { (void)a; (void)b; }
int64_t ggml_time_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

#define STUB(n) void n(void) { abort(); }
STUB(gguf_get_arr_data)
STUB(gguf_get_arr_n)
STUB(gguf_get_arr_str)
STUB(gguf_get_arr_type)
STUB(gguf_get_kv_type)
STUB(gguf_get_val_data)
STUB(gguf_get_val_str)
