package split_test

import (
	"fmt"

	"github.com/beamharmony/harmony/internal/split"
)

func ExampleRegex() {
	m, err := split.Regex(split.PatternO200K)
	if err != nil {
		panic(err)
	}
	text := "HelloWorld's CAPS'LL don't\n\n/x"
	for start, end := range split.All(m, text) {
		fmt.Printf("%q\n", text[start:end])
	}
	// Output:
	// "Hello"
	// "World's"
	// " CAPS'LL"
	// " don't"
	// "\n\n"
	// "/x"
}

func ExampleRegex_refused() {
	_, err := split.Regex(`\bword\b`)
	fmt.Println(err)
	// Output:
	// split pattern "\\bword\\b" at byte 0: word boundary \b
}

func ExampleSplits() {
	text := "How are you?"
	split.Splits(split.Literal(" "), text, func(start, end int, isMatch bool) bool {
		fmt.Printf("%q %v\n", text[start:end], isMatch)
		return true
	})
	// Output:
	// "How" false
	// " " true
	// "are" false
	// " " true
	// "you?" false
}
