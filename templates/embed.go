// Package templates holds Beam's chat_template.jinja, the Jinja twin of the
// Go renderer, for Python users (Transformers, vLLM, SGLang, TRL).
//
// The template implements the format page's rules, DECISIONS.md's rendering
// rules and docs/gap-decisions.md, for the Hugging Face Jinja environment.
// Its assistant output is wrapped in {% generation %} blocks, so
// apply_chat_template(..., return_assistant_tokens_mask=True) masks the same
// spans as Prompt.AssistantSpans. The differential test in this package
// proves that both give the same bytes, spans and error messages.
package templates

import _ "embed"

// ChatTemplate is the text of chat_template.jinja, as `beamharmony template`
// prints it.
//
//go:embed chat_template.jinja
var ChatTemplate string
