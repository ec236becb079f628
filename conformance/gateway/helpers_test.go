// Package gateway_test drives the gateway (package serve) through its
// HTTP API with the clients people use: the official OpenAI and Anthropic
// Go SDKs and a browser, in front of a scripted engine
// (internal/enginetest).
package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends body to url with the API key, and returns the answer with its
// body read (resp.Body holds it again).
func post(t *testing.T, url, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(strings.NewReader(string(data)))
	return resp
}
