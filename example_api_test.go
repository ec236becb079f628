package harmony_test

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/beamharmony/harmony"
)

// ExampleParseRequest decodes a request in the command line's JSON shape
// and renders it; a malformed one is a *RenderError naming the value.
func ExampleParseRequest() {
	req, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": "low"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	prompt, err := req.Render()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt)

	_, err = harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": 5}]}`))
	var re *harmony.RenderError
	if errors.As(err, &re) {
		fmt.Println(re.Path)
	}
	// Output:
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 32
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>user<|message|>Hi<|end|><|start|>assistant
	// messages[0].content
}

// ExampleLint lists what a request that renders may still get wrong.
// ExampleParseMessagesUnread decodes a list of messages as a gateway
// reads a body's, and names what the format does not read, so that a
// server can report it; null and empty values say nothing and are not
// named.
func ExampleParseMessagesUnread() {
	messages, err := harmony.ParseMessagesUnread([]byte(`[
		{"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]},
		{"role": "assistant", "content": "Hello!", "reasoning_content": "Greet back.", "refusal": null, "annotations": []},
		{"role": "user", "content": "Weather?", "audio": {"id": "a1"}}
	]`), func(path string) bool {
		fmt.Println("not read:", path)
		return true // false: no more calls
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(messages), "messages")
	// Output:
	// not read: messages[0].content[0].cache_control
	// not read: messages[2].audio
	// 3 messages
}

func ExampleLint() {
	msgs := []harmony.Message{
		{Role: harmony.RoleUser, Content: "Hi"},
		{Role: harmony.RoleSystem, Content: "Be brief."},
	}
	for _, w := range harmony.Lint(msgs, nil) {
		fmt.Println(w)
	}
	// Output:
	// messages[1]: this system message comes after a message of another role and is not rendered; put system and developer messages at the start
}

// ExampleRender renders a conversation ready for the model's answer.
func ExampleRender() {
	prompt, err := harmony.Render([]harmony.Message{
		{Role: harmony.RoleUser, Content: "Hi"},
	}, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt)
	// Output:
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 512
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>user<|message|>Hi<|end|><|start|>assistant
}

// ExampleRenderPrompt marks the assistant's text, as training masks it.
func ExampleRenderPrompt() {
	p, err := harmony.RenderPrompt([]harmony.Message{
		{Role: harmony.RoleUser, Content: "Hi"},
		{Role: harmony.RoleAssistant, Reasoning: "Greet back.", Content: "Hello!"},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range p.AssistantSpans {
		fmt.Printf("%q\n", p.Text[s.Start:s.End])
	}
	// Output:
	// "<|channel|>analysis<|message|>Greet back.<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|>"
}

// ExampleParse reads a finished generation back into a message.
func ExampleParse() {
	res, err := harmony.Parse("<|channel|>analysis<|message|>Greet back.<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|>", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n%s\n", res.Message.AppendJSON(nil), res.End)
	// Output:
	// {"role": "assistant", "thinking": "Greet back.", "content": "Hello!"}
	// <|return|>
}

// ExampleStreamParser reads a generation chunk by chunk, as a server does.
func ExampleStreamParser() {
	p := harmony.NewStreamParser(nil)
	var events []harmony.Event
	for _, chunk := range []string{"<|channel|>final<|mes", "sage|>Hel", "lo!<|return|>"} {
		events, err := p.Feed(chunk, events[:0])
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, e := range events {
			fmt.Println(e.Type, e.Field, strconv.Quote(e.Text))
		}
	}
	events, res, err := p.Finish(events[:0])
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range events {
		fmt.Println(e.Type, e.Field, strconv.Quote(e.Text))
	}
	fmt.Println(res.Message.Content)
	// Output:
	// region_open content ""
	// region_chunk content "Hel"
	// region_chunk content "lo!"
	// region_close content ""
	// Hello!
}
