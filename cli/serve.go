package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/console"
	"github.com/beamharmony/harmony/dataset"
	"github.com/beamharmony/harmony/internal/buildinfo"
	"github.com/beamharmony/harmony/internal/spell"
	"github.com/beamharmony/harmony/serve"
	"github.com/beamharmony/harmony/tokenizer"
)

func init() {
	extraCommands = append(extraCommands, command{"serve", "run an OpenAI-compatible gateway in front of an inference server", anyProgram(runServe)})
}

const serveHelp = `
Usage: beamharmony serve --backend URL[,URL...] [--listen ADDR] [--model NAME] [flags]

Run a gateway for Beam that speaks the OpenAI Chat Completions, OpenAI
Responses and Anthropic Messages APIs, in front of an inference server's raw
completions endpoint (vLLM, SGLang or llama.cpp's server). The gateway
renders each request with Beam's chat template, sends the prompt to
BACKEND/v1/completions, and parses the generated text back into reasoning,
content and tool calls, streamed or not.

Endpoints (each also without its /v1 prefix):
  POST /v1/chat/completions       the OpenAI Chat Completions API
  POST /v1/responses              the OpenAI Responses API (stateless unless the memory is on)
  POST /v1/messages               the Anthropic Messages API
  POST /v1/messages/count_tokens  the exact token count (501 without --tokenizer)
  GET  /v1/models                 --model, or the engine's list
  GET  /health                    200 when the engine answers, 503 when not
  GET  /metrics                   Prometheus metrics (on --metrics-listen when set)
  GET  /console/                  the web console (beamharmony console's, with the inspector)

A history whose assistant turns lack their reasoning is refused (400) unless
--allow-missing-thinking is set or the request sends
"chat_template_kwargs": {"allow_missing_thinking": true}. Message content or
names holding Harmony markers such as <|end|> are refused unless
--allow-markers is set. A system or developer message after a message of
another role is joined to the instructions before the first assistant
turn, and after one becomes a user message headed "# Instructions" in its
place (--refuse-late-instructions refuses it instead). Hosted tools the
gateway cannot run (web_search, code_interpreter, Anthropic's server tools)
are left out and listed in the X-Beam-Unenforced header
(--refuse-hosted-tools refuses them); with --search-backend the gateway runs
web search itself, with Beam's built-in search and browse tools. Reasoning sent back must carry the signature this
server gave it (HMAC under --signing-key; a random key per process when
unset, so give every replica the same key). For clients that drop it
(docs/agents.md), --reasoning-memory-bytes keeps the reasoning of the turns
the gateway wrote and restores it, listing the turns in the
X-Beam-Reasoning-Restored header; --allow-missing-thinking lets turns
without it through. With the memory the gateway also holds Anthropic's
message threads and the Responses API's previous_response_id.

Several engine replicas: repeat --backend (or list them, comma-separated;
a replica may carry a weight, URL;weight=2). Each request goes to the
replica that already holds the longest prefix of its prompt in its cache,
unless it is much busier than the others (--route-load-margin); a new
conversation goes to the replica its first question hashes to, so that
several gateways agree (--route-new hash, the default; --route-new fewest
balances a single gateway instead). Replicas are probed every
--probe-interval and left out while they fail; a request whose replica
fails before answering is retried on another. See docs/routing.md.

Constrained generation: tool_choice "required" or a named tool (Anthropic:
"any", "tool"), strict tools and response formats (json_object,
json_schema) are compiled into a grammar that keeps Beam's reasoning and is
sent in the engine's own field: llama.cpp's grammar, vLLM's
structured_outputs.grammar, SGLang's ebnf. --engine names the engine's kind,
or auto asks it at start-up. While the kind is unknown a constrained request
asks again, and then is a 503 (engine_unavailable) when the engine does not
answer (retry once it is up), or a 400 (engine_cannot_constrain) when it
answers as no engine the gateway knows (set --engine). Schema keywords the
grammar cannot enforce are a 400 under strict, otherwise left out and listed
in the X-Beam-Unenforced header.

Securing it: with --api-key or --api-key-file every endpoint but /health
needs a key ("Authorization: Bearer KEY"; the Anthropic routes also take
x-api-key), and /health details the engine only to a request with one.
Without a key anyone who can reach --listen can use the engine. --tls-cert
and --tls-key serve HTTPS; --cors-origins lets browser pages of those
origins call the gateway. SIGHUP reloads the key file and the certificate
(which is also picked up when its files change). See SECURITY.md.

The console at /console/ is the playground and dataset preview of
"beamharmony console", with the gateway's --tokenizer; its page needs no
key, its calls (/console/api/) need one, which the page asks for. With
--inspect N it also shows the last N requests the gateway served, kept in
memory within --inspect-bytes (the oldest evicted first): each with the
client's API and body, the rendered prompt, the grammar, the engine
request, the raw generation, the parsed reply, timings, the replica and
any error. --inspect-redact keeps their shape with the message text
replaced. Off by default: the text of every request stays in memory.

Every flag can also be set with the environment variable named in brackets;
a flag given on the command line wins. A BEAMHARMONY_ variable that is no
flag's is a warning, and close to a flag's (a misspelling) a usage error. The server stops on SIGINT or
SIGTERM, letting open streams finish for up to --shutdown-timeout.

Example:

  vllm serve /models/beam --port 8000 &
  beamharmony serve --backend http://localhost:8000 --listen :8080 --api-key-file /run/secrets/keys
`

// envPrefix starts the name of each flag's environment variable:
// --max-tokens is BEAMHARMONY_MAX_TOKENS.
const envPrefix = "BEAMHARMONY_"

// emptyMeansOff are the flags whose empty value turns a protection off: set
// empty in the environment (a template that rendered nothing, say), they
// are refused, as an empty BEAMHARMONY_API_KEY is.
var emptyMeansOff = map[string]bool{"api-key-file": true, "tls-cert": true, "tls-key": true}

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// serveSignals are what stops the server (SIGINT, SIGTERM: ctx ends) and
// what reloads its key file and certificate (SIGHUP). Tests replace
// newServeSignals.
type serveSignals struct {
	ctx    context.Context
	reload <-chan os.Signal
	stop   func()
}

var newServeSignals = func() serveSignals {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	return serveSignals{ctx: ctx, reload: hup, stop: func() { signal.Stop(hup); stop() }}
}

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", serveHelp, stdout, stderr)
	f := newServeFlags(fs)
	if err := f.fromEnv(fs); err != nil {
		// Reported as the flag package reports a bad value.
		fmt.Fprintln(fs.Output(), err)
		fs.Usage()
		return 2
	}
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		fail(stderr, "serve", fmt.Errorf("unexpected argument %q; see beamharmony serve --help", rest[0]))
		return 2
	}
	g, code := f.start(stderr)
	if code >= 0 {
		return code
	}
	return g.run(f, stderr)
}

// serveFlags are serve's flags, defined on the command's FlagSet by
// newServeFlags in the order --help lists them.
type serveFlags struct {
	backends                                 *listValue
	routeMargin, routeEntries                *int
	probeInterval                            *time.Duration
	routeNew                                 *string
	backendKey, listen, model                *string
	maxTokens                                *int64
	timeout, bodyTimeout, headerTimeout      *time.Duration
	idleTimeout                              *time.Duration
	maxConns                                 *int64
	shutdown                                 *time.Duration
	maxBody, maxPrompt, prepare              *int64
	allowMissing                             *bool
	reasoningMemory                          *int64
	signingKey                               *string
	pingInterval                             *time.Duration
	tokenizerPath                            *string
	maxModelLen                              *int
	allowMarkers, refuseLate, refuseHosted   *bool
	searchBackend                            *string
	searchPrivate                            *bool
	searchRounds                             *int64
	searchTimeout                            *time.Duration
	reasoningField                           *string
	apiKeys                                  *listValue
	apiKeyFile, tlsCert, tlsKey, corsOrigins *string
	metricsListen, engineKind                *string
	inspect                                  *int
	inspectBytes                             *int64
	inspectRedact                            *bool
	logFormat, logLevel                      *string
}

func newServeFlags(fs *flag.FlagSet) *serveFlags {
	usage := func(name, text string) string { return text + " [" + envName(name) + "]" }
	f := &serveFlags{}
	f.backends = listFlag(fs, "backend", usage("backend", "the engine's base `URL`, such as http://localhost:8000 (required); repeat the flag, or give a comma-separated list, for several replicas, each optionally with a weight: http://a:8000;weight=2"))
	f.routeMargin = fs.Int("route-load-margin", 0, usage("route-load-margin", "with several backends: how many more open requests than the least busy replica the replica holding a prompt's prefix may have and still get it (default 4)"))
	f.routeEntries = fs.Int("route-table-entries", 0, usage("route-table-entries", "with several backends: bound of the table of which replica holds which prompt blocks (default 524288, about 20 MB)"))
	f.probeInterval = fs.Duration("probe-interval", serve.DefaultProbeInterval, usage("probe-interval", "with several backends: how often each replica's health is checked"))
	f.routeNew = checkedFlag(fs, "route-new", serve.RouteNewHash, func(v string) error {
		_, err := serve.ParseRouteNew(v)
		return err
	}, usage("route-new", "with several backends: where a conversation no replica holds a prefix of goes, the `placement`: hash, the replica its first question (or the client's conversation key) hashes to, so that several gateways agree without sharing state; or fewest, the replica holding the fewest recent conversations, which spreads them more evenly behind a single gateway"))
	fs.Var(routeHashValue{f.routeNew}, "route-hash", usage("route-hash", "the former switch for --route-new hash, now the default; still accepted (false is --route-new fewest)"))
	f.backendKey = fs.String("backend-api-key", "", usage("backend-api-key", "bearer token to send to the engine"))
	f.listen = fs.String("listen", "127.0.0.1:8080", usage("listen", "address to listen on; :8080 for every interface"))
	f.model = fs.String("model", "", usage("model", "model name to send to the engine in place of the request's; the one /v1/models lists"))
	f.maxTokens = positiveFlag(fs, "default-max-tokens", serve.DefaultMaxTokens, math.MaxInt32, usage("default-max-tokens",
		"max_tokens, in `tokens`, for a request that sets none, when the context left is not known (it is with --tokenizer and a context length, from --max-model-len or the engine); capped at the context length when only that is known"))
	fs.Var(positiveValue{f.maxTokens, math.MaxInt32}, "max-tokens", usage("max-tokens", "the former name of --default-max-tokens, still accepted"))
	f.timeout = durationFlag(fs, "timeout", serve.DefaultTimeout, false, usage("timeout", "longest `duration` one engine request may take (504 past it)"))
	f.bodyTimeout = durationFlag(fs, "body-timeout", serve.DefaultBodyTimeout, false, usage("body-timeout", "longest `duration` a client may take to send a request body (408 past it, and the connection closes)"))
	f.headerTimeout = durationFlag(fs, "read-header-timeout", serve.DefaultReadHeaderTimeout, false, usage("read-header-timeout", "longest `duration` a client may take to send a request's headers"))
	f.idleTimeout = durationFlag(fs, "idle-timeout", serve.DefaultIdleTimeout, false, usage("idle-timeout", "close a kept-alive connection idle for this `duration`"))
	f.maxConns = positiveFlag(fs, "max-conns", serve.DefaultMaxConns, math.MaxInt32, usage("max-conns", "most `connections` open at once; further ones wait to be accepted"))
	f.shutdown = durationFlag(fs, "shutdown-timeout", serve.DefaultShutdownTimeout, true, usage("shutdown-timeout", "how long (a `duration`, 0 for none) open requests may run on after SIGINT or SIGTERM"))
	f.maxBody = positiveFlag(fs, "max-body-bytes", serve.DefaultMaxBodyBytes, math.MaxInt64, usage("max-body-bytes", "largest request body accepted, in `bytes` (413 beyond)"))
	f.maxPrompt = positiveFlag(fs, "max-prompt-bytes", serve.DefaultMaxPromptBytes, math.MaxInt64, usage("max-prompt-bytes", "with --tokenizer, the largest rendered prompt tokenized, in `bytes` (413 beyond): tokenizing takes memory in proportion"))
	f.prepare = new(int64) // 0: one per CPU, serve.Config's default
	fs.Var(cpusValue{positiveValue{f.prepare, math.MaxInt32}}, "prepare-concurrency", usage("prepare-concurrency", "most `requests` decoded, rendered and tokenized at once; the others wait their turn (503 past --timeout)"))
	f.allowMissing = fs.Bool("allow-missing-thinking", false, usage("allow-missing-thinking", "let histories whose assistant turns lack reasoning through"))
	f.reasoningMemory = fs.Int64("reasoning-memory-bytes", 0, usage("reasoning-memory-bytes", "keep the reasoning of the turns the gateway writes, up to this many `bytes` (the least recently used go first), and give it back to a turn that returns without it, found by its tool call ids or its answer's text, for the same API key (clients that drop reasoning_content or reasoning items); the same memory holds the Responses items item_reference names, and half of its bytes the Messages API's message threads and the Responses API's responses for previous_response_id; 0: off"))
	f.signingKey = fs.String("signing-key", "", usage("signing-key", "key that signs the reasoning handed out (thinking signatures); the same on every replica; random per process when empty"))
	f.pingInterval = durationFlag(fs, "ping-interval", serve.DefaultPingInterval, true, usage("ping-interval", "how long (a `duration`, 0 for never) a stream may stay silent before a keep-alive ping"))
	f.tokenizerPath = fs.String("tokenizer", "", usage("tokenizer", "Beam's tokenizer.json (or the checkpoint directory holding it): prompts go to the engine as token ids, in which marker text from requests is ordinary text, so it is accepted instead of refused; set it in front of llama.cpp, whose own tokenizer makes other ids for text with combining marks (docs/llama-cpp.md)"))
	f.maxModelLen = fs.Int("max-model-len", 0, usage("max-model-len", "the engine's context length in `tokens`: with --tokenizer a longer prompt is a 400 and max_tokens is fitted to what the context leaves; 0: read from the engine at start-up (llama.cpp's GET /props, vLLM's and SGLang's GET /v1/models; the smallest of several replicas), and while none is known a client's max_tokens above "+strconv.Itoa(serve.MaxTokensCeiling)+" is lowered to it"))
	f.allowMarkers = fs.Bool("allow-markers", false, usage("allow-markers", "let message content and names carry Harmony markers, which the engine reads as format tokens"))
	f.refuseLate = fs.Bool("refuse-late-instructions", false, usage("refuse-late-instructions", "refuse (400, in the words clients fall back on) a system or developer message after a message of another role, instead of placing it"))
	f.refuseHosted = fs.Bool("refuse-hosted-tools", false, usage("refuse-hosted-tools", "refuse (400) a hosted tool the gateway cannot run (web_search, code_interpreter, Anthropic's server tools), instead of leaving it out and reporting it"))
	f.searchBackend = fs.String("search-backend", "", usage("search-backend", "base `URL` of a SearXNG-compatible search API (GET URL/search?q=...&format=json): the gateway then runs the Responses web_search tool and the Messages web_search server tool itself, with Beam's built-in search and browse tools (docs/agents.md)"))
	f.searchPrivate = fs.Bool("search-allow-private", false, usage("search-allow-private", "let browse fetch pages at loopback, private and link-local addresses, refused by default"))
	f.searchRounds = positiveFlag(fs, "search-max-rounds", serve.DefaultSearchRounds, 1000, usage("search-max-rounds", "most `generations` of one request whose search and browse calls the gateway runs"))
	f.searchTimeout = durationFlag(fs, "search-timeout", serve.DefaultSearchTimeout, false, usage("search-timeout", "most time (a `duration`) one request's searches and page fetches take, all together"))
	f.reasoningField = checkedFlag(fs, "reasoning-field", "both", func(v string) error {
		_, err := serve.ParseReasoningFields(v)
		return err
	}, usage("reasoning-field", "where reasoning goes out, the `field`: both, reasoning_content or reasoning"))
	f.apiKeys = listFlag(fs, "api-key", usage("api-key", "a `key` clients must send (repeat the flag for several); prefer --api-key-file, as a command line is visible to other users"))
	f.apiKeyFile = fs.String("api-key-file", "", usage("api-key-file", "`file` of API keys, one a line (# comments), reloaded on SIGHUP"))
	f.tlsCert = fs.String("tls-cert", "", usage("tls-cert", "PEM certificate `file` (chain first) to serve HTTPS with; reloaded on SIGHUP and when it changes"))
	f.tlsKey = fs.String("tls-key", "", usage("tls-key", "PEM private key `file` of --tls-cert"))
	f.corsOrigins = checkedFlag(fs, "cors-origins", "", func(v string) error {
		_, err := parseCORSOrigins(v)
		return err
	}, usage("cors-origins", "comma-separated `origins` (https://app.example.com, or * for any) whose browser pages may call the gateway; none by default"))
	f.metricsListen = fs.String("metrics-listen", "", usage("metrics-listen", "`address` to serve /metrics on, without a key, instead of the API's port"))
	f.engineKind = checkedFlag(fs, "engine", "auto", func(v string) error {
		_, err := serve.ParseEngineKind(v)
		return err
	}, usage("engine", "the engine's `kind`, which decides how constrained requests send their grammar: llama.cpp, vllm, sglang, or auto to ask the engine (GET /props, /version, /get_server_info) at start-up"))
	f.inspect = fs.Int("inspect", 0, usage("inspect", "keep the last `N` requests in memory for the console's inspector at /console/ (0: off)"))
	f.inspectBytes = positiveFlag(fs, "inspect-bytes", console.DefaultInspectBytes, math.MaxInt64, usage("inspect-bytes", "most `bytes` the inspector keeps; the oldest requests are evicted past it"))
	f.inspectRedact = fs.Bool("inspect-redact", false, usage("inspect-redact", "keep the inspected requests with their message text replaced"))
	f.logFormat = checkedFlag(fs, "log-format", "json", checkLogFormat, usage("log-format", "log `format`: json or text"))
	f.logLevel = checkedFlag(fs, "log-level", "info", checkLogLevel, usage("log-level", "log `level`: debug, info, warn or error"))
	return f
}

// fromEnv sets each flag from its environment variable; the command line,
// parsed after, wins. An error is worded as the flag package words a bad
// value.
func (f *serveFlags) fromEnv(fs *flag.FlagSet) error {
	var envErr error
	_, newName := os.LookupEnv(envName("default-max-tokens"))
	fs.VisitAll(func(fl *flag.Flag) {
		if fl.Name == "max-tokens" && newName {
			return // the new name wins
		}
		if v, ok := os.LookupEnv(envName(fl.Name)); ok && envErr == nil {
			if v == "" && emptyMeansOff[fl.Name] {
				// Set but empty would silently serve without keys or TLS.
				envErr = fmt.Errorf("%s is set but empty: unset it, or name a file", envName(fl.Name))
				return
			}
			if err := fs.Set(fl.Name, v); err != nil {
				envErr = fmt.Errorf("%s=%q: %w", envName(fl.Name), v, err)
			}
		}
	})
	f.apiKeys.fromEnv = len(*f.apiKeys.vals) > 0
	f.backends.fromEnv = len(*f.backends.vals) > 0
	if envErr != nil {
		return envErr
	}
	return unknownEnv(fs, os.Environ(), fs.Output())
}

// unknownEnv checks the environment's variables named with envPrefix
// against the flags' (environ holds NAME=value pairs). Nothing else reads
// them, so a misspelt one (BEAMHARMONY_APIKEY) would leave its setting at
// the default without a word, keys and TLS included: a name close to a
// flag's is an error naming the one it was probably meant to be, any
// other a warning on w.
func unknownEnv(fs *flag.FlagSet, environ []string, w io.Writer) error {
	known := map[string]bool{}
	var names []string
	fs.VisitAll(func(fl *flag.Flag) {
		known[envName(fl.Name)] = true
		names = append(names, envName(fl.Name))
	})
	var unknown []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, envPrefix) && !known[name] {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		if near := closestEnv(name, names); near != "" {
			return fmt.Errorf("%s is not a setting of beamharmony serve; did you mean %s?", name, near)
		}
		fmt.Fprintf(w, "beamharmony serve: warning: %s is not a setting of beamharmony serve; it is ignored\n", name)
	}
	return nil
}

// closestEnv is the flag's variable name closest to name (spell.Closest
// on the parts after envPrefix, as lint's suggestions), "" when none is
// close.
func closestEnv(name string, names []string) string {
	rests := make([]string, len(names))
	for i, n := range names {
		rests[i] = strings.TrimPrefix(n, envPrefix)
	}
	if near := spell.Closest(strings.TrimPrefix(name, envPrefix), rests); near != "" {
		return envPrefix + near
	}
	return ""
}

// gateway is a started gateway: its server and listeners, before it serves.
type gateway struct {
	logger    *slog.Logger
	srv       *serve.Server
	certs     *certReloader // nil without TLS
	ln        net.Listener
	metricsLn net.Listener // nil unless --metrics-listen
	loadKeys  func() ([]string, error)
	kind      serve.EngineKind
	replicas  int
}

// start checks the flags, makes the server (reading the key file, the
// tokenizer and the certificate) and opens the listeners. code is the exit
// code when it fails, -1 when it does not.
func (f *serveFlags) start(stderr io.Writer) (g *gateway, code int) {
	if (*f.tlsCert == "") != (*f.tlsKey == "") {
		fail(stderr, "serve", errors.New("--tls-cert and --tls-key go together"))
		return nil, 2
	}
	backendList, err := parseBackends(*f.backends.vals)
	if err != nil {
		fail(stderr, "serve", err)
		return nil, 2
	}
	fields, err := serve.ParseReasoningFields(*f.reasoningField)
	if err != nil {
		return nil, fail(stderr, "serve", err)
	}
	logger, err := newLogger(stderr, *f.logFormat, *f.logLevel)
	if err != nil {
		return nil, fail(stderr, "serve", err)
	}
	if *f.maxModelLen < 0 {
		fail(stderr, "serve", fmt.Errorf("--max-model-len %d: must be 0 or more", *f.maxModelLen))
		return nil, 2
	}
	kind, err := serve.ParseEngineKind(*f.engineKind)
	if err != nil {
		return nil, fail(stderr, "serve", err)
	}
	origins, err := parseCORSOrigins(*f.corsOrigins)
	if err != nil {
		return nil, fail(stderr, "serve", err)
	}
	loadKeys := func() ([]string, error) {
		keys := slices.Clone(*f.apiKeys.vals)
		if *f.apiKeyFile != "" {
			fileKeys, err := readKeyFile(*f.apiKeyFile)
			if err != nil {
				return nil, err
			}
			keys = append(keys, fileKeys...)
		}
		return keys, nil
	}
	keys, err := loadKeys()
	if err != nil {
		return nil, fail(stderr, "serve", err)
	}
	var tok harmony.TokenEncoder
	if *f.tokenizerPath != "" {
		tk, err := tokenizer.Load(*f.tokenizerPath)
		if err != nil {
			return nil, fail(stderr, "serve", err)
		}
		tok = tk
		if w := standInWarning(*f.tokenizerPath); w != "" {
			fmt.Fprintf(stderr, "beamharmony serve: warning: %s\n", w)
		}
	}
	if *f.reasoningMemory < 0 {
		fail(stderr, "serve", fmt.Errorf("--reasoning-memory-bytes %d: must be 0 (off) or more", *f.reasoningMemory))
		return nil, 2
	}
	srv, err := serve.New(serve.Config{
		Tokenizer:              tok,
		ConsoleParquet:         dataset.ParquetRows,
		MaxModelLen:            *f.maxModelLen,
		Backends:               backendList,
		Routing:                serve.Routing{LoadMargin: *f.routeMargin, TableEntries: *f.routeEntries, ProbeInterval: *f.probeInterval, NewConversations: *f.routeNew},
		BackendAPIKey:          *f.backendKey,
		Engine:                 kind,
		Model:                  *f.model,
		MaxTokens:              int(*f.maxTokens),
		Timeout:                *f.timeout,
		MaxBodyBytes:           *f.maxBody,
		MaxPromptBytes:         *f.maxPrompt,
		PrepareConcurrency:     int(*f.prepare),
		BodyTimeout:            *f.bodyTimeout,
		AllowMissingThinking:   *f.allowMissing,
		ReasoningMemoryBytes:   *f.reasoningMemory,
		AllowMarkers:           *f.allowMarkers,
		RefuseLateInstructions: *f.refuseLate,
		RefuseHostedTools:      *f.refuseHosted,
		WebSearch:              serve.WebSearch{Backend: *f.searchBackend, AllowPrivate: *f.searchPrivate, MaxRounds: int(*f.searchRounds), Timeout: *f.searchTimeout},
		ReasoningFields:        fields,
		SigningKey:             *f.signingKey,
		PingInterval:           pingIntervalConfig(*f.pingInterval),
		APIKeys:                keys,
		CORSOrigins:            origins,
		SeparateMetrics:        *f.metricsListen != "",
		Logger:                 logger,
	})
	if err != nil {
		return nil, fail(stderr, "serve", err)
	}
	if *f.inspect < 0 {
		fail(stderr, "serve", fmt.Errorf("--inspect %d: must be 0 (off) or more", *f.inspect))
		return nil, 2
	}
	srv.Inspect(*f.inspect, *f.inspectBytes, *f.inspectRedact)
	g = &gateway{logger: logger, srv: srv, loadKeys: loadKeys, kind: kind, replicas: len(backendList)}
	if *f.tlsCert != "" {
		g.certs, err = newCertReloader(*f.tlsCert, *f.tlsKey, func(err error) {
			logger.Error("tls certificate reload failed; serving the previous one", slog.String("error", err.Error()))
		})
		if err != nil {
			return nil, fail(stderr, "serve", err)
		}
	}
	if g.ln, err = net.Listen("tcp", *f.listen); err != nil {
		return nil, fail(stderr, "serve", err)
	}
	if *f.metricsListen != "" {
		if g.metricsLn, err = net.Listen("tcp", *f.metricsListen); err != nil {
			g.ln.Close()
			return nil, fail(stderr, "serve", err)
		}
	}
	g.logStart(f, len(keys), origins)
	return g, -1
}

// logStart logs the listening record, and warns when no key guards an
// address beyond the loopback.
func (g *gateway) logStart(f *serveFlags, keys int, origins []string) {
	bi := buildinfo.Read()
	attrs := []any{slog.String("addr", g.ln.Addr().String()), slog.Any("backend", g.srv.Backends()),
		slog.String("version", bi.Version), slog.String("commit", bi.Commit), slog.String("go_version", bi.GoVersion),
		slog.Bool("tls", g.certs != nil), slog.Int("api_keys", keys), slog.Any("cors_origins", origins),
		slog.Bool("allow_missing_thinking", *f.allowMissing), slog.Bool("allow_markers", *f.allowMarkers), slog.String("engine", g.kind.String())}
	if g.metricsLn != nil {
		attrs = append(attrs, slog.String("metrics_addr", g.metricsLn.Addr().String()))
	}
	if g.replicas > 1 {
		attrs = append(attrs, slog.String("route_new", *f.routeNew))
	}
	if *f.reasoningMemory > 0 {
		attrs = append(attrs, slog.Int64("reasoning_memory_bytes", *f.reasoningMemory))
	}
	g.logger.Info("listening", attrs...)
	if keys == 0 && !isLoopback(g.ln.Addr()) {
		g.logger.Warn("no API key: anyone who can reach this address can use the engine; set --api-key-file (or --api-key), or listen on a loopback address",
			slog.String("addr", g.ln.Addr().String()))
	}
}

// run serves until SIGINT or SIGTERM, with the start-up detections and
// the replicas' probes in the background and SIGHUP reloading the key
// file and the certificate, then shuts down; it returns the exit code.
func (g *gateway) run(f *serveFlags, stderr io.Writer) int {
	logger, srv := g.logger, g.srv
	sig := newServeSignals()
	defer sig.stop()
	if g.kind == serve.EngineAuto {
		// The result is logged; a constrained request that comes first
		// waits for it. It takes at most serve.DetectTimeout.
		go func() { _, _ = srv.DetectEngine(sig.ctx) }()
	}
	if *f.maxModelLen == 0 {
		// Logged when found; requests until then are bounded by
		// serve.MaxTokensCeiling.
		go func() { _, _ = srv.DetectContextLength(sig.ctx) }()
	}
	if g.replicas > 1 {
		go srv.Probe(sig.ctx)
	}
	go func() {
		for {
			select {
			case <-sig.ctx.Done():
				return
			case <-sig.reload:
				reloadServe(logger, srv, g.certs, *f.apiKeyFile, g.loadKeys)
			}
		}
	}()
	grace := *f.shutdown
	if grace == 0 {
		grace = -1 // --shutdown-timeout 0: no time to finish (RunOptions reads 0 as the default)
	}
	opts := serve.RunOptions{ShutdownTimeout: grace, ReadHeaderTimeout: *f.headerTimeout, IdleTimeout: *f.idleTimeout,
		MaxConns: int(*f.maxConns), Logger: logger}
	if g.certs != nil {
		opts.TLSConfig = g.certs.TLSConfig()
	}
	metricsDone := make(chan error, 1)
	if g.metricsLn != nil {
		go func() {
			metricsDone <- serve.Run(sig.ctx, g.metricsLn, srv.MetricsHandler(), serve.RunOptions{ReadHeaderTimeout: *f.headerTimeout,
				IdleTimeout: *f.idleTimeout, MaxConns: 64, Logger: logger})
		}()
	} else {
		metricsDone <- nil
	}
	err := serve.Run(sig.ctx, g.ln, srv, opts)
	sig.stop()
	if merr := <-metricsDone; merr != nil && err == nil && !errors.Is(merr, context.DeadlineExceeded) {
		err = fmt.Errorf("metrics listener: %w", merr)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			logger.Warn("open requests were cancelled at the shutdown deadline")
			return 1
		}
		return fail(stderr, "serve", err)
	}
	logger.Info("stopped")
	return 0
}

// reloadServe rereads the key file and the certificate (SIGHUP). What
// fails to load is logged and the current keys or certificate stay.
func reloadServe(logger *slog.Logger, srv *serve.Server, certs *certReloader, keyFile string, loadKeys func() ([]string, error)) {
	if keyFile != "" {
		if keys, err := loadKeys(); err != nil {
			logger.Error("api key reload failed; the previous keys stay", slog.String("error", err.Error()))
		} else if err := srv.SetAPIKeys(keys); err != nil {
			logger.Error("api key reload failed; the previous keys stay", slog.String("error", err.Error()))
		} else {
			logger.Info("api keys reloaded", slog.Int("api_keys", len(keys)))
		}
	}
	if certs != nil {
		if err := certs.Reload(); err != nil {
			logger.Error("tls certificate reload failed; serving the previous one", slog.String("error", err.Error()))
		} else {
			logger.Info("tls certificate reloaded")
		}
	}
}

// routeHashValue is --route-hash, the former switch for --route-new hash
// (now the default), still accepted: true is hash, false fewest.
type routeHashValue struct{ placement *string }

func (v routeHashValue) IsBoolFlag() bool { return true }

func (v routeHashValue) String() string {
	return strconv.FormatBool(v.placement != nil && *v.placement == serve.RouteNewHash)
}

func (v routeHashValue) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("use true or false")
	}
	*v.placement = serve.RouteNewFewest
	if on {
		*v.placement = serve.RouteNewHash
	}
	return nil
}

// isLoopback reports whether addr listens on a loopback address only.
func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// pingIntervalConfig maps --ping-interval to Config.PingInterval, where 0
// means the default and a negative value never.
func pingIntervalConfig(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// newLogger returns a slog logger writing to w in the given format and at
// the given level (both checked by their flags).
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	if err := checkLogFormat(format); err != nil {
		return nil, err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, checkLogLevel(level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return slog.New(slog.NewJSONHandler(w, opts)), nil
}

func checkLogFormat(format string) error {
	if format != "json" && format != "text" {
		return fmt.Errorf("log format %q: use json or text", format)
	}
	return nil
}

func checkLogLevel(level string) error {
	var lv slog.Level
	if lv.UnmarshalText([]byte(level)) != nil {
		return fmt.Errorf("log level %q: use debug, info, warn or error", level)
	}
	return nil
}

// parseBackends reads the --backend values: each a URL or a
// comma-separated list of them, each URL optionally followed by
// ";weight=N" (a positive number).
func parseBackends(vals []string) ([]serve.Backend, error) {
	var out []serve.Backend
	for _, v := range vals {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			b := serve.Backend{URL: item}
			if u, opt, ok := strings.Cut(item, ";"); ok {
				w, found := strings.CutPrefix(opt, "weight=")
				f, err := strconv.ParseFloat(w, 64)
				if !found || err != nil || !(f > 0) || math.IsInf(f, 0) {
					return nil, fmt.Errorf("--backend %q: after the URL, only ;weight=N with a positive number", item)
				}
				b = serve.Backend{URL: u, Weight: f}
			}
			out = append(out, b)
		}
	}
	// None: serve.New says the backend is required.
	return out, nil
}
