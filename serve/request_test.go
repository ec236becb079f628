package serve

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDecodeSampling checks the one sampling decoder on each API's list:
// every parameter of the list is read and forwarded, the others are
// ignored, and a bad value names its parameter.
func TestDecodeSampling(t *testing.T) {
	all := samplingBody{
		Temperature: json.RawMessage(`0.5`), TopP: json.RawMessage(`0.9`), PresencePenalty: json.RawMessage(`1`),
		FrequencyPenalty: json.RawMessage(`-1`), TopK: json.RawMessage(`40`), MinP: json.RawMessage(`0.1`),
		RepetitionPenalty: json.RawMessage(`1.1`),
	}
	for _, tt := range []struct {
		api    string
		params []samplingParam
		want   string // the forwarded values, temperature to repetition_penalty
	}{
		{"chat", chatSampling, "0.5 0.9 1 -1 40 0.1 1.1"},
		{"messages", messagesSampling, "0.5 0.9   40  "},
		{"responses", responsesSampling, "0.5 0.9     "},
	} {
		var r request
		if err := r.decodeSampling(&all, tt.params); err != nil {
			t.Fatalf("%s: %v", tt.api, err)
		}
		got := strings.Join([]string{string(r.temperature), string(r.topP), string(r.presencePenalty),
			string(r.frequencyPenalty), string(r.topK), string(r.minP), string(r.repetitionPenalty)}, " ")
		if got != tt.want {
			t.Errorf("%s: forwarded %q, want %q", tt.api, got, tt.want)
		}
		for _, p := range tt.params {
			bad := all
			*samplingField(&bad, p.name) = json.RawMessage(`"x"`)
			err := new(request).decodeSampling(&bad, tt.params)
			if err == nil || err.param != p.name || !strings.HasPrefix(err.msg, p.name+": must be ") {
				t.Errorf("%s: bad %s gave %+v", tt.api, p.name, err)
			}
		}
	}
}

// samplingField returns the field of b that holds the parameter name.
func samplingField(b *samplingBody, name string) *json.RawMessage {
	return map[string]*json.RawMessage{
		"temperature": &b.Temperature, "top_p": &b.TopP, "presence_penalty": &b.PresencePenalty,
		"frequency_penalty": &b.FrequencyPenalty, "top_k": &b.TopK, "min_p": &b.MinP,
		"repetition_penalty": &b.RepetitionPenalty,
	}[name]
}
