// Command standin-tokenizer writes a stand-in for Beam's tokenizer, so that
// the token features (render --tokenizer, tokenize, dataset --tokenizer,
// serve --tokenizer) can be tried without the checkpoint:
//
//	go run ./cmd/standin-tokenizer DIR
//
// DIR gets tokenizer.json and tokenizer_config.json: OpenAI's o200k_base
// vocabulary converted as Transformers converts tiktoken files, with Beam's
// seven markers added after it as marker tokens (<|return|> the only
// special one). It is a stand-in, and says so: tokenizer_config.json
// carries "beamharmony_stand_in", and DIR/STAND-IN.txt says what it is. For
// anything real, use the tokenizer.json of the checkpoint you serve or
// train: that is the one whose ids the model knows.
//
// It is a command of its own, not part of beamharmony, so that the
// beamharmony binary does not carry o200k's ranks.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/beamharmony/harmony/internal/tokgen"
)

// standInKey marks a stand-in's tokenizer_config.json.
const standInKey = "beamharmony_stand_in"

const notice = `This directory holds a STAND-IN for Beam's tokenizer, written by
"go run ./cmd/standin-tokenizer": OpenAI's o200k_base vocabulary with Beam's
seven markers added after it. It lets you try the token features of
beamharmony without the checkpoint. It is not the checkpoint's tokenizer:
for serving or training, use the tokenizer.json that ships with the model.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: go run ./cmd/standin-tokenizer DIR\n\nwrites a stand-in for Beam's tokenizer (o200k_base with Beam's markers) into DIR")
		if len(args) == 1 {
			return 0
		}
		return 2
	}
	dir := args[0]
	if err := write(dir); err != nil {
		fmt.Fprintf(stderr, "standin-tokenizer: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "wrote a stand-in tokenizer to %s (o200k_base with Beam's markers; use the checkpoint's own tokenizer.json for anything real)\n", dir)
	return 0
}

// write writes the stand-in into dir, refusing to replace a tokenizer
// that is not a stand-in.
func write(dir string) error {
	if data, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json")); err == nil {
		var cfg map[string]any
		if json.Unmarshal(data, &cfg) != nil || cfg[standInKey] == nil {
			return fmt.Errorf("%s already holds a tokenizer that is not a stand-in; choose another directory", dir)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tj, cj, err := tokgen.Beam()
	if err != nil {
		return err
	}
	var cfg map[string]any
	if err := json.Unmarshal(cj, &cfg); err != nil {
		return err
	}
	cfg[standInKey] = "o200k_base with Beam's markers, written by go run ./cmd/standin-tokenizer; not the checkpoint's tokenizer"
	cj, err = json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := tokgen.WriteDir(dir, tj, cj); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "STAND-IN.txt"), []byte(notice), 0o644)
}
