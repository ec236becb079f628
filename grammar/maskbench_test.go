package grammar

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var maskbenchDir = flag.String("maskbench", "", "a directory of MaskBench schema files")
var maskbenchOut = flag.String("maskbench-out", "", "write violations here")

func TestMaskBench(t *testing.T) {
	if *maskbenchDir == "" {
		t.Skip("set -maskbench DIR")
	}
	paths, _ := filepath.Glob(filepath.Join(*maskbenchDir, "*.json"))
	sort.Strings(paths)
	var files []suiteFile
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c suiteCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Logf("%s: %v", p, err)
			continue
		}
		files = append(files, suiteFile{name: strings.TrimSuffix(filepath.Base(p), ".json"), cases: []suiteCase{c}})
	}
	res := runSuite(t, files)
	for _, m := range suiteModes {
		c := res.counts[m.name]
		t.Logf("%s: %d schemas, %d compiled, %d refused; valid %d accepted, %d reordered, %d rejected; invalid %d rejected, %d excused, %d accepted; %d skipped; %v",
			m.name, c.schemas, c.compiled, c.refused, c.validAccepted, c.validReordered, c.validRejected, c.invalidRejected, c.invalidExcused, c.invalidAccepted, c.skipped, c.byKind)
	}
	if *maskbenchOut != "" {
		os.WriteFile(*maskbenchOut, []byte(strings.Join(res.lines, "\n")+"\n"), 0o644)
	}
}
