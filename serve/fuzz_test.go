package serve

import (
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// FuzzDecodeRequest feeds arbitrary bodies to the request decoder and the
// renderer: they may refuse a body, never panic.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		hello,
		`{"model":"m","messages":[{"role":"assistant","reasoning_content":"r","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\": [1, {\"b\": null}]}"}}]},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"x"}]}],"tools":[` + weatherTool + `]}`,
		`{"model":"m","messages":[{"role":"user","content":"x"}],"chat_template_kwargs":{"reasoning_effort":7,"builtin_tools":["search"],"model_identity":"I","allow_missing_thinking":true},"stop":["a",""],"n":1}`,
		`{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"function"},"max_tokens":-1}`,
		`{"messages":null}`, `[]`, `null`, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"function":{"arguments":"\"x\""}}]}]}`,
	} {
		f.Add([]byte(seed))
	}
	cfg := &Config{}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, aerr := decodeChatRequest(body, cfg)
		if aerr != nil {
			if aerr.status != 400 || aerr.msg == "" {
				t.Fatalf("status %d, message %q", aerr.status, aerr.msg)
			}
			return
		}
		if _, err := harmony.Render(req.messages, &req.opts); err != nil {
			_ = renderError(err)
		}
	})
}

// FuzzDecodeCompletion feeds arbitrary engine events to the decoder.
func FuzzDecodeCompletion(f *testing.F) {
	for _, seed := range []string{
		`{"choices":[{"index":0,"text":"a","finish_reason":null,"stop_reason":null}],"usage":null}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		`{"error":{"message":"x","type":"y"}}`, `{"object":"error","message":"m"}`, `[DONE]`,
	} {
		f.Add([]byte(seed))
	}
	var d pyjson.Doc
	f.Fuzz(func(t *testing.T, data []byte) {
		var c completion
		if decodeCompletion(&d, data, &c) == nil {
			_ = c.engineFailure()
		}
	})
}
