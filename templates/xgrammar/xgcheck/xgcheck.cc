// xgcheck compiles a grammar with xgrammar, the grammar engine vLLM and
// SGLang run on a request's EBNF grammar: its EBNF parser, then its
// grammar compiler (with a tokenizer's vocabulary when given, as an engine
// compiles it), reports the compile's time and the process's peak memory,
// then checks whole texts against the compiled grammar with xgrammar's
// matcher: every byte accepted and the matcher able to end there, as
// xgrammar's own testing helper for grammars and strings does.
//
// Usage: xgcheck [-repeat N] [-vocab FILE] [-steps N] [-prefer BYTES] [-json-schema] GRAMMAR [TEXT...]
//
//   -repeat N   compile N times and report the fastest (on a busy machine
//               one compile's time is mostly noise)
//   -vocab FILE the vocabulary to compile for: one token a line, its bytes
//               in hexadecimal (templates/xgrammar/vocab.py writes it from a
//               tokenizer.json); without it, an empty vocabulary
//   -steps N    then generate up to N tokens as an engine does: fill the
//               mask of the allowed tokens, accept one of them drawn by a
//               fixed pseudo-random sequence, again; two grammars of one
//               language draw the same tokens, so their mask times compare
//   -prefer BYTES with -steps: every other token is drawn from the allowed
//               tokens holding one of BYTES, when there are any (a path
//               through the states a text is rarely in, such as the prefixes
//               of the markers with -prefer '<|')
//   -json-schema GRAMMAR is a JSON Schema, made a grammar by xgrammar's own
//               converter with the arguments vLLM's and SGLang's JSON
//               schema requests use (any whitespace, strict mode): what a
//               schema costs an engine that converts it itself, beside
//               what Beam's grammar of it costs (gap decision 268)
//
// Output, one line each:
//   compile_us=N cpu_us=N maxrss_kb=N
//                       the grammar compiled: the compile's wall-clock
//                       time and the process's CPU time for it, and the
//                       process's peak memory
//   refused compile_us=N cpu_us=N
//                       xgrammar refused it (the reason on standard error,
//                       exit status 1)
//   steps=N mask_us=N tokens=HASH
//                       with -steps: the tokens generated, the mean CPU
//                       time of a mask, a hash of the tokens drawn
//   ok FILE | fail FILE per TEXT: in the grammar or not
// Exit status 2 for a usage error or a file that can't be read.
//
// Built by templates/xgrammar/grammar.sh against an xgrammar checkout. This
// is Beam's code, not xgrammar's.
#include <xgrammar/xgrammar.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <time.h>
#include <vector>

using namespace xgrammar;

// slurp reads a whole file; ok is false when it can't be opened.
static std::string slurp(const char* path, bool& ok) {
  std::ifstream f(path, std::ios::binary);
  ok = f.is_open();
  std::stringstream b;
  b << f.rdbuf();
  return b.str();
}

// readVocab reads one token a line, in hexadecimal.
static bool readVocab(const char* path, std::vector<std::string>& vocab) {
  std::ifstream f(path);
  if (!f.is_open()) return false;
  std::string line;
  while (std::getline(f, line)) {
    std::string token;
    for (size_t i = 0; i + 1 < line.size(); i += 2) {
      token += static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16));
    }
    vocab.push_back(token);
  }
  return true;
}

static double cpuMicros() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  int repeat = 1, steps = 0;
  const char* vocabPath = nullptr;
  std::string prefer;
  int i = 1;
  bool jsonSchema = false;
  for (; i < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "-json-schema")) {
      jsonSchema = true;
      i--;
      continue;
    }
    if (i + 1 >= argc) break;
    if (!strcmp(argv[i], "-repeat")) {
      repeat = atoi(argv[i + 1]);
    } else if (!strcmp(argv[i], "-vocab")) {
      vocabPath = argv[i + 1];
    } else if (!strcmp(argv[i], "-steps")) {
      steps = atoi(argv[i + 1]);
    } else if (!strcmp(argv[i], "-prefer")) {
      prefer = argv[i + 1];
    } else {
      break;
    }
  }
  if (i >= argc || repeat < 1) {
    fprintf(stderr, "usage: xgcheck [-repeat N] [-vocab FILE] [-steps N] [-prefer BYTES] [-json-schema] GRAMMAR [TEXT...]\n");
    return 2;
  }
  bool ok;
  std::string grammarText = slurp(argv[i], ok);
  if (!ok) {
    fprintf(stderr, "xgcheck: can't read %s\n", argv[i]);
    return 2;
  }
  std::vector<std::string> vocab;
  if (vocabPath && !readVocab(vocabPath, vocab)) {
    fprintf(stderr, "xgcheck: can't read %s\n", vocabPath);
    return 2;
  }
  TokenizerInfo info(vocab, VocabType::RAW);
  // One thread and no cache: each compile is the whole work, timed alone.
  GrammarCompiler compiler(info, 1, false);
  std::optional<CompiledGrammar> compiled;
  double bestWall = 1e18, bestCPU = 1e18;
  for (int r = 0; r < repeat; r++) {
    auto start = std::chrono::steady_clock::now();
    double cpu = cpuMicros();
    try {
      compiled = compiler.CompileGrammar(
          jsonSchema ? Grammar::FromJSONSchema(grammarText, true, std::nullopt, std::nullopt, true)
                     : Grammar::FromEBNF(grammarText, "root"));
    } catch (const std::exception& e) {
      double wall = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      printf("refused compile_us=%.0f cpu_us=%.0f\n", wall, cpuMicros() - cpu);
      fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    double wall = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    bestWall = std::min(bestWall, wall);
    bestCPU = std::min(bestCPU, cpuMicros() - cpu);
  }
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("compile_us=%.0f cpu_us=%.0f maxrss_kb=%ld\n", bestWall, bestCPU, ru.ru_maxrss);
  if (steps > 0) {
    int vocabSize = static_cast<int>(vocab.size());
    std::vector<int32_t> bits(GetBitmaskSize(vocabSize));
    int64_t shape[1] = {static_cast<int64_t>(bits.size())};
    DLTensor mask{};
    mask.data = bits.data();
    mask.device = DLDevice{kDLCPU, 0};
    mask.ndim = 1;
    mask.dtype = DLDataType{kDLInt, 32, 1};
    mask.shape = shape;
    GrammarMatcher matcher(*compiled, std::nullopt, true);
    uint64_t rng = 88172645463325252ull, hash = 1469598103934665603ull;
    double spent = 0;
    int done = 0;
    std::vector<int> allowed;
    for (; done < steps; done++) {
      double cpu = cpuMicros();
      matcher.FillNextTokenBitmask(&mask);
      spent += cpuMicros() - cpu;
      allowed.clear();
      for (int t = 0; t < vocabSize; t++) {
        if (bits[t / 32] >> (t % 32) & 1) allowed.push_back(t);
      }
      if (allowed.empty()) break;
      if (!prefer.empty() && done % 2 == 0) {
        std::vector<int> holding;
        for (int t : allowed) {
          if (vocab[t].find_first_of(prefer) != std::string::npos) holding.push_back(t);
        }
        if (!holding.empty()) allowed.swap(holding);
      }
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      int token = allowed[rng % allowed.size()];
      hash = (hash ^ static_cast<uint64_t>(token)) * 1099511628211ull;
      if (!matcher.AcceptToken(token)) break;
    }
    printf("steps=%d mask_us=%.1f tokens=%016llx\n", done, done ? spent / done : 0.0, static_cast<unsigned long long>(hash));
  }
  for (int t = i + 1; t < argc; t++) {
    std::string text = slurp(argv[t], ok);
    if (!ok) {
      fprintf(stderr, "xgcheck: can't read %s\n", argv[t]);
      return 2;
    }
    GrammarMatcher matcher(*compiled, std::nullopt, true);
    bool in = matcher.AcceptString(text) && matcher.IsTerminated();
    printf("%s %s\n", in ? "ok" : "fail", argv[t]);
  }
  return 0;
}
