// Package serve is an OpenAI-compatible gateway for Beam in front of an
// inference server.
//
// A [Server] answers POST /v1/chat/completions by rendering the request's
// messages with [harmony.Render], sending the prompt to the engine's raw
// /v1/completions endpoint (vLLM, SGLang or llama.cpp's server), and
// parsing the generated text with [harmony.StreamParser]. Reasoning goes out
// as reasoning_content and reasoning, tool calls as OpenAI tool_calls whose
// arguments stream as they are parsed. It also serves GET /v1/models,
// GET /health and GET /metrics (Prometheus text format).
//
// The rules it follows are those of the format page and DECISIONS.md
// (Serving): a history without reasoning is refused unless allowed, message
// text carrying Harmony markers is refused unless allowed, and errors are
// OpenAI error objects with the status the failure calls for.
package serve
