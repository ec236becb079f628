package grammar
import ("context";"testing";"os";"encoding/json";"strings")
func TestZZOne(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("ZZS"), "\n") {
	for _, strict := range []bool{false, true} {
		g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(s), Strict: strict}})
		t.Logf("%s strict=%v err=%v dropped=%v", s, strict, err, func() any { if g != nil { return g.Dropped }; return nil }())
		if g != nil && os.Getenv("ZZT") != "" { t.Log(g.text[strings.Index(g.text, "reasoning-1st"):]) }
	}
	}
}
