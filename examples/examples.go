// Package examples holds the repository's example requests (the render
// command's JSON, one file each), embedded so that the console offers them
// and its tests render each one; examples/render.sh renders them through
// the CLI. A file named *_error.json is one of the page's error cases: its
// expected output is the page's error message.
package examples

import "embed"

// FS holds the example requests, *.json at its root.
//
//go:embed *.json
var FS embed.FS
