package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

func TestZZHist(t *testing.T) {
	paths, _ := filepath.Glob("/work/maskbench/data/*.json")
	counts := map[string]int{}
	ex := map[string]string{}
	re := regexp.MustCompile(`\[[0-9]+\]`)
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		var d struct{ Schema json.RawMessage }
		if json.Unmarshal(data, &d) != nil {
			continue
		}
		_, err := Compile(context.Background(), &Spec{Format: &Format{Schema: d.Schema, Strict: true}})
		if err == nil {
			continue
		}
		ge, ok := err.(*Error)
		if !ok {
			counts["other"]++
			continue
		}
		msg := ge.Msg
		if len(msg) > 90 {
			msg = msg[:90]
		}
		msg = re.ReplaceAllString(msg, "[]")
		k := msg
		counts[k]++
		ex[k] = filepath.Base(p) + " " + ge.Path
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
	for _, k := range keys[:min(45, len(keys))] {
		fmt.Printf("%5d %s\n      %s\n", counts[k], k, ex[k])
	}
}
