// Package serve is a gateway for Beam in front of an inference server: it
// speaks the OpenAI Chat Completions, OpenAI Responses and Anthropic
// Messages APIs, and sends each request to the engine's raw completions
// endpoint (vLLM, SGLang or llama.cpp's server).
//
// A [Server] serves these endpoints (each also without its /v1 prefix):
//
//	POST /v1/chat/completions        the OpenAI Chat Completions API
//	POST /v1/responses               the OpenAI Responses API (stateless unless the memory is on)
//	POST /v1/messages                the Anthropic Messages API
//	POST /v1/messages/count_tokens   the Messages API's token count (with a tokenizer; 501 without)
//	GET  /v1/models                  the configured model, or the engine's list
//	GET  /health                     200 when the engine answers, 503 when not
//	GET  /metrics                    Prometheus text format
//
// For a generating request it renders the conversation with
// [harmony.Render] (or, with a tokenizer, [harmony.RenderTokens], and sends
// token ids), calls the engine's /v1/completions, and parses the generated
// text with [harmony.StreamParser]. Reasoning goes out in each API's own
// form (reasoning_content and reasoning, thinking blocks, reasoning items),
// tool calls as that API's calls whose arguments stream as they are parsed.
//
// The rules it follows are those of the format page and DECISIONS.md
// (Serving): a history without reasoning is refused unless allowed, text
// carrying Harmony markers is refused unless allowed or sent as token ids,
// a request option the gateway cannot honour is a 400 naming it, and errors
// are each API's error objects with the status the failure calls for.
//
// Securing it: [Config].APIKeys requires a key on every endpoint but
// /health (constant-time checks, 401s in each API's shape),
// [Config].CORSOrigins admits browser pages of chosen origins,
// [RunOptions].TLSConfig serves HTTPS, and [Config].SeparateMetrics with
// [Server.MetricsHandler] moves /metrics to a listener of its own.
// SECURITY.md says what the gateway guarantees and what it leaves to the
// network.
//
// # API
//
// What a program that runs the gateway uses, and all that is exported
// (TestAPILists keeps this list and the exported names the same):
//
//   - [Config] (with [Backend], [Routing], [WebSearch], [EngineKind],
//     [ReasoningFields]) and [New], which checks it and returns the
//     [Server], an [http.Handler].
//   - [Run] serves a handler on a listener until its context ends, then
//     shuts down gracefully; [RunOptions] are its limits, timeouts and
//     TLS configuration ([DefaultReadHeaderTimeout] and the other
//     defaults of a field left zero).
//   - Server methods the command line calls after New: [Server.DetectEngine]
//     (bounded by [DetectTimeout]), [Server.DetectContextLength] (until
//     it answers, max_tokens is capped at [MaxTokensCeiling]),
//     [Server.Probe] (started in the background), [Server.SetAPIKeys] and
//     [Server.AuthEnabled] (a key file reloaded on SIGHUP),
//     [Server.MetricsHandler], [Server.Inspect] (the console at
//     [ConsolePath]), [Server.Backend] and [Server.Backends] (for the
//     log).
//   - The parsers of the command line's values that name the server's
//     own choices: [ParseEngineKind], [ParseReasoningFields],
//     [ParseRouteNew] ([RouteNewHash] or [RouteNewFewest]).
//   - The defaults of Config's fields: [DefaultMaxTokens] and the other
//     request limits, [DefaultRouteBlockTokens] and the routing table's,
//     [DefaultProbeInterval], [DefaultSearchRounds] and the web search's.
//   - [UnenforcedHeader], the response header that lists what a
//     constrained request asked for and the grammar could not enforce.
//   - [RestoredHeader], the response header that lists the assistant
//     turns whose reasoning came from the gateway's memory
//     (Config.ReasoningMemoryBytes).
//
// Reading files (API keys, certificates) and comma-separated lists is the
// command line's (package cli); the rules they are checked by are the
// server's, in internal/access.
package serve
