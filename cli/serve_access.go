package cli

import (
	"fmt"
	"strings"

	"github.com/beamharmony/harmony/internal/access"
)

// readKeyFile reads --api-key-file: one API key a line, spaces around a
// key, blank lines and lines starting with # ignored. It reads at most
// 1 MiB (readSmallFile: a FIFO is refused, not waited on), and refuses a
// file with no key and any key the server would refuse, naming its line.
func readKeyFile(path string) ([]string, error) {
	data, err := readSmallFile(path)
	if err != nil {
		return nil, err
	}
	var keys []string
	line := 0
	for text := range strings.Lines(string(data)) {
		line++
		k := strings.TrimSpace(text)
		if k == "" || strings.HasPrefix(k, "#") {
			continue
		}
		if err := access.CheckKey(k); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no API key (one key a line)", path)
	}
	return keys, nil
}

// parseCORSOrigins reads --cors-origins: a comma-separated list of
// origins (https://app.example.com, http://localhost:3000) or "*" for any
// origin, each checked as the server checks serve.Config.CORSOrigins. An
// empty list allows none.
func parseCORSOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if err := access.CheckOrigin(o); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
