package harmony_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/beamharmony/harmony"
)

// loadBench reads the realistic request: 102 messages (20 turns with
// reasoning, parallel calls), 6 tools including search_flights and the
// built-in search and browse.
func loadBench(b *testing.B) (*harmony.Request, []byte) {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/realistic_request.json")
	if err != nil {
		b.Fatal(err)
	}
	req, err := harmony.ParseRequest(data)
	if err != nil {
		b.Fatal(err)
	}
	return req, data
}

// BenchmarkRender renders the decoded realistic request.
func BenchmarkRender(b *testing.B) {
	req, _ := loadBench(b)
	prompt, err := req.Render()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(prompt)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := req.Render(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderPrompt renders the realistic request with its spans.
func BenchmarkRenderPrompt(b *testing.B) {
	req, _ := loadBench(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := req.RenderPrompt(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeAndRender decodes the request's JSON and renders it: the
// cost per request of the CLI and the gateway.
func BenchmarkDecodeAndRender(b *testing.B) {
	_, data := loadBench(b)
	benchDecodeAndRender(b, data)
}

// BenchmarkDecodeAndRenderCompact is BenchmarkDecodeAndRender on the same
// request written compact (no whitespace between tokens), as many clients
// send it: a parser change must not favour the indented form alone.
func BenchmarkDecodeAndRenderCompact(b *testing.B) {
	_, data := loadBench(b)
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		b.Fatal(err)
	}
	benchDecodeAndRender(b, compact.Bytes())
}

// benchDecodeAndRender decodes data and renders the request, b.N times.
func benchDecodeAndRender(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := harmony.ParseRequest(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := req.Render(); err != nil {
			b.Fatal(err)
		}
	}
}
