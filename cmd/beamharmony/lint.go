package main

import (
	"errors"
	"io"
)

func runLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return fail(stderr, "lint", errors.New("not implemented yet"))
}
