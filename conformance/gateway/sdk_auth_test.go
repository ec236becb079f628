package gateway_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// headerRecorder passes requests to the gateway and keeps their headers.
type headerRecorder struct {
	h       http.Handler
	mu      sync.Mutex
	headers []http.Header
}

func (hr *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hr.mu.Lock()
	hr.headers = append(hr.headers, r.Header.Clone())
	hr.mu.Unlock()
	hr.h.ServeHTTP(w, r)
}

// last returns the headers of the last request.
func (hr *headerRecorder) last() http.Header {
	hr.mu.Lock()
	defer hr.mu.Unlock()
	return hr.headers[len(hr.headers)-1]
}

// sdkHeaders are the request headers a browser page using the SDK would
// have to clear in a preflight: all but those the browser sets itself and
// the CORS-safelisted ones.
func sdkHeaders(h http.Header) string {
	var names []string
	for name := range h {
		switch n := strings.ToLower(name); {
		case n == "accept", n == "accept-encoding", n == "accept-language", n == "user-agent", n == "content-length", n == "connection", n == "host",
			strings.HasPrefix(n, "sec-"):
		default:
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// The official Go clients through TLS (a self-signed certificate the
// client trusts) with a key: the key goes through as each SDK sends it,
// a wrong key is the 401 each SDK reads as an authentication error, and a
// browser preflight for exactly the headers each SDK sends is answered.
func TestGoSDKsKeyTLSCORS(t *testing.T) {
	const key, origin = "sk-beam-test-key", "https://app.example.com"
	base, httpClient, rec := securedGateway(t, key, origin)
	ctx := context.Background()

	// OpenAI: Chat Completions and Responses, the key as a bearer token.
	oc := func(k string) *openai.Client {
		c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey(k), option.WithHTTPClient(httpClient), option.WithMaxRetries(0))
		return &c
	}
	chat := openai.ChatCompletionNewParams{Model: "beam", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What's the weather in London?")}}
	if _, err := oc(key).Chat.Completions.New(ctx, chat); err != nil {
		t.Fatalf("openai chat with the key: %v", err)
	}
	if got := rec.last().Get("Authorization"); got != "Bearer "+key {
		t.Errorf("openai sent Authorization %q", got)
	}
	openaiHeaders := sdkHeaders(rec.last())
	resp, err := oc(key).Responses.New(ctx, responses.ResponseNewParams{Model: "beam",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What's the weather in London?")}})
	if err != nil || resp.Status != "completed" {
		t.Fatalf("openai responses with the key: %v", err)
	}
	for name, call := range map[string]func() error{
		"chat": func() error { _, err := oc("sk-wrong").Chat.Completions.New(ctx, chat); return err },
		"responses": func() error {
			_, err := oc("sk-wrong").Responses.New(ctx, responses.ResponseNewParams{Model: "beam",
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hi")}})
			return err
		},
		"models": func() error { _, err := oc("sk-wrong").Models.List(ctx); return err },
	} {
		err := call()
		var apierr *openai.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != 401 || apierr.Code != "invalid_api_key" || apierr.Type != "invalid_request_error" {
			t.Errorf("openai %s with a wrong key: %v, want a 401 invalid_api_key", name, err)
		}
	}

	// Anthropic: the key as the SDK sends an API key, as an auth token,
	// and in x-api-key (as the TypeScript SDK and Claude Code send it).
	ac := func(opts ...anthropicoption.RequestOption) *anthropic.Client {
		c := anthropic.NewClient(append([]anthropicoption.RequestOption{anthropicoption.WithBaseURL(base),
			anthropicoption.WithHTTPClient(httpClient), anthropicoption.WithMaxRetries(0)}, opts...)...)
		return &c
	}
	params := anthropic.MessageNewParams{Model: "beam", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))}}
	var anthropicHeaders string
	for _, tt := range []struct {
		name   string
		opts   []anthropicoption.RequestOption
		header string // the header the key must have arrived in
	}{
		{"api key", []anthropicoption.RequestOption{anthropicoption.WithAPIKey(key)}, ""},
		{"auth token", []anthropicoption.RequestOption{anthropicoption.WithAuthToken(key)}, "Authorization"},
		{"x-api-key", []anthropicoption.RequestOption{anthropicoption.WithHeader("X-Api-Key", key)}, "X-Api-Key"},
	} {
		msg, err := ac(tt.opts...).Messages.New(ctx, params)
		if err != nil {
			t.Fatalf("anthropic (%s) with the key: %v", tt.name, err)
		}
		if msg.StopReason != anthropic.StopReasonToolUse {
			t.Errorf("anthropic (%s): stop reason %q", tt.name, msg.StopReason)
		}
		h := rec.last()
		gotBearer, gotXKey := h.Get("Authorization") == "Bearer "+key, h.Get("X-Api-Key") == key
		switch {
		case tt.header == "Authorization" && !gotBearer, tt.header == "X-Api-Key" && !gotXKey, !gotBearer && !gotXKey:
			t.Errorf("anthropic (%s): the key arrived as Authorization %q, X-Api-Key %q", tt.name, h.Get("Authorization"), h.Get("X-Api-Key"))
		}
		if tt.header == "" {
			t.Logf("anthropic-sdk-go sends an API key as Authorization %q, X-Api-Key %q", h.Get("Authorization"), h.Get("X-Api-Key"))
			anthropicHeaders = sdkHeaders(h)
		}
	}
	for _, opts := range [][]anthropicoption.RequestOption{
		{anthropicoption.WithAPIKey("sk-wrong")},
		{anthropicoption.WithHeader("X-Api-Key", "sk-wrong")},
	} {
		_, err := ac(opts...).Messages.New(ctx, params)
		var apierr *anthropic.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != 401 || apierr.Type() != anthropic.ErrorTypeAuthenticationError {
			t.Errorf("anthropic with a wrong key: %v, want a 401 authentication_error", err)
		}
	}

	// CORS: a preflight for the headers each SDK sent.
	for api, tt := range map[string]struct{ path, headers string }{
		"openai":    {"/v1/chat/completions", openaiHeaders},
		"anthropic": {"/v1/messages", anthropicHeaders},
	} {
		if !strings.Contains(tt.headers, "x-stainless-") {
			t.Errorf("%s: recorded headers %q lack the SDK's own", api, tt.headers)
		}
		req, _ := http.NewRequest(http.MethodOptions, base+tt.path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", tt.headers)
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		allowed := strings.Split(strings.ReplaceAll(resp.Header.Get("Access-Control-Allow-Headers"), " ", ""), ",")
		if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("%s preflight: %d %v", api, resp.StatusCode, resp.Header)
		}
		for _, name := range strings.Split(tt.headers, ",") {
			if !slices.Contains(allowed, name) {
				t.Errorf("%s preflight: %s not allowed (%v)", api, name, allowed)
			}
		}
	}
}
