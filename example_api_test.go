package harmony_test

import (
	"errors"
	"fmt"

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
