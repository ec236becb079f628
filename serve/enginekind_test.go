package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// The engine client drops idle connections before the engines' servers
// do: against llama-server, a request sent on a connection the server was
// closing failed with "write: broken pipe" (seen in TestConstrainedLlamaCpp).
func TestEngineClientIdleTimeout(t *testing.T) {
	tr := newClient().Transport.(*http.Transport)
	if tr.IdleConnTimeout <= 0 || tr.IdleConnTimeout >= engineKeepAlive {
		t.Errorf("idle connections kept %v, not less than the engines' %v", tr.IdleConnTimeout, engineKeepAlive)
	}
}

// A completion sent on a kept-alive connection that the engine closes
// without answering (llama-server did, after a streamed reply: "write:
// broken pipe" in TestConstrainedLlamaCpp) is sent again on a new one.
func TestEngineConnectionClosedOnReuse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	body := `{"choices":[{"index":0,"text":"<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>","finish_reason":"stop"}]}`
	reply := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	readRequest := func(br *bufio.Reader) error {
		req, err := http.ReadRequest(br)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, req.Body)
		return err
	}
	go func() {
		// The first connection answers one request, then closes when the
		// second one arrives, without answering it.
		c, err := ln.Accept()
		if err != nil {
			return
		}
		br := bufio.NewReader(c)
		if readRequest(br) == nil {
			io.WriteString(c, reply)
		}
		br.Peek(1)
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
		// Every later connection answers.
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for readRequest(br) == nil {
					io.WriteString(c, reply)
				}
			}()
		}
	}()
	gw := newGatewayTo(t, "http://"+ln.Addr().String())
	for i := range 2 {
		resp, data := post(t, gw, hello)
		if resp.StatusCode != 200 || !strings.Contains(string(data), `"content":"Hi"`) {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, data)
		}
	}
}

// newGatewayTo starts a gateway in front of the engine at url, with the
// server's own engine client.
func newGatewayTo(t *testing.T, url string) *httptest.Server {
	t.Helper()
	s, err := New(Config{Backend: url})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	t.Cleanup(gw.Close)
	return gw
}
