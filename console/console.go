// Package console is Beam Harmony's web console: one page, embedded in the
// binary, and the small JSON API it calls. The playground renders a
// request (the render command's JSON) to its prompt with the trained spans,
// its tokens with the assistant mask, lint's warnings, the grammar its
// constraints compile to, and parses a pasted generation; the dataset
// preview reads an uploaded dataset (JSONL, or Parquet given a reader) or
// rejects file; the inspector, when the gateway keeps one, shows the last
// requests it served.
//
// The page is plain HTML, CSS and JavaScript, with nothing fetched from the
// network. `beamharmony console` serves the handler alone on localhost;
// `beamharmony serve` serves it at /console/, behind its API keys.
//
// # API
//
//   - [New] makes the console's [Handler] from a [Config]: the page and
//     its JSON API. [Examples] lists the page's example requests
//     ([Example]).
//   - The calls' work, for the command line and tests: [Render]
//     ([RenderReply]), [Parse] ([ParseReply]), [Spec] (the grammar spec a
//     request's constraints give; [GrammarReply]), [TokensReply],
//     [DatasetReply] with its [PreviewRow]s, [Summary] and [Timings]; a
//     Parquet file is read by a [ParquetReader] the caller supplies.
//   - The inspector the gateway feeds: [NewInspector] makes an
//     [Inspector] of [Record]s ([DefaultInspectBytes]).
//   - Local files and errors: [ReadLocalFile] and [CheckLocalFile] read
//     what the page asks for, bounded ([DefaultMaxBodyBytes] and its
//     group); [RenderHint] and [OneLine] word errors as the command line
//     does.
package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/examples"
	"github.com/beamharmony/harmony/tokenizer"
)

//go:embed static
var static embed.FS

// Limits on what the console reads and does for one call.
const (
	// DefaultMaxBodyBytes caps a playground call's body: a request, a
	// generation and constraints.
	DefaultMaxBodyBytes = 8 << 20
	// DefaultMaxUploadBytes caps an uploaded dataset or rejects file.
	DefaultMaxUploadBytes = 64 << 20
	// DefaultMaxPromptBytes caps the prompt text a call may have
	// tokenized, as the gateway's --max-prompt-bytes does by default.
	DefaultMaxPromptBytes = 2 << 20
	// DefaultTimeout bounds the work of one call: tokenizing (on top of
	// the tokenizer's own limit on one match of its split pattern),
	// compiling a grammar, reading a dataset.
	DefaultTimeout = 10 * time.Second
)

// Config is what a console serves.
type Config struct {
	// Tokenizer, when set, gives the token view and the token counts.
	Tokenizer *tokenizer.Tokenizer
	// TokenizerName says which tokenizer (a path), for the page.
	TokenizerName string
	// Inspector, when set, is shown in the inspector tab.
	Inspector *Inspector
	// ReadParquet, when set, lets the dataset preview read Parquet.
	ReadParquet ParquetReader
	// LocalFiles are dataset files on this machine that the page may
	// open by their index (beamharmony console --dataset); the gateway
	// sets none.
	LocalFiles []string
	// MaxBodyBytes, MaxUploadBytes, MaxPromptBytes and Timeout replace the
	// defaults above when not zero.
	MaxBodyBytes   int64
	MaxUploadBytes int64
	MaxPromptBytes int
	Timeout        time.Duration
}

// Handler serves the console at its root: the page at "/", its files under
// "/static/", and the API under "/api/". Mount it under a prefix with
// http.StripPrefix; the page's links are relative, so its URL must end with
// a slash.
type Handler struct {
	cfg    Config
	files  http.Handler
	routes map[string]func(w http.ResponseWriter, r *http.Request)
}

// New returns the console's handler.
func New(cfg Config) *Handler {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.MaxPromptBytes <= 0 {
		cfg.MaxPromptBytes = DefaultMaxPromptBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	sub, _ := fs.Sub(static, "static")
	h := &Handler{cfg: cfg, files: http.FileServerFS(sub)}
	h.routes = map[string]func(http.ResponseWriter, *http.Request){
		"info":     h.info,
		"examples": h.examples,
		"render":   h.render,
		"tokens":   h.tokens,
		"lint":     h.lint,
		"parse":    h.parse,
		"grammar":  h.grammar,
		"dataset":  h.dataset,
		"open":     h.open,
		"requests": h.requests,
	}
	return h
}

// ServeHTTP serves the page, its files and the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if name, ok := strings.CutPrefix(p, "/api/"); ok {
		// Nothing the API answers may be framed or cached by another site.
		w.Header().Set("Cache-Control", "no-store")
		first, rest, _ := strings.Cut(name, "/")
		f := h.routes[first]
		if f == nil || rest != "" && first != "requests" {
			writeError(w, http.StatusNotFound, "no such console call: "+p)
			return
		}
		f(w, r)
		return
	}
	switch {
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, r.Method+" "+p+": use GET")
		return
	case p == "/" || p == "/index.html":
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		data, _ := static.ReadFile("static/index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(data)
		return
	case strings.HasPrefix(p, "/static/"):
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path = path.Clean(strings.TrimPrefix(p, "/static"))
		r2.URL = &u
		h.files.ServeHTTP(w, r2)
		return
	}
	writeError(w, http.StatusNotFound, "no such console page: "+p)
}

// contentSecurityPolicy lets the page load its own files and call its own
// API, and nothing else: no other origin, no inline script.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// infoReply is what the page learns first: which views it may show.
type infoReply struct {
	Tokenizer      string `json:"tokenizer,omitempty"`
	Inspector      bool   `json:"inspector"`
	MaxBodyBytes   int64  `json:"max_body_bytes"`
	MaxUploadBytes int64  `json:"max_upload_bytes"`
	// BuiltinTools are the definitions Beam was trained with of its
	// built-in tools, as JSON text by name: the playground's controls add
	// them to a request's tools.
	BuiltinTools map[string]string `json:"builtin_tools"`
	// LocalFiles are the base names of Config.LocalFiles, by index.
	LocalFiles []string `json:"local_files,omitempty"`
}

func (h *Handler) info(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet) {
		return
	}
	rep := infoReply{Inspector: h.cfg.Inspector != nil, MaxBodyBytes: h.cfg.MaxBodyBytes, MaxUploadBytes: h.cfg.MaxUploadBytes}
	rep.BuiltinTools = map[string]string{}
	for _, tool := range []harmony.Tool{harmony.TrainedSearch(), harmony.TrainedBrowse()} {
		if b, err := json.Marshal(tool); err == nil {
			rep.BuiltinTools[tool.Function.Name] = string(b)
		}
	}
	for _, f := range h.cfg.LocalFiles {
		rep.LocalFiles = append(rep.LocalFiles, filepath.Base(f))
	}
	if h.cfg.Tokenizer != nil {
		rep.Tokenizer = h.cfg.TokenizerName
		if rep.Tokenizer == "" {
			rep.Tokenizer = "tokenizer"
		}
	}
	writeJSON(w, http.StatusOK, rep)
}

// Example is one of the repository's example requests.
type Example struct {
	Name    string `json:"name"`
	Request string `json:"request"`
}

// Examples returns the repository's example requests (examples/*.json), by
// name.
func Examples() []Example {
	entries, _ := fs.Glob(examples.FS, "*.json")
	sort.Strings(entries)
	out := make([]Example, 0, len(entries))
	for _, e := range entries {
		data, err := examples.FS.ReadFile(e)
		if err != nil {
			continue
		}
		out = append(out, Example{Name: strings.TrimSuffix(e, ".json"), Request: string(data)})
	}
	return out
}

func (h *Handler) examples(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet) {
		return
	}
	writeJSON(w, http.StatusOK, Examples())
}

// method checks the call's method; a wrong one is answered with a 405.
func method(w http.ResponseWriter, r *http.Request, want string) bool {
	if r.Method == want || want == http.MethodGet && r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", want)
	writeError(w, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": use "+want)
	return false
}

// readJSON reads a POSTed JSON body of at most limit bytes into v. A
// failure has been answered (413 past the limit, 400 for bad JSON).
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	if !method(w, r, http.MethodPost) {
		return false
	}
	data, ok := readBody(w, r, limit)
	if !ok {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "console call body: "+err.Error())
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "console call body: unexpected data after the JSON object")
		return false
	}
	return true
}

// readBody reads the body, at most limit bytes; past it the call is
// answered with a 413.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
		return nil, false
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
			return nil, false
		}
		writeError(w, http.StatusBadRequest, "console call body: "+err.Error())
		return nil, false
	}
	return data, true
}

func tooLarge(limit int64) string {
	return "the body is larger than the console's limit of " + byteSize(limit)
}

// byteSize writes n in MiB or KiB when it is a whole number of them.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa(int(n>>20)) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa(int(n>>10)) + " KiB"
	}
	return itoa(int(n)) + " bytes"
}

// errorReply is every failed call's body.
type errorReply struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorReply{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error": "console: the reply could not be written"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
