package tokgen

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/beamharmony/harmony"
)

// BenchTexts returns the tokenizer benchmarks' inputs, read from the
// repository whose root is root: English prose (the README), Go code (the
// renderer's sources), the realistic prompt (the rendered
// testdata/bench/realistic_request.json) and a multilingual text (32 KiB).
func BenchTexts(root string) (map[string]string, error) {
	read := func(paths ...string) (string, error) {
		var sb strings.Builder
		for _, p := range paths {
			data, err := os.ReadFile(filepath.Join(root, p))
			if err != nil {
				return "", err
			}
			sb.Write(data)
		}
		return sb.String(), nil
	}
	readme, err := read("README.md")
	if err != nil {
		return nil, err
	}
	var prose []string
	for _, para := range strings.Split(readme, "\n\n") {
		// Paragraphs of prose: no tables, code blocks or headings.
		if p := strings.TrimSpace(para); p != "" && !strings.ContainsAny(p[:1], "|`#-<") && !strings.Contains(p, "```") {
			prose = append(prose, p)
		}
	}
	request, err := read("testdata/bench/realistic_request.json")
	if err != nil {
		return nil, err
	}
	req, err := harmony.ParseRequest([]byte(request))
	if err != nil {
		return nil, err
	}
	prompt, err := req.Render()
	if err != nil {
		return nil, err
	}
	code, err := read("render.go", "parse.go", "typescript.go")
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"prose":        strings.Join(prose, "\n\n"),
		"code":         code,
		"prompt":       prompt,
		"multilingual": strings.Repeat(multilingual, 1+(32<<10)/len(multilingual)),
	}, nil
}

// multilingual is a text of Japanese, Chinese, Korean, Russian, Arabic,
// accented Latin, numbers and emoji, written for the benchmarks.
const multilingual = "東京の天気は晴れ、気温は２３度です。午後から雨が降るかもしれません。\n" +
	"我们下周三在上海开会，请提前准备好报告和数据。会议大约持续两个小时。\n" +
	"서울의 날씨는 맑고 기온은 23도입니다. 내일은 비가 올 예정입니다.\n" +
	"Погода в Москве сегодня солнечная, около 23 градусов. Завтра обещают дождь.\n" +
	"الطقس في القاهرة مشمس اليوم ودرجة الحرارة ٣٢ درجة.\n" +
	"Le café était très bon, mais l'addition (12,50 €) était élevée. Über 40 % der Gäste waren zufrieden! 😀👍🏽\n"
