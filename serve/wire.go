package serve

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

// The wire shapes of the replies are typed structs, each API's in its
// _reply.go file: non-streamed replies are these values encoded with
// encoding/json (writeJSON); the streamed chunks are appended by hand on
// the per-token path, and wire_test.go checks each kind of chunk against
// json.Marshal of its struct (wire_events_test.go the Messages and
// Responses events). Here are what they share and the gateway's small
// replies.

// writeJSON writes v as the JSON reply body, followed by a newline.
func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

// writeJSONStatus writes v as the JSON reply body, followed by a newline,
// with the HTTP status.
func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(appendJSON(nil, v), '\n'))
}

// appendJSON appends v encoded by encoding/json with HTML characters left
// as they are (prompts and arguments are full of < and >).
func appendJSON(dst []byte, v any) []byte {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values the gateway builds are encoded: a failure is a bug.
		panic("serve: encoding a reply: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// optString is s, or nil when s is empty (null on the wire).
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// The gateway's small replies.

// modelList is GET /v1/models's reply when the server names its model.
type modelList struct {
	Object string      `json:"object"`
	Data   []modelInfo `json:"data"`
}

type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// healthReply is GET /health's reply: Engine with one engine, Engines
// with replicas, each only with details.
type healthReply struct {
	Status  string         `json:"status"`
	Engine  *healthEngine  `json:"engine,omitempty"`
	Engines []healthEngine `json:"engines,omitempty"`
}

// healthEngine is an engine's state; Healthy and OpenRequests are a
// replica's.
type healthEngine struct {
	URL          string  `json:"url"`
	Reachable    bool    `json:"reachable"`
	Healthy      *bool   `json:"healthy,omitempty"`
	OpenRequests *int64  `json:"open_requests,omitempty"`
	Error        *string `json:"error,omitempty"`
}

// countTokensReply is the Messages API's count_tokens reply.
type countTokensReply struct {
	InputTokens int `json:"input_tokens"`
}

// Errors.

// openAIError is the OpenAI APIs' error object.
type openAIError struct {
	Error openAIErrorBody `json:"error"`
}

type openAIErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// anthropicError is the Messages API's error object.
type anthropicError struct {
	Type  string             `json:"type"`
	Error anthropicErrorBody `json:"error"`
}

type anthropicErrorBody struct {
	Type    string        `json:"type"`
	Message string        `json:"message"`
	Details *errorDetails `json:"details,omitempty"`
}

// newID returns prefix followed by 24 random hex digits (crypto/rand).
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand documents it)
	return prefix + hex.EncodeToString(b[:])
}
