package harmony_test

import (
	"reflect"
	"testing"

	"github.com/beamharmony/harmony"
)

// Every exported function that takes a pointer to options accepts nil and
// behaves as with the zero options.
func TestNilOptionsAreZeroOptions(t *testing.T) {
	msgs := []harmony.Message{
		{Role: harmony.RoleSystem, Content: "s <|call|>"},
		{Role: harmony.RoleUser, Content: "hi"},
	}
	const generated = "<|start|>assistant<|channel|>final<|message|>hello<|return|>"
	tests := []struct {
		name string
		call func(opts *harmony.Options, popts *harmony.ParseOptions) any
	}{
		{"Render", func(o *harmony.Options, _ *harmony.ParseOptions) any {
			s, err := harmony.Render(msgs, o)
			return []any{s, err}
		}},
		{"RenderPrompt", func(o *harmony.Options, _ *harmony.ParseOptions) any {
			p, err := harmony.RenderPrompt(msgs, o)
			return []any{p, err}
		}},
		{"Lint", func(o *harmony.Options, _ *harmony.ParseOptions) any { return harmony.Lint(msgs, o) }},
		{"MarkerUses", func(o *harmony.Options, _ *harmony.ParseOptions) any { return harmony.MarkerUses(msgs, o) }},
		{"Parse", func(_ *harmony.Options, p *harmony.ParseOptions) any {
			r, err := harmony.Parse(generated, p)
			return []any{r, err}
		}},
		{"NewStreamParser", func(_ *harmony.Options, p *harmony.ParseOptions) any {
			sp := harmony.NewStreamParser(p)
			ev, ferr := sp.Feed(generated, nil)
			ev, r, err := sp.Finish(ev)
			return []any{ev, r, ferr, err}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.call(nil, nil)
			want := tt.call(&harmony.Options{}, &harmony.ParseOptions{})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("nil options give %#v, zero options %#v", got, want)
			}
		})
	}
}
