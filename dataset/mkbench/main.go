// Command mkbench writes a JSONL training set of about SIZE bytes to
// stdout for the dataset benchmarks: the realistic request of
// testdata/bench (102 messages, 28.9 KB) alternating with the generated
// corpus's requests, one per line.
//
//	go run ./dataset/mkbench -size 1e9 > /tmp/train-1g.jsonl
//
// With -tokenizer-dir DIR it also writes Beam's tokenizer (the o200k
// vocabulary with Beam's markers, made by internal/tokgen) to DIR, for the
// token benchmarks: beamharmony dataset --tokenizer DIR ...
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/beamharmony/harmony/dataset/benchdata"
	"github.com/beamharmony/harmony/internal/tokgen"
)

func main() {
	size := flag.Float64("size", 1e9, "bytes to write (about)")
	realistic := flag.String("realistic", "testdata/bench/realistic_request.json", "the realistic request")
	tokDir := flag.String("tokenizer-dir", "", "also write Beam's tokenizer to this directory")
	flag.Parse()
	if *tokDir != "" {
		tj, cj, err := tokgen.Beam()
		if err == nil {
			err = tokgen.WriteDir(*tokDir, tj, cj)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkbench:", err)
			os.Exit(1)
		}
	}
	lines, err := benchdata.Lines(*realistic)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkbench:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var n int64
	for i := 0; n < int64(*size); i++ {
		l := lines[i%len(lines)]
		w.Write(l)
		w.WriteByte('\n')
		n += int64(len(l)) + 1
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "mkbench:", err)
		os.Exit(1)
	}
}
