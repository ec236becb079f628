package serve

import (
	"errors"
	"fmt"
	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/console"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Defaults of Config's fields, used when a field is left zero.
const (
	// DefaultMaxTokens is the engine's max_tokens when a request sets
	// neither max_completion_tokens nor max_tokens. Engines default to 16,
	// which would cut Beam off in the middle of its reasoning.
	DefaultMaxTokens = 8192
	// DefaultMaxBodyBytes caps a request body (DECISIONS.md, Serving).
	DefaultMaxBodyBytes = 16 << 20
	// DefaultTimeout bounds one engine request, from sending it to the
	// last byte of the generation.
	DefaultTimeout = 10 * time.Minute
	// DefaultHealthTimeout bounds each request the gateway makes to check
	// an engine: GET /health's, each replica probe (every
	// Config.ProbeInterval) and the engine's model list that GET
	// /v1/models returns when Config.Model is empty.
	DefaultHealthTimeout = 5 * time.Second
	// DefaultPingInterval is how long a stream may stay silent before the
	// gateway writes a keep-alive (the Messages API's ping event).
	DefaultPingInterval = 10 * time.Second
	// DefaultBodyTimeout bounds the time a client may take to send a
	// request body once its headers have arrived (408 past it).
	DefaultBodyTimeout = time.Minute
	// DefaultMaxPromptBytes caps the prompt text a request may have
	// tokenized: 2 MiB, 16 bytes a token for a 128k-token context, several
	// times what text takes. Tokenizing one long word takes about 100
	// bytes of memory a byte, so this bounds a request to about 200 MiB.
	DefaultMaxPromptBytes = 2 << 20
)

// Defaults of RunOptions' fields, used when a field is left zero.
const (
	// DefaultReadHeaderTimeout bounds the time a client may take to send
	// a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection that sends no new
	// request for that long.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxConns caps the connections open at once; further ones
	// wait to be accepted.
	DefaultMaxConns = 4096
	// DefaultShutdownTimeout is how long open requests may run on after
	// shutdown begins (RunOptions.ShutdownTimeout left zero, and the
	// command line's default).
	DefaultShutdownTimeout = 30 * time.Second
)

// ReasoningFields says which message and delta fields carry the reasoning.
type ReasoningFields uint8

// The reasoning field choices. Both is the default: clients differ in the
// one they read (DECISIONS.md, Serving).
const (
	// ReasoningBoth writes reasoning_content and reasoning, the same text.
	ReasoningBoth ReasoningFields = iota
	// ReasoningContentOnly writes reasoning_content only.
	ReasoningContentOnly
	// ReasoningOnly writes reasoning only.
	ReasoningOnly
)

// ParseReasoningFields reads "both", "reasoning_content" or "reasoning".
func ParseReasoningFields(s string) (ReasoningFields, error) {
	switch s {
	case "both", "":
		return ReasoningBoth, nil
	case "reasoning_content":
		return ReasoningContentOnly, nil
	case "reasoning":
		return ReasoningOnly, nil
	}
	return 0, fmt.Errorf("reasoning field %q: use both, reasoning_content or reasoning", s)
}

// String returns the name ParseReasoningFields reads.
func (f ReasoningFields) String() string {
	switch f {
	case ReasoningContentOnly:
		return "reasoning_content"
	case ReasoningOnly:
		return "reasoning"
	}
	return "both"
}

// Backend is one engine replica: its base URL and its weight (0 means 1).
type Backend struct {
	URL    string
	Weight float64
}

// Routing tunes prefix-aware routing over several backends; a zero field
// takes its default.
type Routing struct {
	// BlockTokens is the block size, in token ids, of the prefix hashes
	// when the gateway sends token ids (DefaultRouteBlockTokens).
	BlockTokens int
	// BlockBytes is the block size, in bytes of rendered text, without a
	// tokenizer (DefaultRouteBlockBytes).
	BlockBytes int
	// TableEntries bounds the table of which replica holds which block
	// chain (DefaultRouteTableEntries).
	TableEntries int
	// LoadMargin is how many more open requests than the least busy
	// replica the replica holding a prompt's prefix may have and still be
	// chosen (DefaultRouteLoadMargin; negative: 0).
	LoadMargin int
	// ProbeInterval is how often Server.Probe checks each replica
	// (DefaultProbeInterval).
	ProbeInterval time.Duration
	// NewConversations says where a conversation goes when no prefix of
	// its own is known: RouteNewHash (the default, also for "") to the
	// replica its key hashes to (rendezvous hashing), so that several
	// gateways that share nothing agree on it; RouteNewFewest to the
	// replica holding the fewest recent conversations, which fills the
	// engines' caches more evenly behind a single gateway but is each
	// gateway's own choice (gap decision 135).
	NewConversations string
}

// Where Routing.NewConversations places a conversation without a known
// prefix; each is also the decision label of
// beamharmony_route_decisions_total that counts it.
const (
	RouteNewHash   = "hash"
	RouteNewFewest = "fewest"
)

// ParseRouteNew checks a Routing.NewConversations value (the serve
// command's --route-new): hash or fewest.
func ParseRouteNew(v string) (string, error) {
	switch v {
	case RouteNewHash, RouteNewFewest:
		return v, nil
	case "":
		return RouteNewHash, nil
	}
	return "", fmt.Errorf("route placement %q: use hash or fewest", v)
}

// DefaultProbeInterval is how often each replica's health is checked.
const DefaultProbeInterval = 5 * time.Second

// Config configures a Server. Only Backend (or Backends) is required.
type Config struct {
	// Backend is the engine's base URL, such as http://localhost:8000; a
	// trailing /v1 is accepted. The gateway calls its /v1/completions,
	// /v1/models and /health.
	Backend string
	// Backends are several replicas of the engine, each with a weight
	// (a replica of weight 2 takes twice the share of new conversations
	// and of load); set Backend or Backends, not both. Requests go to the
	// replica that holds the longest prefix of their prompt in its cache
	// (docs/routing.md), failing replicas are left out, and a request
	// whose replica fails before answering is retried on another.
	Backends []Backend
	// Routing tunes how requests are spread over Backends.
	Routing Routing
	// BackendAPIKey, when set, is sent to the engine as a bearer token.
	BackendAPIKey string
	// Engine is the engine's kind, which decides how the grammar of a
	// constrained request (tool_choice required or named, a response
	// format, strict tools) is sent. EngineAuto (the zero value) detects
	// it: see Server.DetectEngine.
	Engine EngineKind
	// Model, when set, is the model name sent to the engine in place of
	// the request's, and the only model /v1/models lists.
	Model string
	// MaxTokens is the engine's max_tokens when the request sets none; 0
	// means DefaultMaxTokens.
	MaxTokens int
	// Timeout bounds one engine request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBodyBytes caps a request body (413 beyond); 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// BodyTimeout bounds the time a client may take to send its request
	// body; past it the client gets a 408 and the connection is closed.
	// 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// AllowMissingThinking lets a history whose assistant turns lack
	// reasoning through. By default such a request gets the page's 400;
	// a request can still set chat_template_kwargs.allow_missing_thinking.
	AllowMissingThinking bool
	// ReasoningMemoryBytes, when above 0, keeps the reasoning of the
	// assistant turns the gateway writes, up to this many bytes (the least
	// recently used go first), keyed by their tool call ids or their
	// answer's text (with the message it answers) and by the API key that
	// received them. A turn that
	// comes back without its reasoning (clients that drop
	// reasoning_content or reasoning items) gets it again, reported in
	// the X-Beam-Reasoning-Restored header; a turn the memory does not
	// hold is checked as AllowMissingThinking says. The same memory holds
	// the Responses output items an item_reference names (gap decision
	// 276); half of the bytes hold the Messages API's message threads and
	// the Responses API's responses for previous_response_id (threads.go,
	// previous.go; 277, 280). Without it those are refused. 0: off.
	ReasoningMemoryBytes int64
	// AllowMarkers lets message content and names, argument values and
	// schema fields (harmony.MarkerUses) carry Harmony markers, which the
	// engine then reads as format tokens. By default they are a 400 naming
	// the value's JSON path.
	AllowMarkers bool
	// RefuseLateInstructions makes a system or developer message after a
	// message of another role a 400 worded as Anthropic's and OpenAI's
	// APIs word it, so that clients that fall back on that error (Claude
	// Code folds such messages into its first user turn) do. By default
	// such messages are placed by harmony's rule (PlaceLateInstructions,
	// docs/gap-decisions.md 110) and counted.
	RefuseLateInstructions bool
	// RefuseHostedTools makes a hosted tool the gateway cannot run
	// (Responses web_search, file_search, code_interpreter, ...; Messages
	// server tools such as web_search_20250305) a 400. By default such a
	// tool is left out of the prompt and reported (the X-Beam-Unenforced
	// header, the log, beamharmony_unhonoured_total).
	RefuseHostedTools bool
	// WebSearch, with a Backend, runs the Responses web_search tool and
	// the Messages web_search server tool in the gateway, with Beam's
	// built-in search and browse tools (websearch.go).
	WebSearch WebSearch
	// ReasoningFields narrows the reasoning output to one field.
	ReasoningFields ReasoningFields
	// PingInterval is how long a stream may stay silent (the engine
	// still thinking about its first token, say) before the gateway
	// writes a keep-alive; 0 means DefaultPingInterval, a negative value
	// turns keep-alives off.
	PingInterval time.Duration
	// SigningKey is the key of the signatures on the reasoning handed out
	// (thinking blocks' signature, reasoning items' encrypted_content).
	// Empty means a random key per process: set the same key on every
	// replica, so that reasoning signed by one is accepted by the others
	// and after a restart.
	SigningKey string
	// Tokenizer, when set, is the model's tokenizer (Beam's tokenizer.json,
	// loaded with package tokenizer). The gateway then sends each prompt to
	// the engine as token ids (harmony.RenderTokens), in which only the
	// renderer's own markers are marker tokens: marker text in a request
	// is ordinary text that can't forge a turn, so it is accepted rather
	// than refused. It also makes /v1/messages/count_tokens exact (501
	// without it) and MaxModelLen enforceable.
	Tokenizer harmony.TokenEncoder
	// ConsoleParquet, when set, lets the console's dataset preview (at
	// /console/) read Parquet uploads; the command line passes the dataset
	// command's reader, which this package does not link.
	ConsoleParquet console.ParquetReader
	// MaxModelLen, when positive and with a Tokenizer, is the engine's
	// context length in tokens: a prompt longer than that is a 400 that
	// states both numbers, before the engine is asked.
	MaxModelLen int
	// APIKeys, when not empty, are the keys clients must send: every
	// endpoint but /health then answers a request without a valid key
	// with a 401 in its API's error shape, and /health details the engine
	// only to a request with one. The OpenAI routes read the key from
	// "Authorization: Bearer KEY", the Anthropic routes (/v1/messages,
	// /v1/messages/count_tokens) from x-api-key or a bearer token,
	// /v1/models and /metrics from either. Keys are compared in constant
	// time; Server.SetAPIKeys replaces them while the server runs. Empty
	// means no authentication: anyone who can reach the server can use
	// the engine.
	APIKeys []string
	// CORSOrigins are the origins (scheme://host[:port], or "*" for any)
	// whose browser pages may call the gateway: their preflights are
	// answered and their replies carry Access-Control-Allow-Origin. Empty
	// allows none. ParseCORSOrigins reads a comma-separated list.
	CORSOrigins []string
	// SeparateMetrics takes /metrics off the Server's routes (a 404 there):
	// the metrics are served by MetricsHandler, on a listener of their own.
	SeparateMetrics bool
	// PrepareConcurrency caps the requests decoded, rendered and (with a
	// Tokenizer) tokenized at once, on every endpoint that does so; the
	// others wait their turn, for as long as their timeout allows (503
	// past it). 0 means runtime.GOMAXPROCS(0): the work is CPU-bound.
	PrepareConcurrency int
	// MaxPromptBytes caps the rendered prompt given to the Tokenizer, in
	// bytes: a longer one is a 413, before any tokenizing. Tokenizing
	// takes memory proportional to the text (up to about 100 bytes per
	// byte, for one long word), so this bounds what one request can take.
	// 0 means DefaultMaxPromptBytes.
	MaxPromptBytes int64
	// Logger receives one record per request; nil discards them.
	Logger *slog.Logger
	// Client sends the engine requests; nil means a client tuned for many
	// concurrent streams to one host.
	Client *http.Client
}

func (c *Config) maxTokens() int64 {
	if c.MaxTokens > 0 {
		return int64(c.MaxTokens)
	}
	return DefaultMaxTokens
}

func (c *Config) prepareConcurrency() int {
	if c.PrepareConcurrency > 0 {
		return c.PrepareConcurrency
	}
	return runtime.GOMAXPROCS(0)
}

func (c *Config) maxPromptBytes() int64 {
	if c.MaxPromptBytes > 0 {
		return c.MaxPromptBytes
	}
	return DefaultMaxPromptBytes
}

func (c *Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Config) keepAlive() time.Duration {
	switch {
	case c.PingInterval < 0:
		return 0
	case c.PingInterval == 0:
		return DefaultPingInterval
	}
	return c.PingInterval
}

func (c *Config) bodyTimeout() time.Duration {
	if c.BodyTimeout > 0 {
		return c.BodyTimeout
	}
	return DefaultBodyTimeout
}

func (c *Config) maxBodyBytes() int64 {
	if c.MaxBodyBytes > 0 {
		return c.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// backendBase checks Backend and returns it without a trailing slash or
// /v1.
func backendBase(backend string) (string, error) {
	if backend == "" {
		return "", errors.New("backend: required, the engine's base URL such as http://localhost:8000")
	}
	u, err := url.Parse(backend)
	if err != nil {
		return "", fmt.Errorf("backend: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("backend %q: want an http or https URL such as http://localhost:8000", backend)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("backend %q: must not have a query or fragment", backend)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("backend %q: port %s is not one from 1 to 65535", backend, p)
		}
	}
	base := strings.TrimRight(u.String(), "/")
	base = strings.TrimSuffix(base, "/v1")
	return base, nil
}

// engineKeepAlive is how long the engines' HTTP servers keep an idle
// connection open: 5 s for uvicorn (vLLM, SGLang) and for llama.cpp's
// cpp-httplib.
const engineKeepAlive = 5 * time.Second

// newClient returns an HTTP client for the engine: no overall timeout (the
// request context bounds each call) and enough idle connections per host
// for many concurrent streams. It closes a connection idle for 4 s, before
// the engine does: a request sent on a connection just as the engine closes
// it fails (write: broken pipe), and a POST is not retried.
func newClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 1024
	t.IdleConnTimeout = engineKeepAlive - time.Second
	return &http.Client{Transport: t}
}

// markersAllowed reports whether marker text may reach the renderer: when
// the server allows it, or when prompts go out as token ids, where such
// text is encoded as ordinary text (DECISIONS.md, Names and markers).
func (c *Config) markersAllowed() bool { return c.AllowMarkers || c.Tokenizer != nil }
