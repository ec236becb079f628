// Package ollama measures Beam's stream parser side by side with Ollama's
// streaming output parsers (github.com/ollama/ollama/harmony and
// model/parsers), in one process, on the same work: a reasoning followed
// by a tool call whose string argument is 64 KiB of code, and a reasoning
// followed by an answer, each in the model's own format and fed in 4-byte
// chunks, as tokens arrive from an engine. It is a module of its own so
// that the harmony module does not depend on Ollama.
//
// Run it from this directory:
//
//	go test -run '^$' -bench . -benchmem
//
// bench/run runs it and bench/report compares Beam with the fastest
// Ollama parser of each case.
package ollama
