package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/tokenizer"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/beamharmony/harmony/internal/buildinfo"
	"github.com/beamharmony/harmony/serve"
)

func init() {
	extraCommands = append(extraCommands, command{"serve", "run an OpenAI-compatible gateway in front of an inference server", runServe})
}

const serveHelp = `
Usage: beamharmony serve --backend URL [--listen ADDR] [--model NAME] [flags]

Run a gateway for Beam that speaks the OpenAI Chat Completions, Anthropic
Messages and OpenAI Responses APIs, in front of an inference server's raw
completions endpoint (vLLM, SGLang or llama.cpp's
server). The gateway renders each request with Beam's chat template, sends
the prompt to BACKEND/v1/completions, and parses the generated text back into
reasoning (reasoning_content and reasoning), content and tool calls,
streamed or not.

Endpoints:
  POST /v1/chat/completions   the OpenAI Chat Completions API
  POST /v1/messages           the Anthropic Messages API
  POST /v1/messages/count_tokens  501 until the server has a tokenizer
  GET  /v1/models             --model, or the engine's list
  GET  /health                200 when the engine answers, 503 when not
  GET  /metrics               Prometheus text format

A history whose assistant turns lack their reasoning is refused (400) unless
--allow-missing-thinking is set or the request sends
"chat_template_kwargs": {"allow_missing_thinking": true}. Message content or
names holding Harmony markers such as <|end|> are refused unless
--allow-markers is set. Thinking sent back through /v1/messages must carry
the signature this server gave it (HMAC under --signing-key; a random key
per process when unset, so give every replica the same key).

Every flag can also be set with the environment variable named in brackets;
a flag given on the command line wins. The server stops on SIGINT or
SIGTERM, letting open streams finish for up to --shutdown-timeout.

Example:

  vllm serve /models/beam --port 8000 &
  beamharmony serve --backend http://localhost:8000 --listen :8080
`

// envPrefix starts the name of each flag's environment variable:
// --max-tokens is BEAMHARMONY_MAX_TOKENS.
const envPrefix = "BEAMHARMONY_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", serveHelp, stdout, stderr)
	usage := func(name, text string) string { return text + " [" + envName(name) + "]" }
	backend := fs.String("backend", "", usage("backend", "the engine's base URL, such as http://localhost:8000 (required)"))
	backendKey := fs.String("backend-api-key", "", usage("backend-api-key", "bearer token to send to the engine"))
	listen := fs.String("listen", "127.0.0.1:8080", usage("listen", "address to listen on; :8080 for every interface"))
	model := fs.String("model", "", usage("model", "model name to send to the engine in place of the request's; the one /v1/models lists"))
	maxTokens := positiveFlag(fs, "max-tokens", serve.DefaultMaxTokens, math.MaxInt32, usage("max-tokens", "max_tokens, in `tokens`, when a request sets neither max_completion_tokens nor max_tokens"))
	timeout := durationFlag(fs, "timeout", serve.DefaultTimeout, false, usage("timeout", "longest `duration` one engine request may take (504 past it)"))
	bodyTimeout := durationFlag(fs, "body-timeout", serve.DefaultBodyTimeout, false, usage("body-timeout", "longest `duration` a client may take to send a request body (408 past it, and the connection closes)"))
	headerTimeout := durationFlag(fs, "read-header-timeout", serve.DefaultReadHeaderTimeout, false, usage("read-header-timeout", "longest `duration` a client may take to send a request's headers"))
	idleTimeout := durationFlag(fs, "idle-timeout", serve.DefaultIdleTimeout, false, usage("idle-timeout", "close a kept-alive connection idle for this `duration`"))
	maxConns := positiveFlag(fs, "max-conns", serve.DefaultMaxConns, math.MaxInt32, usage("max-conns", "most `connections` open at once; further ones wait to be accepted"))
	shutdown := durationFlag(fs, "shutdown-timeout", serve.DefaultShutdownTimeout, true, usage("shutdown-timeout", "how long (a `duration`, 0 for none) open requests may run on after SIGINT or SIGTERM"))
	maxBody := positiveFlag(fs, "max-body-bytes", serve.DefaultMaxBodyBytes, math.MaxInt64, usage("max-body-bytes", "largest request body accepted, in `bytes` (413 beyond)"))
	allowMissing := fs.Bool("allow-missing-thinking", false, usage("allow-missing-thinking", "let histories whose assistant turns lack reasoning through"))
	signingKey := fs.String("signing-key", "", usage("signing-key", "key that signs the reasoning handed out (thinking signatures); the same on every replica; random per process when empty"))
	pingInterval := durationFlag(fs, "ping-interval", serve.DefaultPingInterval, true, usage("ping-interval", "how long (a `duration`, 0 for never) a stream may stay silent before a keep-alive ping"))
	tokenizerPath := fs.String("tokenizer", "", usage("tokenizer", "Beam's tokenizer.json (or the checkpoint directory holding it): prompts go to the engine as token ids, in which marker text from requests is ordinary text, so it is accepted instead of refused"))
	maxModelLen := fs.Int("max-model-len", 0, usage("max-model-len", "the engine's context length in `tokens`; with --tokenizer a longer prompt is a 400 (0: no check)"))
	allowMarkers := fs.Bool("allow-markers", false, usage("allow-markers", "let message content and names carry Harmony markers, which the engine reads as format tokens"))
	reasoningField := checkedFlag(fs, "reasoning-field", "both", func(v string) error {
		_, err := serve.ParseReasoningFields(v)
		return err
	}, usage("reasoning-field", "where reasoning goes out, the `field`: both, reasoning_content or reasoning"))
	logFormat := checkedFlag(fs, "log-format", "json", checkLogFormat, usage("log-format", "log `format`: json or text"))
	logLevel := checkedFlag(fs, "log-level", "info", checkLogLevel, usage("log-level", "log `level`: debug, info, warn or error"))

	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := os.LookupEnv(envName(f.Name)); ok && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("%s=%q: %w", envName(f.Name), v, err)
			}
		}
	})
	if envErr != nil {
		// Reported as the flag package reports a bad value.
		fmt.Fprintln(fs.Output(), envErr)
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
	fields, err := serve.ParseReasoningFields(*reasoningField)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	logger, err := newLogger(stderr, *logFormat, *logLevel)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	if *maxModelLen < 0 {
		fail(stderr, "serve", fmt.Errorf("--max-model-len %d: must be 0 or more", *maxModelLen))
		return 2
	}
	var tok harmony.TokenEncoder
	if *tokenizerPath != "" {
		tk, err := tokenizer.Load(*tokenizerPath)
		if err != nil {
			return fail(stderr, "serve", err)
		}
		tok = tk
	}
	srv, err := serve.New(serve.Config{
		Tokenizer:            tok,
		MaxModelLen:          *maxModelLen,
		Backend:              *backend,
		BackendAPIKey:        *backendKey,
		Model:                *model,
		MaxTokens:            int(*maxTokens),
		Timeout:              *timeout,
		MaxBodyBytes:         *maxBody,
		BodyTimeout:          *bodyTimeout,
		AllowMissingThinking: *allowMissing,
		AllowMarkers:         *allowMarkers,
		ReasoningFields:      fields,
		SigningKey:           *signingKey,
		PingInterval:         pingIntervalConfig(*pingInterval),
		Logger:               logger,
	})
	if err != nil {
		return fail(stderr, "serve", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	bi := buildinfo.Read()
	logger.Info("listening", slog.String("addr", ln.Addr().String()), slog.String("backend", srv.Backend()),
		slog.String("version", bi.Version), slog.String("commit", bi.Commit), slog.String("go_version", bi.GoVersion),
		slog.Bool("allow_missing_thinking", *allowMissing), slog.Bool("allow_markers", *allowMarkers))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := serve.RunOptions{ShutdownTimeout: *shutdown, ReadHeaderTimeout: *headerTimeout, IdleTimeout: *idleTimeout,
		MaxConns: int(*maxConns), Logger: logger}
	if err := serve.Run(ctx, ln, srv, opts); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			logger.Warn("open requests were cancelled at the shutdown deadline")
			return 1
		}
		return fail(stderr, "serve", err)
	}
	logger.Info("stopped")
	return 0
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
