package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// parse --stream parses its input as it arrives: events come out before
// the input ends, and an input that never ends is stopped by the parser's
// limit (4 MiB) instead of being read into memory (issue 12, finding 8).
func TestParseStreamInputThatNeverEnds(t *testing.T) {
	const bound = 10 * time.Second // a guard against hanging, not a speed claim
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := Main([]string{"parse", "--stream"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	io.WriteString(inW, "<|channel|>analysis<|message|>The user is greeting me.<|end|><|start|>assistant<|channel|>final<|message|>Hi")
	want := `{"type": "region_close", "field": "thinking", "value": "The user is greeting me."}`
	timer := time.NewTimer(bound)
	defer timer.Stop()
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the output ended before the input did")
			}
			if line == want {
				break wait
			}
		case <-timer.C:
			inW.Close() // let a command that waits for the end finish
			t.Fatalf("no event while the input is open, after %v", bound)
		}
	}
	// Now an answer that never ends.
	go func() {
		chunk := []byte(strings.Repeat("and on ", 8<<10))
		for {
			if _, err := inW.Write(chunk); err != nil {
				return
			}
		}
	}()
	var last string
	for line := range lines {
		last = line
	}
	code := <-done
	inR.Close() // the writer's next write fails
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "MaxBufferedBytes") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line naming the limit", stderr.String())
	}
	if !strings.HasPrefix(last, `{"type": "message", "message": {"role": "assistant", "thinking": "The user is greeting me.", "content": "Hiand on and on`) {
		t.Errorf("last line %.200q", last)
	}
}
