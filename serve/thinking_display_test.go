package serve

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestThinkingDisplayOmitted checks the Messages API's thinking.display
// "omitted" (Claude Code 2.1.332 sends it): thinking blocks come back with
// an empty text, the text sealed in their signature, streamed or not; sent
// back, such a block gives the next turn the prompt the whole text gives;
// a sealed signature that was altered, or that does not hold the text
// beside it, is a 400 naming the block's signature.
func TestThinkingDisplayOmitted(t *testing.T) {
	const reasoning = "Greet back, briefly."
	fe := newFakeEngine(t, fixed(answer(reasoning, "Hi!")))
	gw := newGateway(t, fe)
	body := func(thinking, stream string) string {
		return `{"model":"beam","max_tokens":100,"stream":` + stream + `,"thinking":` + thinking + `,"messages":[{"role":"user","content":"Hello!"}]}`
	}

	// Not streamed: an empty text, the text in the signature.
	resp := postMessages(t, gw, body(`{"type":"adaptive","display":"omitted"}`, "false"))
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if h := resp.Header.Get(UnenforcedHeader); strings.Contains(h, "thinking.display") {
		t.Errorf("%s %q: omitted is honoured", UnenforcedHeader, h)
	}
	var reply struct {
		Content []struct {
			Type, Thinking, Signature string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	omitted := reply.Content[0]
	if omitted.Type != "thinking" || omitted.Thinking != "" || !strings.HasPrefix(omitted.Signature, sealPrefix) {
		t.Fatalf("thinking block %+v, want an empty text and a sealed signature", omitted)
	}

	// Streamed: no thinking_delta, the sealed text in the signature_delta.
	resp = postMessages(t, gw, body(`{"type":"adaptive","display":"omitted"}`, "true"))
	var shapes []string
	var streamedSig string
	for _, e := range readSSE(t, resp.Body) {
		shapes = append(shapes, eventShape(e))
		if d, ok := e.data["delta"].(map[string]any); ok && d["type"] == "signature_delta" {
			streamedSig = d["signature"].(string)
		}
		if b, ok := e.data["content_block"].(map[string]any); ok && b["type"] == "thinking" && b["thinking"] != "" {
			t.Errorf("content_block_start %s: the thinking is shown", e.raw)
		}
	}
	if got := strings.Join(shapes, " "); strings.Contains(got, "thinking_delta") || streamedSig != omitted.Signature {
		t.Errorf("events %s, signature %q; want no thinking_delta and the signature %q", got, streamedSig, omitted.Signature)
	}

	// Whole, for the prompt of the next turn sent back either way.
	resp = postMessages(t, gw, body(`{"type":"adaptive"}`, "false"))
	var whole struct {
		Content []struct {
			Type, Thinking, Signature string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil {
		t.Fatal(err)
	}
	if whole.Content[0].Thinking != reasoning || strings.HasPrefix(whole.Content[0].Signature, sealPrefix) {
		t.Fatalf("thinking block %+v, want the text and its MAC", whole.Content[0])
	}
	next := func(thinking, sig string) string {
		return `{"model":"beam","max_tokens":100,"thinking":{"type":"adaptive","display":"omitted"},"messages":[` +
			`{"role":"user","content":"Hello!"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":` + quoteJSON(thinking) + `,"signature":` + quoteJSON(sig) + `},{"type":"text","text":"Hi!"}]},` +
			`{"role":"user","content":"And again."}]}`
	}
	prompt := func(b string) string {
		t.Helper()
		resp := postMessages(t, gw, b)
		if resp.StatusCode != 200 {
			out, _ := io.ReadAll(resp.Body)
			t.Fatalf("status %d: %s", resp.StatusCode, out)
		}
		io.Copy(io.Discard, resp.Body)
		return fe.lastRequest(t).Prompt
	}
	want := prompt(next(reasoning, whole.Content[0].Signature))
	if !strings.Contains(want, reasoning) {
		t.Fatalf("prompt %q lacks the reasoning", want)
	}
	if got := prompt(next("", omitted.Signature)); got != want {
		t.Errorf("prompt from the omitted block\n%q\nwant\n%q", got, want)
	}
	// A client that fills the text in beside the sealed signature.
	if got := prompt(next(reasoning, omitted.Signature)); got != want {
		t.Errorf("prompt from the filled-in block\n%q\nwant\n%q", got, want)
	}

	// Refused: an altered seal, a seal of other text, a display that is
	// not a string.
	altered := strings.Replace(omitted.Signature, sealPrefix, sealPrefix+"QQ", 1)
	for _, tt := range []struct{ name, body, path string }{
		{"altered seal", next("", altered), "messages[1].content[0].signature"},
		{"other text", next("Something else.", omitted.Signature), "messages[1].content[0].signature"},
		{"display not a string", body(`{"type":"adaptive","display":1}`, "false"), "thinking.display"},
	} {
		resp := postMessages(t, gw, tt.body)
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(out), tt.path) {
			t.Errorf("%s: status %d %s, want 400 naming %s", tt.name, resp.StatusCode, out, tt.path)
		}
	}

	// Other displays: the text in full, reported.
	resp = postMessages(t, gw, body(`{"type":"adaptive","display":"summarized"}`, "false"))
	if h := resp.Header.Get(UnenforcedHeader); !strings.Contains(h, "thinking.display") {
		t.Errorf("%s %q, want thinking.display reported", UnenforcedHeader, h)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
