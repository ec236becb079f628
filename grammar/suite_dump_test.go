package grammar

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDumpGrammarsForLlama writes grammars and texts for
// templates/llamacpp/grammar.sh, which checks them with llama.cpp's own
// GBNF parser and matcher. It runs only with -dump-grammars DIR and writes
// into DIR:
//
//   - NAME.gbnf for every schema of the JSON Schema Test Suite that
//     compiles not strict (NAME: the suite file and the case's index),
//     NAME-strict.gbnf for those that compile strict to another grammar,
//     and attack-NAME.gbnf for the worst-case schemas of bounded_test.go's
//     attacks that compile, and impossible-NN.gbnf for those of
//     TestImpossibleParts that compile (parts that match nothing);
//   - NAME.N.txt, the texts to match: every writing of every instance of
//     the case (the whole text the grammar matches, reasoning first; its
//     members also in the schema's declared order when that differs), a
//     few texts drawn from the grammar, and for the numeric attacks the
//     numbers bounded_test.go tries;
//   - with -jsonschemabench DIR, maskbench-NAME.gbnf for MaskBench's
//     schemas (NAME-strict.gbnf as for the suite, NAME-tool.gbnf as a
//     tool's parameters, with drawn texts only), their instances up to
//     maxCheckedInstance bytes;
//   - expected.txt, one line per text: GRAMMAR TEXT ok|fail, the verdict
//     of this package's matcher; and grammars.txt, every grammar written.
var dumpGrammars = flag.String("dump-grammars", "", "write the suite's and the attacks' grammars, with texts and this package's verdicts, into `DIR` for templates/llamacpp/grammar.sh")

// dumpForXGrammar compiles the dumped grammars for xgrammar
// (Spec.XGrammar), as the gateway does for vLLM and SGLang:
// templates/xgrammar/grammar.sh checks those.
var dumpForXGrammar = flag.Bool("dump-for-xgrammar", false, "with -dump-grammars, compile every grammar as the gateway does for vLLM and SGLang (Spec.XGrammar)")

// dumpSpec is s as the dump compiles it.
func dumpSpec(s *Spec) *Spec {
	s.XGrammar = *dumpForXGrammar
	return s
}

// dumpAttack is a worst-case schema of bounded_test.go or of issue 33's
// attacks, with instances to try: JSON values one after another (numbers
// when a number is what it holds, objects written as the renderer writes
// them), each a text of its own (jsonValues).
type dumpAttack struct {
	name, schema, instances string
	strict                  bool // compiled strict (the key automata are built under strict only)
}

// jsonValues splits s, JSON values one after another, into their texts,
// each as s writes it.
func jsonValues(t *testing.T, s string) []string {
	var values []string
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			return values
		} else if err != nil {
			t.Fatalf("%.60s...: %v", s, err)
		}
		values = append(values, string(v))
	}
}

// dumpFamily is a family of attack schemas that grow with n: the largest
// n up to max whose schema compiles is the worst grammar of the family.
type dumpFamily struct {
	name   string
	max    int
	schema func(n int) string
	strict bool
}

func dumpProperties(n int, item string) string {
	return dumpObject(n, func(i int) string { return fmt.Sprintf(`"p%d": %s`, i, item) })
}

// dumpObject is an object schema of n properties, property(i) each.
func dumpObject(n int, property func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(property(i))
	}
	b.WriteString(`}}`)
	return b.String()
}

// dumpLadder is n levels of $defs, each anyOf of references to the next
// level's two variants (the same one twice unless distinct).
func dumpLadder(n int, distinct bool) string {
	var b strings.Builder
	b.WriteString(`{"$defs": {`)
	for i := range n {
		next := `{"type": "null"}`
		if i+1 < n {
			other := "a"
			if distinct {
				other = "b"
			}
			next = fmt.Sprintf(`{"$ref": "#/$defs/L%da"}, {"$ref": "#/$defs/L%d%s"}`, i+1, i+1, other)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"L%da": {"anyOf": [%s]}, "L%db": {"anyOf": [%s, {"type": "boolean"}]}`, i, next, i, next)
	}
	b.WriteString(`}, "$ref": "#/$defs/L0a"}`)
	return b.String()
}

func dumpVariants(n int) string {
	var b strings.Builder
	b.WriteString(`{"anyOf": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"type": "object", "properties": {"k%d": {"type": "integer"}}, "required": ["k%d"]}`, i, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

func dumpEnum(n, size int) string {
	var b strings.Builder
	b.WriteString(`{"enum": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"%s%d"`, strings.Repeat("v", size), i)
	}
	b.WriteString(`]}`)
	return b.String()
}

const int64Bounds = `{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}`

var dumpAttacks = []dumpAttack{
	{"int64", int64Bounds, dumpNumbers, false},
	{"uint64", `{"type": "integer", "minimum": 0, "maximum": 18446744073709551615}`, dumpNumbers, false},
	{"1e23", `{"type": "number", "minimum": 0, "maximum": 1e23}`, dumpNumbers, false},
	{"1e24", `{"type": "number", "minimum": 0, "maximum": 1e24}`, dumpNumbers, false},
	{"1e300", `{"type": "number", "minimum": -1.5e300, "maximum": 1e300}`, dumpNumbers, false},
	{"tiny", `{"type": "number", "exclusiveMinimum": 1e-300, "maximum": 1}`, dumpNumbers, false},
	{"huge-exponent", `{"type": "integer", "maximum": 1e999999999, "minimum": -1E+999999999}`, dumpNumbers, false},
	{"long-fraction", `{"type": "number", "minimum": 0.1234567890123456789012345678901, "maximum": 0.2}`, dumpNumbers, false},
	{"negative-long-fraction", `{"type": "number", "minimum": -1, "maximum": -0.1234567890123456789012345678901}`, dumpNumbers, false},
	{"two-int64", `{"type": "object", "properties": {"a": ` + int64Bounds + `, "b": ` + int64Bounds + `}, "required": ["a", "b"]}`, "", false},
	{"ladder-30-repeated", dumpLadder(30, false), "", false},
	{"ladder-30", dumpLadder(30, true), "", false},
	{"self-ref", `{"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}`, "", false},
	{"self-ref-anyOf", `{"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}, "$ref": "#/$defs/A"}`, "", false},
	{"strings-1000x1024", dumpProperties(1000, `{"type": "string", "maxLength": 1024}`), "", false},
	{"required-1024x2", `{"type": "object", "properties": {"a": {"type": "string", "minLength": 1024, "maxLength": 1024}, "b": {"type": "array", "items": {"type": "integer"}, "minItems": 1024, "maxItems": 1024}}, "required": ["a", "b"]}`, "", false},
	{"variants-8000", dumpVariants(8000), "", false},
	{"enum-10000x1000", dumpEnum(10000, 1000), "", false},
	{"long-string", `{"type": "object", "properties": {"a": {"type": "string", "minLength": 1500, "maxLength": 2600}}, "required": ["a"]}`, dumpLongStrings("a", 1499, 1500, 2000, 2600, 2601), false},
	{"repeated-groups", `{"type": "object", "properties": {"a": {"type": "string", "pattern": "^((ab){0,40}c){0,60}$"}, "b": {"type": "string", "pattern": "^(x(a|b){0,100}){0,30}$"}}, "required": ["a", "b"]}`,
		`{"a": "ababc", "b": "xab"} {"a": "", "b": ""} {"a": "abab", "b": "x"} {"a": "c", "b": "xaxbx"}`, false},
	{"key-automaton", `{"type": "object", "properties": {"id": {"type": "string"}, "ix": {"type": "integer"}}, "patternProperties": {"^i": {"minimum": 0}, "x$": {"type": "integer"}, "\\d": {"type": "number"}, "^[a-z]{1,6}\\.(json|yaml)$": {"type": "boolean"}}, "additionalProperties": {"type": "string"}}`, "", true},
	{"length-automaton", `{"type": "object", "properties": {"host": {"type": "string", "pattern": "^[a-z]([a-z0-9-]*[a-z0-9])?(\\.[a-z]([a-z0-9-]*[a-z0-9])?)*$", "maxLength": 63}, "mail": {"type": "string", "format": "ipv4", "minLength": 9}, "code": {"type": "string", "pattern": "[0-9]", "minLength": 4, "maxLength": 8}}, "required": ["host", "mail", "code"], "additionalProperties": false}`, "", true},
	{"not-strings", `{"type": "object", "properties": {"user": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 12, "not": {"enum": ["root", "admin"]}}, "path": {"not": {"pattern": "\\.\\."}}, "tag": {"type": "string", "not": {"pattern": "^-"}}}, "required": ["user", "path", "tag"], "additionalProperties": false}`, "", true},
	{"enum-variants", `{"type": "object", "properties": {"tag": {"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]}, "code": {"type": "string", "oneOf": [{"enum": ["", "x"]}, {"pattern": "^.$"}]}}, "required": ["tag", "code"], "additionalProperties": false}`, `{"tag": "a", "code": ""} {"tag": "b", "code": ""} {"tag": "c", "code": "y"} {"tag": "c", "code": "x"} {"tag": "a", "code": "yy"} {"tag": "d", "code": "y"}`, true},
	{"if-rest", `{"type": "object", "properties": {"kind": {"type": ["string", "integer"]}, "x": {}, "n": {"type": "integer"}}, "allOf": [{"if": {"properties": {"kind": {"const": "flat"}}}, "then": {"required": ["x"]}}, {"if": {"properties": {"kind": {"enum": ["noise", 3]}}}, "else": {"properties": {"n": false}}}]}`, `{"kind": "flat", "x": 1} {"kind": "flat"} {"kind": "noise", "n": 1} {"kind": "other", "n": 1} {"kind": "other"} {"kind": 4} {"kind": 3} {"kind": 3, "n": 1} {"kind": 4, "n": 1} {"x": 1} {} {"kind": "flatx"} {"kind": "fla"} {"kind": null}`, true},
	{"format-prefix", `{"type": "object", "properties": {"home": {"type": "string", "format": "uri", "pattern": "^https?://"}, "id": {"type": "string", "format": "uuid", "pattern": "^0"}, "mail": {"type": "string", "format": "uri", "pattern": "^mailto:"}, "from": {"type": "string", "format": "email", "pattern": "^[a-z]+@"}}, "required": ["home", "id"], "additionalProperties": false}`, `{"home": "https://example.com/a?b=c", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789abc", "mail": "mailto:a@b.c", "from": "ann@example.com"} {"home": "https://x", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789abc", "mail": "mail:a@b.c"} {"home": "https://x", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789abc", "from": "Ann@example.com"} {"home": "https://example.com/a?b=c", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789abc"} {"home": "ftp://example.com", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789abc"} {"home": "https://", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789abc"} {"home": "http://[::1]:80/", "id": "1a8f6e6c-1b2d-4c3e-8f90-123456789abc"} {"home": "https://a b", "id": "0"} {"home": "https://x", "id": "0a8f6e6c-1b2d-4c3e-8f90-123456789ab"}`, true},
	{"lookahead", `{"type": "object", "properties": {"pkg": {"type": "string", "pattern": "^(?!org\\.bukkit\\.)([a-z_$][a-z\\d_$]*\\.)*[a-z_$][a-z\\d_$]*$"}, "pw": {"type": "string", "pattern": "^(?=.*[0-9])(?=.*[a-z])[a-z0-9]{4,8}$"}, "any": {"type": "string", "pattern": "^(?![ \\t]*\\(default)[\\s\\S]*", "not": {"pattern": "^x"}}}, "required": ["pkg", "pw", "any"], "additionalProperties": false}`, `{"pkg": "com.example.plugin", "pw": "abc1", "any": "b"} {"pkg": "org.bukkit.plugin", "pw": "abc1", "any": "b"} {"pkg": "org.bukkitx.a", "pw": "abcd", "any": "b"} {"pkg": "a", "pw": "1234", "any": ""} {"pkg": "a", "pw": "a1b2c3d4", "any": " (default)"} {"pkg": "a", "pw": "a1b2", "any": "xy"} {"pkg": "a", "pw": "a1b2", "any": "(defaul"}`, true},
	{"lookahead-anywhere", `{"type": "object", "properties": {"dur": {"type": "string", "pattern": "^P(?:(\\d+W)|(?!.*W)(?=\\d|T\\d)(\\d+Y)?(\\d+M)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+([.,]\\d+)?S)?)?)$"}, "scope": {"type": "string", "pattern": "^@([\\da-z](?:(?!.*--)[\\da-z-]*[\\da-z])?)/([\\da-z](?:(?!.*--)[\\da-z-]*[\\da-z])?)$"}, "file": {"type": "string", "pattern": "^(https?://|/?.?-?(?!\\w+://)\\w).+\\.ya?ml$"}, "mode": {"type": "string", "pattern": "^((?!mode)(?!Mode).)*$"}}, "required": ["dur", "scope", "file"], "additionalProperties": false}`, `{"dur": "P1Y2M3DT4H5M6.5S", "scope": "@a-b/c", "file": "https://x/a.yml"} {"dur": "P2W", "scope": "@a/b", "file": "/ab.yaml"} {"dur": "P1W2D", "scope": "@a/b", "file": "/ab.yaml"} {"dur": "PT", "scope": "@a/b", "file": "ab.yaml"} {"dur": "P1D", "scope": "@a--b/c", "file": "ab.yaml"} {"dur": "P1D", "scope": "@a/b-", "file": "ab.yaml"} {"dur": "P1D", "scope": "@a/b", "file": "-ftp://x.yml"} {"dur": "PT1M", "scope": "@a/b", "file": "x:ab.yml"} {"dur": "P1D", "scope": "@a/b", "file": "ab.yaml", "mode": "a Mod e"} {"dur": "P1D", "scope": "@a/b", "file": "ab.yaml", "mode": "a mode"} {"dur": "P1D", "scope": "@a/b", "file": "ab.yaml", "mode": "Modem"}`, true},
	{"closed-variants", `{"type": "object", "properties": {"edit": {"oneOf": [{"type": "object", "properties": {"set": {"type": "object"}, "delete": {"type": "array", "items": {"type": "string"}}}, "additionalProperties": false}, {"type": "object", "properties": {"replace": {"type": "object"}}, "additionalProperties": false}, {"type": "object", "properties": {"op": {"enum": ["clear"]}}, "required": ["op"], "additionalProperties": false}]}}, "required": ["edit"], "additionalProperties": false}`, `{"edit": {"set": {}}} {"edit": {"delete": ["a"], "set": {}}} {"edit": {"set": {}, "delete": ["a"]}} {"edit": {"replace": {}}} {"edit": {"op": "clear"}} {"edit": {}} {"edit": {"set": {}, "replace": {}}} {"edit": {"op": "clear", "set": {}}} {"edit": 1}`, true},
	{"typed-variants", `{"type": "object", "properties": {"auth": {"type": "object", "oneOf": [{"properties": {"login": {"type": "string"}, "realm": {"type": ["string", "null"]}}, "required": ["login"]}, {"properties": {"password": {"type": "string"}, "realm": {"type": "number"}}, "required": ["password"]}, {"properties": {"token": {"type": "string"}, "login": false}, "required": ["token"]}]}}, "required": ["auth"], "additionalProperties": false}`, `{"auth": {"login": "a"}} {"auth": {"password": "p"}} {"auth": {"token": "t"}} {"auth": {"login": "a", "password": "p"}} {"auth": {"login": "a", "password": 1}} {"auth": {"login": "a", "realm": null, "password": "p"}} {"auth": {"password": "p", "realm": 2, "login": "a"}} {"auth": {"login": "a", "realm": 2, "password": "p"}} {"auth": {"password": "p", "realm": "r"}} {"auth": {"login": "a", "token": "t"}} {"auth": {"token": "t", "password": "p"}} {"auth": {"token": "t", "password": true}} {"auth": {}}`, true},
	{"not-numbers", `{"type": "object", "properties": {"port": {"type": "integer", "minimum": 1024, "maximum": 65535, "not": {"enum": [6379, 6380, 43215]}}, "ratio": {"type": "number", "minimum": 0, "maximum": 1, "not": {"enum": [0, 0.5]}}}, "required": ["port", "ratio"], "additionalProperties": false}`, `{"port": 6378, "ratio": 0.25} {"port": 6379, "ratio": 0.25} {"port": 8080, "ratio": 0.5} {"port": 8080, "ratio": 0.50} {"port": 43216, "ratio": 1} {"port": 43215, "ratio": 0.0} {"port": 65535, "ratio": 0.49999}`, false},
	{"not-required", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}}, "required": ["c"], "not": {"required": ["a", "b"]}}`, "", true},
	{"oneof-required", `{"type": "object", "properties": {"radius": {"type": "number"}, "length": {"type": "number"}, "width": {"type": "number"}, "base": {"type": "number"}, "height": {"type": "number"}}, "oneOf": [{"required": ["radius"]}, {"required": ["length", "width"]}, {"required": ["base", "height"]}]}`, `{"radius": 1} {"length": 1, "width": 2} {"radius": 1, "length": 2, "width": 3} {"base": 1, "height": 2, "radius": 3} {"radius": 1, "base": 2}`, true},
	{"oneof-literals", `{"type": "object", "properties": {"a": {"oneOf": [{"const": "exists"}, {"const": "invalid"}]}, "b": {"oneOf": [{"type": "string", "pattern": "^[0-9 x]+$"}, {"enum": ["any"]}]}}, "required": ["a", "b"], "additionalProperties": false}`, "", true},
	{"several-patterns", `{"type": "object", "properties": {"a": {"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "b$"}, {"pattern": "[0-9]"}], "maxLength": 12}, "ip": {"type": "string", "pattern": "^10\\.", "format": "ipv4"}}, "required": ["a", "ip"], "additionalProperties": false}`, "", true},
	{"string-variants", `{"type": "object", "properties": {"role": {"oneOf": [{"pattern": "customer"}, {"pattern": "maker"}, {"pattern": "admin"}]}, "id": {"type": "string", "oneOf": [{"pattern": "^[0-9a-f]{8}$"}, {"pattern": "^[0-9A-F]{8}$"}]}, "host": {"oneOf": [{"type": "string", "pattern": "^[a-z0-9.-]+$"}, {"type": "string", "format": "ipv4"}]}}, "required": ["role", "id", "host"], "additionalProperties": false}`, `{"role": "admin", "id": "0123abcd", "host": "example.com"} {"role": "customer admin", "id": "0123abcd", "host": "example.com"} {"role": "maker", "id": "01234567", "host": "example.com"} {"role": "maker", "id": "ABCDEF01", "host": "1.2.3.4"} {"role": "maker", "id": "ABCDEF01", "host": "1.2.3.x"}`, true},
	{"counted-members", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}}, "additionalProperties": {"type": "integer"}, "minProperties": 2, "maxProperties": 3}`, `{"a": 1} {"a": 1, "b": "x"} {"x": 1, "y": 2} {"a": 1, "b": "x", "c": true} {"a": 1, "b": "x", "c": true, "x": 1} {}`, true},
	{"counted-members-heavy", dumpCounted(30), "", true},
	{"bounded-multiples", `{"type": "object", "properties": {"a": {"type": "number", "multipleOf": 11, "minimum": 100}, "b": {"type": "integer", "minimum": -2032, "maximum": 2031, "multipleOf": 16}, "c": {"multipleOf": 8, "minimum": -100000, "maximum": 100000}}, "required": ["a", "b", "c"], "additionalProperties": false}`, `{"a": 110, "b": -2032, "c": 64} {"a": 99, "b": 0, "c": 0} {"a": 121, "b": 17, "c": 0} {"a": 1100, "b": 2016, "c": -99992} {"a": 110, "b": 0, "c": 100008}`, true},
	{"not-required-sets", `{"type": "object", "properties": {"cmd": {"type": "string"}, "args": {"type": "array", "items": {"type": "string"}}, "a": {"type": "integer"}, "b": {}, "c": {}}, "not": {"allOf": [{"required": ["cmd"]}, {"required": ["args"]}]}, "allOf": [{"not": {"anyOf": [{"required": ["a"]}, {"required": ["b", "c"]}]}}]}`, `{} {"cmd": "x"} {"cmd": "x", "args": []} {"a": 1} {"b": 1} {"b": 1, "c": 2} {"args": ["y"], "c": 3}`, true},
	{"if-cases", `{"type": "object", "properties": {"type": {"enum": ["a", "b", "c"]}, "x": {"type": "integer"}, "y": {"type": "string"}}, "allOf": [{"if": {"properties": {"type": {"const": "a"}}}, "then": {"required": ["x"]}}, {"if": {"properties": {"type": {"const": "b"}}, "required": ["type"]}, "then": {"required": ["y"]}, "else": {"properties": {"y": false}}}, {"if": {"properties": {"type": {"const": "c"}}}, "then": {"properties": {"x": false}}}]}`, `{"x": 1} {"type": "a", "x": 1} {"type": "a"} {"type": "b", "y": "s"} {"type": "b"} {"type": "c"} {"type": "c", "x": 1} {"x": 1, "y": "s"}`, true},
	{"checked-literals", `{"type": "object", "properties": {"role": {"enum": ["root", "admin", "user", "guest"], "not": {"pattern": "^(root|admin)$"}}, "tags": {"enum": [["a", "b"], ["a", "a"], []], "uniqueItems": true}, "n": {"enum": [1, 2, 3], "oneOf": [{"minimum": 2}, {"maximum": 2}]}}, "required": ["role", "tags", "n"], "additionalProperties": false}`, `{"role": "user", "tags": [], "n": 1} {"role": "root", "tags": [], "n": 1} {"role": "guest", "tags": ["a", "b"], "n": 3} {"role": "user", "tags": ["a", "a"], "n": 1} {"role": "user", "tags": [], "n": 2}`, true},
	{"unique-listed", `{"type": "object", "properties": {"tags": {"type": "array", "items": {"enum": ["a", "b", "c", "d", "e", "f", "g"]}, "uniqueItems": true, "minItems": 1}, "n": {"type": "array", "items": {"enum": [1, 1.0, 2]}, "uniqueItems": true}}, "required": ["tags"], "additionalProperties": false}`,
		`{"tags": ["a"]} {"tags": ["a", "a"]} {"tags": ["g", "f", "e", "d", "c", "b", "a"]} {"tags": []} {"tags": ["a", "b", "a"]} {"tags": ["b"], "n": [1, 2]} {"tags": ["b"], "n": [1, 1.0]} {"tags": ["b"], "n": [2, 1.0]}`, true},
	{"arn-length", `{"type": "object", "properties": {"arn": {"type": "string", "pattern": "^([a-z0-9-]+):([a-z0-9\\.-]+):([a-z0-9-]+)?:([a-z0-9-]+)$", "maxLength": 146}}, "required": ["arn"], "additionalProperties": false}`,
		`{"arn": "aws:s3::bucket"} {"arn": "aws:s3.x:eu-1:b"} {"arn": "aws:s3:b"} {"arn": "a:b::` + strings.Repeat("c", 141) + `"} {"arn": "a:b::` + strings.Repeat("c", 142) + `"} {"arn": "A:b::c"}`, true},
	{"shared-key-tries", `{"type": "object", "properties": {"o0": {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind0": {"type": "string"}, "status": {"type": "integer"}}}, "o1": {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind1": {"type": "string"}, "status": {"type": "integer"}}}}}`,
		`{"o0": {"kind0": "x", "kind1": "y"}} {"o0": {"kind0": "x", "kind0": "y"}} {"o1": {"apiVersion": "v", "apiVersio": "s"}} {"o1": {"status": 1, "apiVersion": "v"}} {"o1": {"kind1": "k", "kind0": "j", "statu": 2, "statuss": 3}} {"o0": {"status": 1, "status": 2}}`, true},
	{"discriminator-cases", `{"type": "object", "properties": {"shape": {"enum": ["circle", "rectangle", "square"]}, "radius": {"type": "number"}, "length": {"type": "number"}, "width": {"type": "number"}, "side": {"type": "number"}}, "oneOf": [{"properties": {"shape": {"const": "circle"}}, "required": ["radius"]}, {"properties": {"shape": {"const": "rectangle"}}, "required": ["length", "width"]}, {"properties": {"shape": {"const": "square"}}, "required": ["side"]}]}`,
		`{"shape": "circle", "radius": 1} {"radius": 1} {} {"radius": 1, "length": 2, "width": 3} {"shape": "circle", "radius": 1, "length": 2, "width": 3} {"shape": "square", "radius": 1} {"length": 2, "width": 3} {"side": 1, "radius": 2} {"shape": "rectangle", "length": 2}`, true},
	{"not-required-cases", `{"type": "object", "properties": {"radius": {"type": "number"}, "length": {"type": "number"}, "width": {"type": "number"}, "base": {"type": "number"}, "height": {"type": "number"}}, "oneOf": [{"required": ["radius"], "not": {"required": ["length", "width", "base", "height"]}}, {"required": ["length", "width"], "not": {"required": ["radius", "base", "height"]}}, {"required": ["base", "height"], "not": {"required": ["length", "width", "radius"]}}]}`,
		`{"radius": 1} {"length": 1, "width": 2} {"base": 1, "height": 2} {"radius": 1, "length": 2, "width": 3} {"radius": 1, "length": 2} {} {"length": 1, "width": 2, "base": 3, "height": 4} {"radius": 1, "base": 2, "height": 3, "length": 4}`, true},
	{"mid-string", `{"type": "object", "properties": {"a": {"type": "string", "minLength": 70, "maxLength": 300}, "b": {"type": "string", "maxLength": 65}}, "required": ["a"]}`, dumpLongStrings("a", 69, 70, 71, 134, 135, 299, 300, 301), false},
	// Decimal multiples with and without bounds (gap decision 220).
	{"decimal-multiples", `{"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0.01}, "b": {"type": "number", "multipleOf": 0.1, "exclusiveMinimum": -2.5, "maximum": 99999999999.99}, "c": {"type": "number", "multipleOf": 0.25}}, "required": ["a", "b"]}`,
		`{"a": 1.5, "b": 0} {"a": 1.505, "b": 0} {"a": -0.07, "b": -2.4} {"a": 0, "b": -2.5} {"a": 19.990, "b": 99999999999.9} {"a": 1e2, "b": 1} {"a": -0.0, "b": 0.10} {"a": 3, "b": 100000000000} {"a": 1, "b": 1, "c": -0.75} {"a": 1, "b": 1, "c": 0.3} {"a": 1, "b": 1, "c": 12.500} {"a": 1, "b": 1, "c": 0.125}`, false},
	// Under strict, fractions of a few remainders (gap decision 220).
	{"decimal-remainders", `{"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0.25}, "b": {"type": "number", "multipleOf": 1.5, "minimum": -3, "maximum": 100}}, "required": ["a", "b"]}`,
		`{"a": 0.25, "b": 1.5} {"a": 0.5, "b": -3} {"a": -7.750, "b": 99} {"a": 0.3, "b": 0} {"a": 1, "b": -4.5} {"a": 2.125, "b": 3} {"a": 0, "b": 100.5} {"a": 12.00, "b": 4.50}`, true},
	{"longest-string", `{"type": "object", "properties": {"a": {"type": "string", "maxLength": 1048576}}, "required": ["a"]}`, dumpLongStrings("a", 0, 1, 5000), false},
}

// dumpCounted is an object of n optional properties and as many others,
// of which it takes exactly n: the most rules countedChain writes.
func dumpCounted(n int) string {
	return strings.TrimSuffix(dumpProperties(n, `{"type": "integer"}`), "}") + fmt.Sprintf(`, "additionalProperties": {"type": "integer"}, "minProperties": %d, "maxProperties": %d}`, n, n)
}

// dumpLongStrings is objects whose member name is a string of each length.
func dumpLongStrings(name string, lengths ...int) string {
	var objs []string
	for _, n := range lengths {
		objs = append(objs, `{"`+name+`":"`+strings.Repeat("x", n)+`"}`)
	}
	return strings.Join(objs, " ")
}

// dumpToolAttacks are tools' parameters compiled under a required tool
// choice, their texts drawn from the grammar.
var dumpToolAttacks = []dumpAttack{
	{"workflow-script", `{"type": "object", "properties": {"script": {"type": "string", "maxLength": 524288}, "name": {"type": "string"}}, "additionalProperties": false}`, "", false},
	{"raw-string-max", `{"type": "object", "properties": {"a": {"type": "string", "minLength": 1, "maxLength": ` + itoa(MaxLength) + `}}, "required": ["a"], "additionalProperties": false}`, "", true},
	{"raw-strings-100x1024", dumpProperties(100, `{"type": "string", "maxLength": 1024}`), "", false},
	// Minimums counted with the raw text's automaton (gap decision 315),
	// the greatest that is, shared by 100 arguments, and the smallest.
	{"raw-strings-min", `{"type": "object", "properties": {"a": {"type": "string", "minLength": 1}, "b": ` + dumpProperties(100, `{"type": "string", "minLength": 7}`) + `}, "required": ["a", "b"], "additionalProperties": false}`, "", true},
}

var dumpFamilies = []dumpFamily{
	{"ladder", 30, func(n int) string { return dumpLadder(n, true) }, false},
	{"properties", 8000, func(n int) string { return dumpProperties(n, `{"type": "integer"}`) }, false},
	{"booleans", 8000, func(n int) string { return dumpProperties(n, `{"type": "boolean"}`) }, false},
	{"strings-1024", 1000, func(n int) string { return dumpProperties(n, `{"type": "string", "maxLength": 1024}`) }, false},
	{"int64s", 1000, func(n int) string { return dumpProperties(n, int64Bounds) }, false},
	{"variants", 8000, dumpVariants, false},
	{"enum-100", 10000, func(n int) string { return dumpEnum(n, 100) }, false},
	// Under strict a long list is written or refused, never reported:
	// the literals that cost an engine most for their elements (gap
	// decision 235).
	{"enum-24-strict", 40000, func(n int) string { return dumpEnum(n, 24) }, true},
	{"optional-objects", 8000, func(n int) string {
		return dumpProperties(n, `{"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}}}`)
	}, false},
	{"nullable-integers", 8000, func(n int) string { return dumpProperties(n, `{"type": ["integer", "null"]}`) }, false},
	{"anyOf-scalars", 8000, func(n int) string {
		return dumpProperties(n, `{"anyOf": [{"type": "boolean"}, {"type": "null"}, {"type": "integer", "minimum": 0, "maximum": 99}]}`)
	}, false},
	{"long-strings", 1000, func(n int) string {
		return dumpObject(n, func(i int) string { return fmt.Sprintf(`"p%d": {"type": "string", "maxLength": %d}`, i, 65536+i) })
	}, false},
	{"string-lengths", 1000, func(n int) string {
		return dumpObject(n, func(i int) string {
			return fmt.Sprintf(`"p%d": {"type": "string", "minLength": %d, "maxLength": %d}`, i, i%7, 65+i)
		})
	}, false},
	{"open-object-tries", 4000, func(n int) string {
		// Under strict, n open objects, each keeping other keys from its
		// names: a trie each, their common names and tails one rule
		// (keyExcept, gap decision 214), the rest their own.
		return dumpObject(n, func(i int) string {
			return fmt.Sprintf(`"o%d": {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind%d": {"type": "string"}, "spec-%d-template": {"type": "integer"}, "status": {"type": "integer"}}}`, i, i, i)
		})
	}, true},
	// Under strict, a required name of n characters: a key trie of a
	// rule per character, up to maxTrieNodes (gap decision 219).
	{"long-required-name", maxTrieNodes, func(n int) string {
		return `{"type": "object", "required": ["` + strings.Repeat("k", n) + `"]}`
	}, true},
	// n names beside n patterns, and an allOf of n objects (gap
	// decision 218).
	{"patterns-beside-properties", 4000, func(n int) string {
		var props, patterns []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"p%d": {"type": "integer"}`, i))
			patterns = append(patterns, fmt.Sprintf(`"^p%d$": {"minimum": %d}`, i, i))
		}
		return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "patternProperties": {` + strings.Join(patterns, ", ") + `}}`
	}, false},
	{"allOf-objects", 4000, func(n int) string {
		var members []string
		for i := range n {
			members = append(members, fmt.Sprintf(`{"type": "object", "properties": {"k%d": {"type": "integer"}}, "required": ["k%d"]}`, i, i))
		}
		return `{"allOf": [` + strings.Join(members, ", ") + `]}`
	}, false},
	{"strings-64", 8000, func(n int) string { return dumpProperties(n, `{"type": "string", "minLength": 1, "maxLength": 64}`) }, false},
	{"bounded-arrays", 8000, func(n int) string {
		return dumpProperties(n, `{"type": "array", "items": {"type": "boolean"}, "maxItems": 8}`)
	}, false},
	{"required-booleans", 8000, func(n int) string {
		schema := dumpProperties(n, `{"type": "boolean"}`)
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf(`"p%d"`, i)
		}
		return strings.TrimSuffix(schema, "}") + `, "required": [` + strings.Join(names, ", ") + `]}`
	}, false},
	{"pattern-keys", 2000, func(n int) string {
		return dumpProperties(n, `{"type": "object", "properties": {"id": {"type": "string"}}, "patternProperties": {"^x-[a-z]{0,8}$": {"type": "integer"}, "^(y|z)": {"type": "string"}}, "additionalProperties": {"type": "boolean"}}`)
	}, true},
	{"oneof-required-cases", 2000, func(n int) string {
		// 16 cases a oneOf, maxExclusiveCases: 4 for each one-name
		// variant (a name of each two-name variant left out), 2 for each
		// two-name one.
		return dumpProperties(n, `{"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}, {"required": ["g"]}, {"required": ["c", "d"]}, {"required": ["e", "f"]}]}`)
	}, true},
	{"string-variants-heavy", 2000, func(n int) string {
		return dumpProperties(n, `{"oneOf": [{"type": "string", "format": "uuid"}, {"type": "string", "pattern": "^[a-z0-9.-]+$"}, {"type": "string", "format": "date"}]}`)
	}, true},
	{"if-cases-heavy", 2000, func(n int) string {
		// maxIfCases-1 conditions on one property (the most ifCases
		// writes), in n properties
		var conds, vals []string
		for i := range maxIfCases - 1 {
			vals = append(vals, fmt.Sprintf(`"v%d"`, i))
			conds = append(conds, fmt.Sprintf(`{"if": {"properties": {"k": {"const": "v%d"}}}, "then": {"required": ["p%d"]}, "else": {"properties": {"p%d": false}}}`, i, i, i))
		}
		return dumpProperties(n, `{"type": "object", "properties": {"k": {"enum": [`+strings.Join(vals, ", ")+`]}}, "required": ["k"], "allOf": [`+strings.Join(conds, ", ")+`]}`)
	}, true},
	{"nested-objects", 200, func(n int) string {
		return strings.Repeat(`{"type": "object", "properties": {"x": {"type": "boolean"}, "o": `, n) + `{"type": "integer"}` + strings.Repeat(`}}`, n)
	}, false},
	{"nested-arrays", 200, func(n int) string {
		return strings.Repeat(`{"type": "array", "items": `, n) + `{"type": "integer"}` + strings.Repeat(`}`, n)
	}, false},
}

// dumpNumbers are the numbers bounded_test.go tries on numeric bounds.
const dumpNumbers = "0 -1 1 5 -5 0.5 1.1 -0.1 0.15 0.2 0.3 2.5 1000 -1000 9223372036854775807 9223372036854775808 -9223372036854775808 -9223372036854775809 18446744073709551615 18446744073709551616 100000000000000000000000 100000000000000000000001 1000000000000000000000001 123456789012345678901234567890 0.123456789012345678901234 0.12345678901234567890123 -0.123456789012345678901234 -0.12345678901234567890123"

// caseContents is every writing of every instance of sc (suiteContents:
// also in the schema's declared order when that differs), leaving out
// instances over maxBytes of JSON (0: none).
func caseContents(t *testing.T, file string, sc suiteCase, maxBytes int) []string {
	var contents []string
	rank := declaredOrder(sc.Schema)
	for _, in := range sc.Tests {
		if maxBytes > 0 && len(in.Data) > maxBytes {
			continue
		}
		cs, ordered, err := suiteContents(in.Data, rank)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		contents = append(append(contents, cs...), ordered...)
	}
	return contents
}

func TestDumpGrammarsForLlama(t *testing.T) {
	dir := *dumpGrammars
	if dir == "" {
		t.Skip("writes grammars for templates/llamacpp/grammar.sh only with -dump-grammars DIR")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var expected, grammars strings.Builder
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	texts := 0
	dumped := map[string]bool{} // the grammars written
	// dump writes g and its texts (the samples drawn from g added).
	dump := func(name string, g *Grammar, schema json.RawMessage, contents []string, seed uint64) {
		write(name+".gbnf", g.GBNF())
		write(name+".ebnf", g.EBNF())
		// The response format's schema too, for the engines' own
		// converters (templates/xgrammar/grammar.sh).
		if schema != nil {
			write(name+".schema.json", string(schema))
		}
		dumped[g.GBNF()] = true
		fmt.Fprintln(&grammars, name+".gbnf")
		all := make([]string, 0, len(contents)+3)
		for _, c := range contents {
			all = append(all, suiteText(c))
		}
		s := newSampler(g, rand.New(rand.NewPCG(seed, 33)))
		for range 3 {
			all = append(all, s.Sample())
		}
		for i, text := range all {
			file := fmt.Sprintf("%s.%d.txt", name, i)
			write(file, text)
			verdict := "fail"
			if g.Matches(text) {
				verdict = "ok"
			}
			fmt.Fprintf(&expected, "%s.gbnf %s %s\n", name, file, verdict)
			texts++
		}
	}
	ctx := context.Background()
	suite, refused := 0, 0
	strict := 0
	for _, f := range append(loadSuite(t), loadSuiteOptional(t)...) {
		for i, sc := range f.cases {
			contents := caseContents(t, f.name, sc, 0)
			name := fmt.Sprintf("%s-%02d", f.name, i)
			if g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: sc.Schema}})); err == nil {
				dump(name, g, sc.Schema, contents, uint64(suite))
				suite++
			} else {
				refused++
			}
			// The strict grammar too when it compiles and differs (open
			// objects, for one).
			if g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: sc.Schema, Strict: true}})); err == nil && !dumped[g.GBNF()] {
				dump(name+"-strict", g, sc.Schema, contents, uint64(suite))
				strict++
			}
		}
	}
	attacks := 0
	for i, f := range dumpFamilies {
		// The largest n that compiles, by bisection: compiling is
		// monotone in n for these families.
		lo, hi := 0, f.max+1 // schema(lo) compiles or lo is 0; schema(hi) doesn't or hi is past max
		var best *Grammar
		var bestSchema json.RawMessage
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			schema := json.RawMessage(f.schema(mid))
			if g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: schema, Strict: f.strict}})); err == nil {
				lo, best, bestSchema = mid, g, schema
			} else {
				hi = mid
			}
		}
		if best == nil {
			t.Logf("attack family %s: nothing compiles", f.name)
			continue
		}
		t.Logf("attack family %s: the largest that compiles has n = %d (of at most %d)", f.name, lo, f.max)
		dump(fmt.Sprintf("attack-%s-%d", f.name, lo), best, bestSchema, nil, uint64(100+i))
		attacks++
	}
	for i, a := range dumpAttacks {
		schema := json.RawMessage(a.schema)
		g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: schema, Strict: a.strict}}))
		if err != nil {
			t.Logf("attack %s refused: %.200v", a.name, err)
			continue
		}
		dump("attack-"+a.name, g, schema, jsonValues(t, a.instances), uint64(i))
		attacks++
	}
	// Tools whose arguments are the worst the walk lets through (gap
	// decision 309): long raw strings, whose chunks are classes.
	for i, a := range dumpToolAttacks {
		g, err := Compile(ctx, dumpSpec(&Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(a.schema), Strict: a.strict}}, Choice: Required}))
		if err != nil {
			t.Logf("tool attack %s refused: %.200v", a.name, err)
			continue
		}
		dump("attack-tool-"+a.name, g, nil, nil, uint64(150+i))
		attacks++
	}
	// The schema zod 4 writes through openai's zodResponseFormat, strict
	// (TestZodSchemas): patterns beside formats, custom formats.
	zod := 0
	if schema, err := os.ReadFile("testdata/zod/contact.json"); err != nil {
		t.Fatal(err)
	} else if g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: schema, Strict: true}})); err != nil {
		t.Fatalf("zod contact: %v", err)
	} else {
		good, bad := zodContacts()
		dump("zod-contact-strict", g, schema, append([]string{good}, bad...), 300)
		zod++
	}
	// The schemas of TestImpossibleParts that compile: parts that match
	// nothing beside parts that do.
	impossible := 0
	for i, c := range impossibleCases {
		if c.err != "" {
			continue
		}
		schema := json.RawMessage(c.schema)
		g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: schema}}))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dump(fmt.Sprintf("impossible-%02d", i), g, schema, append(slices.Clone(c.yes), c.no...), uint64(200+i))
		impossible++
	}
	// The oneOf schemas of TestOneOfVariantTypes (decision 289) and
	// TestStringVariantsRefsAndTypes (294), strict, with their listed
	// values.
	variants := 0
	for i, c := range slices.Concat(variantTypeCases, stringVariantRefCases) {
		schema := json.RawMessage(c.schema)
		g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: schema, Strict: true}}))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dump(fmt.Sprintf("oneof-types-%02d", i), g, schema, append(slices.Clone(c.in), c.out...), uint64(250+i))
		variants++
	}
	// With -jsonschemabench DIR, MaskBench's schemas too, with their
	// instances up to maxCheckedInstance bytes.
	bench := 0
	if *benchDir != "" {
		for i, f := range loadBench(t, *benchDir) {
			sc := f.cases[0]
			contents := caseContents(t, f.name, sc, maxCheckedInstance)
			// A file name without the characters a shell or awk would
			// split on.
			name := "maskbench-" + strings.Map(func(r rune) rune {
				if r == ' ' || r == '\t' || r == '/' {
					return '_'
				}
				return r
			}, f.name)
			g, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: sc.Schema}}))
			if err == nil {
				dump(name, g, sc.Schema, contents, uint64(300+i))
				bench++
			}
			if gs, err := Compile(ctx, dumpSpec(&Spec{Format: &Format{Schema: sc.Schema, Strict: true}})); err == nil && (g == nil || gs.GBNF() != g.GBNF()) {
				dump(name+"-strict", gs, sc.Schema, contents, uint64(300+i))
				bench++
			}
			// As a tool's parameters (the XML arguments), with texts
			// drawn from the grammar only.
			gt, err := Compile(ctx, dumpSpec(&Spec{Tools: []Tool{{Name: "f", Parameters: sc.Schema}}, Choice: Required}))
			if err == nil {
				dump(name+"-tool", gt, nil, nil, uint64(300+i))
				bench++
			}
			// Strict too, where it differs (a oneOf of the parameters
			// is followed under strict only: decisions 307 and 310).
			if gs, err := Compile(ctx, dumpSpec(&Spec{Tools: []Tool{{Name: "f", Parameters: sc.Schema, Strict: true}}, Choice: Required})); err == nil && (gt == nil || gs.GBNF() != gt.GBNF()) {
				dump(name+"-tool-strict", gs, nil, nil, uint64(300+i))
				bench++
			}
		}
	}
	write("expected.txt", expected.String())
	write("grammars.txt", grammars.String())
	t.Logf("wrote %d suite grammars (%d schemas refused), %d strict ones that differ, %d attack grammars, %d with impossible parts, %d of zod, %d of oneOf types, %d of MaskBench and %d texts into %s", suite, refused, strict, attacks, impossible, zod, variants, bench, texts, dir)
}
