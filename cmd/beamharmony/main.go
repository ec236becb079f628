// Command beamharmony renders, lints and parses Beam Harmony text, serves
// Beam behind an OpenAI-compatible API, and checks chat templates against
// the Go renderer.
//
//	beamharmony render [--spans] [--strict] [FILE]
//	beamharmony lint [--strict] [FILE]
//	beamharmony parse [--stream] [--chunk-size N|random:SEED] [--prefix-file F] [--tools-file F] [FILE]
//	beamharmony serve --backend URL [--listen ADDR] [--model NAME] ...
//	beamharmony template
//	beamharmony verify [--template FILE] [REQUEST.json|DIR ...]
//	beamharmony tokenize --tokenizer PATH [--ordinary] [FILE]
//	beamharmony detokenize --tokenizer PATH [--skip-special] [FILE]
//	beamharmony version
//
// Run "beamharmony help COMMAND" (or "beamharmony COMMAND --help") for the
// details of each command, and "beamharmony --version" for the version.
package main

import (
	"os"

	"github.com/beamharmony/harmony/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
