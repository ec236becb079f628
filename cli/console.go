package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/beamharmony/harmony/console"
	"github.com/beamharmony/harmony/dataset"
	"github.com/beamharmony/harmony/serve"
	"github.com/beamharmony/harmony/tokenizer"
)

func init() {
	extraCommands = append(extraCommands, command{"console", "serve the web console (playground and dataset preview) on localhost", anyProgram(runConsole)})
}

const consoleHelp = `
Usage: beamharmony console [--listen 127.0.0.1:8090] [--tokenizer PATH] [--dataset FILE]...

Serve the web console alone, without an engine, and print its URL. Open
it in a browser:

  - the playground: paste or pick a request (the render command's JSON;
    the repository's examples/ are offered) and see its prompt with the
    markers, roles and channels styled and the trained spans highlighted,
    lint's warnings, the grammar a tool_choice or response_format compiles
    to, and the parse of a pasted generation (its events, the message, or
    the error at its position); with --tokenizer, the prompt's tokens with
    their ids, the assistant mask per token and the counts. Errors have
    the render command's text.
  - the dataset preview: upload a dataset file (the dataset command's
    input or output, JSONL, .gz, .zst or Parquet, read as the dataset
    command reads it; or its rejects file) and see its rows with
    the trained part highlighted, rejects with their reasons beside the
    row, and plots of the length and the trained share of each row.
    Files named with --dataset are offered to open from this machine:
    only those (the page can't name another path), regular files only
    (a FIFO or device is refused before it is opened), each at most
    --max-upload-bytes, checked at start and again when opened.

The page is embedded in the binary and fetches nothing from the network.
The console has no keys of its own: it listens on localhost by default,
and a non-loopback --listen is refused. "beamharmony serve --inspect N"
serves the same console at /console/, behind the gateway's API keys, with
the inspector of its last N requests.

Each call's body is capped (8 MiB for the playground, --max-upload-bytes
for a dataset file) and its work bounded (10 s of tokenizing, compiling or
reading); the prompt a call tokenizes is capped at 2 MiB. SIGINT or SIGTERM
stops the console.

Example:

  beamharmony console --tokenizer ./checkpoint
  beamharmony console: serving http://127.0.0.1:8090/
`

func runConsole(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("console", consoleHelp, stdout, stderr)
	listen := fs.String("listen", "127.0.0.1:8090", "loopback `address` to listen on (a port of 0 picks a free one)")
	tokenizerPath := fs.String("tokenizer", "", "tokenizer.json, or a directory holding one, for the token view and counts")
	maxUpload := positiveFlag(fs, "max-upload-bytes", console.DefaultMaxUploadBytes, 1<<30, "largest dataset file the preview reads, in `bytes` (after decompression too)")
	datasets := listFlag(fs, "dataset", "a local dataset `file` the page may open (JSONL, .gz, .zst, Parquet or a rejects file; repeatable)")
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		return fail(stderr, "console", usagef("unexpected argument %q; see beamharmony console --help", rest[0]))
	}
	for _, f := range *datasets.vals {
		if err := console.CheckLocalFile(f, *maxUpload); err != nil {
			return fail(stderr, "console", usagef("--dataset %v", err))
		}
	}
	cfg := console.Config{MaxUploadBytes: *maxUpload, ReadParquet: dataset.ParquetRows, LocalFiles: *datasets.vals}
	if *tokenizerPath != "" {
		tk, err := tokenizer.Load(*tokenizerPath)
		if err != nil {
			return fail(stderr, "console", err)
		}
		cfg.Tokenizer, cfg.TokenizerName = tk, *tokenizerPath
		if w := standInWarning(*tokenizerPath); w != "" {
			fmt.Fprintf(stderr, "beamharmony console: warning: %s\n", w)
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(stderr, "console", err)
	}
	if !isLoopback(ln.Addr()) {
		ln.Close()
		return fail(stderr, "console", usagef("--listen %s: the console has no API keys, so it listens on a loopback address only (127.0.0.1:PORT); serve it to others with beamharmony serve, at /console/ behind its keys", *listen))
	}
	fmt.Fprintf(stdout, "beamharmony console: serving http://%s/\n", ln.Addr())
	sig := newServeSignals()
	defer sig.stop()
	err = serve.Run(sig.ctx, ln, consoleHandler(console.New(cfg)), serve.RunOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fail(stderr, "console", err)
	}
	return 0
}

// consoleHandler serves the console at the root, and only to requests for
// a loopback host name: a page of another site that a DNS name rebound to
// 127.0.0.1 is refused, since the console has no key.
func consoleHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "beamharmony console: this console answers requests for localhost or a loopback address only", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}
