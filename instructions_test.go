package harmony_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// lateCases are conversations with and without late instructions, each
// with the prompt PlaceLateInstructions renders (the rule of
// docs/gap-decisions.md 110).
var lateCases = []struct {
	name string
	msgs []harmony.Message
	// want is the prompt after the system message.
	want string
	late []harmony.LateInstruction
}{
	{"none late: as the template",
		[]harmony.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}},
		"<|start|>developer<|message|># Instructions\n\ns<|end|><|start|>user<|message|>u<|end|><|start|>assistant", nil},
	{"before the first assistant turn: joined in order",
		[]harmony.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: "env"}, {Role: "developer", Content: "d"}},
		"<|start|>developer<|message|># Instructions\n\ns\n\nenv\n\nd<|end|><|start|>user<|message|>u<|end|><|start|>assistant",
		[]harmony.LateInstruction{{Index: 2, Role: "system", Joined: true}, {Index: 3, Role: "developer", Joined: true}}},
	{"no leading instructions: the late one is the instructions",
		[]harmony.Message{{Role: "user", Content: "u"}, {Role: "system", Content: "env"}},
		"<|start|>developer<|message|># Instructions\n\nenv<|end|><|start|>user<|message|>u<|end|><|start|>assistant",
		[]harmony.LateInstruction{{Index: 1, Role: "system", Joined: true}}},
	{"empty late instruction joins like an empty leading one",
		[]harmony.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: ""}},
		"<|start|>developer<|message|># Instructions\n\ns\n\n<|end|><|start|>user<|message|>u<|end|><|start|>assistant",
		[]harmony.LateInstruction{{Index: 2, Role: "system", Joined: true}}},
	{"after an assistant turn: a user message in place",
		[]harmony.Message{{Role: "user", Content: "u"}, {Role: "assistant", Reasoning: "r", Content: "a"}, {Role: "developer", Content: "now terse"}, {Role: "user", Content: "u2"}},
		"<|start|>user<|message|>u<|end|><|start|>assistant<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>a<|return|>" +
			"<|start|>user<|message|># Instructions\n\nnow terse<|end|><|start|>user<|message|>u2<|end|><|start|>assistant",
		[]harmony.LateInstruction{{Index: 2, Role: "developer", Joined: false}}},
	{"both sides of the first assistant turn",
		[]harmony.Message{{Role: "user", Content: "u"}, {Role: "system", Content: "env"}, {Role: "assistant", Reasoning: "r", Content: "a"}, {Role: "system", Content: "later"}},
		"<|start|>developer<|message|># Instructions\n\nenv<|end|><|start|>user<|message|>u<|end|><|start|>assistant<|channel|>analysis<|message|>r<|end|>" +
			"<|start|>assistant<|channel|>final<|message|>a<|return|><|start|>user<|message|># Instructions\n\nlater<|end|><|start|>assistant",
		[]harmony.LateInstruction{{Index: 1, Role: "system", Joined: true}, {Index: 3, Role: "system", Joined: false}}},
}

const systemPrefix = "<|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.\n\nReasoning effort: 512\n\n" +
	"# Valid channels: analysis, final. Channel must be included for every message.<|end|>"

func TestPlaceLateInstructions(t *testing.T) {
	for _, tt := range lateCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := harmony.Render(tt.msgs, &harmony.Options{AddGenerationPrompt: true, PlaceLateInstructions: true, Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if want := systemPrefix + tt.want; got != want {
				t.Errorf("prompt:\n%q\nwant:\n%q", got, want)
			}
			if late := harmony.LateInstructions(tt.msgs); !reflect.DeepEqual(late, tt.late) {
				t.Errorf("LateInstructions = %+v, want %+v", late, tt.late)
			}
			// The list the template renders the same prompt from.
			placed, origin := harmony.PlaceInstructions(tt.msgs)
			viaList, err := harmony.Render(placed, &harmony.Options{AddGenerationPrompt: true, Strict: true})
			if err != nil {
				t.Fatalf("placed list: %v", err)
			}
			if viaList != got {
				t.Errorf("PlaceInstructions renders\n%q\nwant\n%q", viaList, got)
			}
			if len(tt.late) == 0 && origin != nil {
				t.Errorf("origin %v for a conversation without late instructions", origin)
			}
			for i, o := range origin {
				if placed[i].Role != harmony.RoleUser || tt.msgs[o].Role == harmony.RoleUser {
					if placed[i].Content != tt.msgs[o].Content {
						t.Errorf("placed[%d] = %q does not come from messages[%d] = %q", i, placed[i].Content, o, tt.msgs[o].Content)
					}
				}
			}
		})
	}
}

// TestPlaceLateInstructionsOff: without the option the template's rule
// holds, byte for byte (the late message is not rendered).
func TestPlaceLateInstructionsOff(t *testing.T) {
	for _, tt := range lateCases {
		var kept []harmony.Message
		for _, m := range tt.msgs {
			if !slicesContainsIndex(tt.late, m, tt.msgs) {
				kept = append(kept, m)
			}
		}
		got, err := harmony.Render(tt.msgs, &harmony.Options{AddGenerationPrompt: true})
		if err != nil {
			t.Fatal(err)
		}
		want, err := harmony.Render(kept, &harmony.Options{AddGenerationPrompt: true})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: without the option\n%q\nwant the late messages dropped\n%q", tt.name, got, want)
		}
	}
}

func slicesContainsIndex(late []harmony.LateInstruction, m harmony.Message, msgs []harmony.Message) bool {
	for _, l := range late {
		if reflect.DeepEqual(msgs[l.Index], m) {
			return true
		}
	}
	return false
}

// TestLateInstructionsKeepPrefix: each turn's prompt begins with the
// previous turn's, wherever a late instruction arrives, as the engine's
// prefix cache needs.
func TestLateInstructionsKeepPrefix(t *testing.T) {
	asst := func(s string) harmony.Message {
		return harmony.Message{Role: "assistant", Reasoning: "r" + s, ToolCalls: []harmony.ToolCall{{ID: "c" + s, Function: harmony.FunctionCall{Name: "f", Arguments: json.RawMessage(`{"x": 1}`)}}}}
	}
	tool := func(s string) harmony.Message {
		return harmony.Message{Role: "tool", ToolCallID: "c" + s, Content: "out" + s}
	}
	// Each turn is the previous one, the reply generated from it, and what
	// the client adds: tool results, late instructions, a user message.
	turns := [][]harmony.Message{
		{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: "env"}},
		{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: "env"}, asst("1"), tool("1"), {Role: "developer", Content: "late1"}},
		{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: "env"}, asst("1"), tool("1"), {Role: "developer", Content: "late1"}, asst("2"), tool("2")},
		{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: "env"}, asst("1"), tool("1"), {Role: "developer", Content: "late1"}, asst("2"), tool("2"),
			{Role: "assistant", Reasoning: "r3", Content: "done"}, {Role: "system", Content: "late2"}, {Role: "user", Content: "u2"}},
	}
	prev := ""
	for i, msgs := range turns {
		got, err := harmony.Render(msgs, &harmony.Options{AddGenerationPrompt: true, PlaceLateInstructions: true})
		if err != nil {
			t.Fatal(err)
		}
		// The previous prompt ends with the open assistant header the
		// generation continued.
		if !strings.HasPrefix(got, prev) {
			t.Fatalf("turn %d does not begin with turn %d's prompt:\n%q\n%q", i, i-1, got, prev)
		}
		prev = got
		if !strings.Contains(got, "late") && i > 1 {
			t.Fatalf("turn %d lost a late instruction", i)
		}
	}
}

// TestLateInstructionsStrict: Strict refuses what would be dropped, so it
// refuses nothing once the late messages are placed.
func TestLateInstructionsStrict(t *testing.T) {
	msgs := []harmony.Message{{Role: "user", Content: "a"}, {Role: "developer", Content: "late"}}
	if _, err := harmony.Render(msgs, &harmony.Options{Strict: true}); err == nil {
		t.Fatal("strict without placing: no error")
	}
	if _, err := harmony.Render(msgs, &harmony.Options{Strict: true, PlaceLateInstructions: true}); err != nil {
		t.Fatalf("strict with placing: %v", err)
	}
}

func TestLintLateInstructions(t *testing.T) {
	msgs := []harmony.Message{{Role: "user", Content: "u"}, {Role: "system", Content: "env"},
		{Role: "assistant", Reasoning: "r", Content: "a"}, {Role: "developer", Content: "later"}}
	tests := []struct {
		name  string
		place bool
		want  []string
	}{
		{"dropped by the template", false, []string{
			"messages[1]: this system message comes after a message of another role and is not rendered; put system and developer messages at the start",
			"messages[3]: this developer message comes after a message of another role and is not rendered; put system and developer messages at the start"}},
		{"placed", true, []string{
			"messages[1]: this system message comes after a message of another role and is joined to the instructions, before the first assistant turn (late instructions; docs/gap-decisions.md 110)",
			"messages[3]: this developer message comes after a message of another role and is rendered in its place as a user message headed \"# Instructions\" (late instructions after an assistant turn; docs/gap-decisions.md 110)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, w := range harmony.Lint(msgs, &harmony.Options{PlaceLateInstructions: tt.place}) {
				got = append(got, w.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// A system message after the conversation has begun, as Claude Code sends
// its environment, joins the instructions before the first assistant
// turn; after one, it is a user message in its place.
func ExamplePlaceInstructions() {
	messages := []harmony.Message{
		{Role: "user", Content: "Hi"},
		{Role: "system", Content: "Working directory: /src"},
		{Role: "assistant", Reasoning: "A greeting.", Content: "Hello!"},
		{Role: "developer", Content: "Answer in French."},
		{Role: "user", Content: "How are you?"},
	}
	placed, origin := harmony.PlaceInstructions(messages)
	for i, m := range placed {
		fmt.Printf("%d (from %d) %s: %q\n", i, origin[i], m.Role, m.Content)
	}
	// Output:
	// 0 (from 1) system: "Working directory: /src"
	// 1 (from 0) user: "Hi"
	// 2 (from 2) assistant: "Hello!"
	// 3 (from 3) user: "# Instructions\n\nAnswer in French."
	// 4 (from 4) user: "How are you?"
}
