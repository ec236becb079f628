package grammar

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// commas writes n with thousands separated by commas, as the README does.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// docs/serve.md gives the grammar caps the code has.
func TestReadmeCaps(t *testing.T) {
	data, err := os.ReadFile("../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, want := range []string{
		"schemas of " + commas(maxSchemaValues) + " JSON values and " + strconv.Itoa(maxSchemaBytes>>20) + " MiB of JSON together",
		strconv.Itoa(maxPatternBytes>>10) + " KiB of distinct patterns (each counting " + strconv.Itoa(patternCharge) + " bytes more",
		commas(MaxRules) + " rules",
		strconv.Itoa(MaxBytes>>20) + " MiB of grammar",
		"nested " + strconv.Itoa(MaxDepth) + " deep",
		"counts up to " + strconv.Itoa(MaxCount),
		"lengths up to " + commas(MaxLength),
		"adding up to " + commas(maxRepetitions),
		"up to " + strconv.Itoa(chunkFrom) + " characters one repetition",
		"past " + strconv.Itoa(chunkFrom) + " in chunks",
		"up to " + strconv.Itoa(maxRangeDigits) + " digits",
		commas(maxExpanded) + " elements",
		commas(maxLeftmostWalk) + " elements scanned",
		"up to " + strconv.Itoa(maxDependentTriggers) + " such properties (" + strconv.Itoa(1<<maxDependentTriggers) + " cases)",
		"up to " + strconv.Itoa(maxKeyPatterns) + " patterns and " + commas(maxKeyStates) + " states",
		"up to " + commas(maxLengthStates) + " pairs",
		"objects of up to " + commas(maxObjectMembers) + " declared and required names",
		"all of them by one automaton, up to " + strconv.Itoa(maxStringShapes),
		"the key tries of a strict grammar at most " + commas(maxTrieNodes) + " characters",
		"a chain of " + strconv.Itoa(blockedChainMin) + " or more members is written in blocks",
		"under strict a length up to " + commas(MaxLength) + " is written as chains of " + strconv.Itoa(chunkFrom) + " choices",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("docs/serve.md does not say %q", want)
		}
	}
}

// docs/serve.md's format row lists the formats the grammar knows, and says
// which it enforces loosely.
func TestServeDocFormats(t *testing.T) {
	data, err := os.ReadFile("../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| `format` |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/serve.md has no format row")
	}
	known, loose, _ := strings.Cut(row, "; enforced loosely")
	var listed []string
	for _, f := range strings.Split(strings.TrimSpace(strings.TrimPrefix(known, "| `format` |")), ", ") {
		listed = append(listed, strings.Trim(f, "`"))
	}
	if strings.Join(listed, " ") != strings.Join(formatNames, " ") {
		t.Errorf("docs/serve.md lists the formats %q, the grammar knows %q", listed, formatNames)
	}
	for _, name := range formatNames {
		if formatExpr(name) == nil {
			t.Errorf("format %q has no expression", name)
		}
		if said := strings.Contains(loose, "`"+name+"`"); said != (formatLoose(name) != "") {
			t.Errorf("docs/serve.md says format %q is enforced loosely: %v; the grammar: %q", name, said, formatLoose(name))
		}
	}
}
