package split

import (
	"os"
	"strings"
	"testing"
)

// mixedText is CJK, Hangul, emoji and some Latin, written for this benchmark.
const mixedText = "今日は天気がいいので、公園を散歩しました。🌸🌸 桜が満開でとてもきれいでした！\n" +
	"我们明天去北京开会，请准备好所有的文件和报告。👍 会议时间是上午九点。\n" +
	"안녕하세요! 오늘 회의는 오후 세 시에 시작합니다. 😀🎉 준비해 주세요.\n" +
	"The model said «你好» and then 👨‍👩‍👧 wrote 123 tokens… ✨ Ünïcödé tèxt.\n" +
	"東京タワーの高さは３３３メートルです。🗼 スカイツリーは６３４メートル。\n"

// benchTexts returns the benchmark texts, each about 256 KiB: English prose
// (the format page), Go source (the renderer) and the mixed text.
func benchTexts(b *testing.B) []struct{ name, text string } {
	b.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	grow := func(s string) string { return strings.Repeat(s, 1+(256<<10)/len(s))[:256<<10] }
	return []struct{ name, text string }{
		{"prose", grow(read("../../testdata/spec/beam-harmony-format.txt"))},
		{"gocode", grow(read("../../render.go"))},
		{"cjk-emoji", grow(mixedText)},
	}
}

// BenchmarkSplit finds every match of each known pattern in each text, with
// the hand-written scanner and with regexp2, side by side. Besides MB/s (wall
// time) it reports cpu-MB/s: the bytes per second of CPU time the process
// used, which a busy machine does not distort.
func BenchmarkSplit(b *testing.B) {
	for _, text := range benchTexts(b) {
		for _, k := range known {
			for _, engine := range []struct {
				name string
				m    Matcher
			}{
				{"scanner", scanners[k.pattern]},
				{"regexp2", reference(b, k.pattern)},
			} {
				b.Run(text.name+"/"+k.name+"/"+engine.name, func(b *testing.B) {
					s := text.text
					b.SetBytes(int64(len(s)))
					b.ReportAllocs()
					cpu := cpuSeconds()
					for b.Loop() {
						n := 0
						for pos := 0; pos < len(s); n++ {
							start, end := engine.m.Find(s, pos)
							if start < 0 {
								break
							}
							pos = end
						}
						if n == 0 {
							b.Fatal("no match")
						}
					}
					// On a shared machine wall time includes waiting for a
					// core; CPU time does not.
					if used := cpuSeconds() - cpu; used > 0 && cpu > 0 {
						b.ReportMetric(float64(len(s))*float64(b.N)/used/1e6, "cpu-MB/s")
					}
				})
			}
		}
	}
}
