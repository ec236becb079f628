// gbnfcheck loads a GBNF grammar with llama.cpp's own grammar parser (the
// code llama-server runs on a request's "grammar" field), reports how long
// the load took and the process's peak memory, then checks whole texts
// against the grammar the way llama.cpp's tests/test-gbnf-validator.cpp
// does: every code point fed to llama_grammar_accept, the text matches when
// some stack is empty at its end.
//
// Usage: gbnfcheck [-repeat N] GRAMMAR [TEXT...]
//
// With -repeat the grammar is loaded N times and the fastest load reported
// (on a busy machine one load's time is mostly noise).
//
// Output, one line each:
//   load_us=N cpu_us=N maxrss_kb=N rules=N
//                       the grammar loaded: the load's wall-clock time and
//                       the thread's CPU time for it, the process's peak
//                       memory, the rules after llama.cpp expanded the
//                       repetitions
//   refused load_us=N cpu_us=N
//                       llama.cpp refused it (exit status 1)
//   ok FILE | fail FILE             per TEXT: in the grammar or not
// Exit status 2 for a usage error or a file that can't be read.
//
// Built by templates/llamacpp/grammar.sh against a llama.cpp checkout, with
// the stubs in stubs.cpp and stubs_c.c for the symbols a grammar loaded
// without a vocabulary never calls. This is Beam's code, not llama.cpp's.
#include "llama-grammar.h"
#include "unicode.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <time.h>

// slurp reads a whole file; ok is false when it can't be opened.
static std::string slurp(const char * path, bool & ok) {
    std::ifstream f(path, std::ios::binary);
    ok = f.is_open();
    std::stringstream b;
    b << f.rdbuf();
    return b.str();
}

// matches feeds text to g (which it consumes) and reports whether the
// whole text is in the grammar.
static bool matches(llama_grammar * g, const std::string & text) {
    const auto cpts = unicode_cpts_from_utf8(text);
    const auto & stacks = llama_grammar_get_stacks(g);
    for (const auto c : cpts) {
        llama_grammar_accept(g, c);
        if (stacks.empty()) {
            return false;
        }
    }
    for (const auto & s : stacks) {
        if (s.empty()) {
            return true;
        }
    }
    return false;
}

// cpu_us is the CPU time of the calling thread, in microseconds.
static long long cpu_us() {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long long) t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

// load loads the grammar src, setting us to the time it took and cpu to
// the CPU time (which a busy machine's waits don't count).
static llama_grammar * load(const std::string & src, long long & us, long long & cpu) {
    const long long c0 = cpu_us();
    const auto t0 = std::chrono::steady_clock::now();
    llama_grammar * g = llama_grammar_init_impl(nullptr, src.c_str(), "root", false, nullptr, 0, nullptr, 0);
    const auto t1 = std::chrono::steady_clock::now();
    cpu = cpu_us() - c0;
    us = std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count();
    return g;
}

int main(int argc, char ** argv) {
    int arg = 1;
    long repeat = 1;
    if (argc > 2 && std::string(argv[1]) == "-repeat") {
        repeat = strtol(argv[2], nullptr, 10);
        arg = 3;
    }
    if (argc <= arg || repeat < 1) {
        fprintf(stderr, "usage: gbnfcheck [-repeat N] GRAMMAR [TEXT...]\n");
        return 2;
    }
    bool ok;
    const std::string src = slurp(argv[arg], ok);
    if (!ok) {
        fprintf(stderr, "gbnfcheck: can't read %s\n", argv[arg]);
        return 2;
    }
    long long us, cpu;
    llama_grammar * g = load(src, us, cpu);
    if (g == nullptr) {
        printf("refused load_us=%lld cpu_us=%lld\n", us, cpu);
        return 1;
    }
    for (long i = 1; i < repeat; i++) {
        long long us2, cpu2;
        llama_grammar_free_impl(g);
        g = load(src, us2, cpu2);
        if (us2 < us) {
            us = us2;
        }
        if (cpu2 < cpu) {
            cpu = cpu2;
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("load_us=%lld cpu_us=%lld maxrss_kb=%ld rules=%zu\n", us, cpu, ru.ru_maxrss, llama_grammar_get_rules(g).size());
    for (int i = arg + 1; i < argc; i++) {
        const std::string text = slurp(argv[i], ok);
        if (!ok) {
            fprintf(stderr, "gbnfcheck: can't read %s\n", argv[i]);
            return 2;
        }
        llama_grammar * c = llama_grammar_clone_impl(*g);
        printf("%s %s\n", matches(c, text) ? "ok" : "fail", argv[i]);
        llama_grammar_free_impl(c);
    }
    llama_grammar_free_impl(g);
    return 0;
}
