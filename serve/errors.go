package serve

import (
	"errors"
	"net/http"
	"strconv"
)

// apiError is a failure reported to the client as an OpenAI error object,
// {"error": {"message", "type", "param", "code"}}, with an HTTP status
// when it happens before the reply has started.
type apiError struct {
	status int
	// kind is the metrics label of the failure.
	kind errorKind
	msg  string
	// param names the offending request field, when there is one.
	param string
	// code is a short machine-readable reason.
	code string
	// typ overrides the OpenAI error type derived from status (an engine's
	// own type for a passed-through 4xx).
	typ string
	// detail is what the log records besides msg: the engine's own words,
	// addresses and bodies, which the client never sees.
	detail string
	// details are the error's details in Anthropic's error object, for a
	// client that acts on them (threads.go); nil for most errors.
	details *errorDetails
}

// errorDetails is the details member of an Anthropic error: a code an SDK
// acts on, and for thread_unsupported_request what could not be threaded.
type errorDetails struct {
	ErrorCode   string   `json:"error_code"`
	Unsupported []string `json:"unsupported,omitempty"`
}

// withDetail sets the detail the log records and returns e.
func (e *apiError) withDetail(detail string) *apiError {
	e.detail = detail
	return e
}

func (e *apiError) Error() string { return e.msg }

// errorType is the OpenAI error type for the status: client errors are
// invalid_request_error, the rest server_error (engine failures and
// timeouts included).
func (e *apiError) errorType() string {
	switch {
	case e.typ != "":
		return e.typ
	case e.status < 500:
		return "invalid_request_error"
	}
	return "server_error"
}

// wire is the OpenAI error object of e.
func (e *apiError) wire() *openAIError {
	return &openAIError{Error: openAIErrorBody{Message: e.msg, Type: e.errorType(), Param: optString(e.param), Code: optString(e.code)}}
}

// appendJSON appends the error object {"error": {...}}.
func (e *apiError) appendJSON(dst []byte) []byte {
	return appendJSON(dst, e.wire())
}

// badRequest is a 400 for the request field param with the message msg
// as given; paramError, paramJSONError and bodyError write the usual
// messages, which start with the parameter's path.
func badRequest(param, code, msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, kind: kindBadRequest, msg: msg, param: param, code: code}
}

// paramError is a 400 for the request parameter param (a JSON path)
// whose message names it: "param: what".
func paramError(param, code, what string) *apiError {
	return badRequest(param, code, param+": "+what)
}

// paramJSONError is a 400 for the request parameter param (a JSON path)
// that encoding/json could not decode: the message names the field
// inside it, "param.field: must be ...".
func paramJSONError(param, code string, err error) *apiError {
	return badRequest(param, code, param+"."+jsonErrorText(err))
}

// bodyError is a 400 for the request body as a whole: "request body:
// what".
func bodyError(code, what string) *apiError {
	return badRequest("", code, "request body: "+what)
}

// engineError is a 502: the engine failed or answered nonsense. msg goes
// to the client, so it says what failed without the engine's words: they
// go in the detail (withDetail), for the log.
func engineError(code, msg string) *apiError {
	return &apiError{status: http.StatusBadGateway, kind: kindEngine, msg: msg, code: code}
}

// timeoutError is a 504: the engine did not finish within the server's
// timeout.
func timeoutError(d string) *apiError {
	return &apiError{status: http.StatusGatewayTimeout, kind: kindTimeout, code: "timeout",
		msg: "the engine did not answer within " + d + "; raise the server's --timeout or lower max_tokens"}
}

// errShutdown is the cause of the request contexts Run cancels at its
// shutdown deadline.
var errShutdown = errors.New("the server is shutting down")

// shutdownError is the 503 of a request that Run's shutdown deadline cut:
// an HTTP error before the reply has started, else a stream's error event.
func shutdownError() *apiError {
	return &apiError{status: http.StatusServiceUnavailable, kind: kindShutdown, code: "server_shutdown",
		msg: "the server is shutting down and ended the request at its shutdown deadline; retry it"}
}

// writeError writes e as an HTTP error reply.
func writeError(w http.ResponseWriter, e *apiError) {
	body := append(e.appendJSON(nil), '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}
