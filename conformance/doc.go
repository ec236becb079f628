// Package conformance is the root of the conformance module: the tests
// that check this repository against independent implementations and
// real clients, kept apart so that the main module's go.mod carries none
// of their dependencies (the OpenAI and Anthropic SDKs, tiktoken-go, a
// JSON Schema validator, a browser driver, parquet-go). It holds no code of its own;
// each directory is a package of tests:
//
//   - tiktoken: Beam's tokenizer against tiktoken-go's o200k_base, and the
//     repository's copy of the vocabulary against the one tiktoken-go's
//     loader distributes.
//   - console: the web console's page in a real browser (Chromium, driven
//     by chromedp).
//   - parquetgo: the dataset package's own Parquet reader and writer
//     against parquet-go, which reads what it writes and writes what it
//     reads (and writes the small Parquet files the main module's tests
//     read).
//   - gateway: the gateway through its HTTP API with the official OpenAI
//     and Anthropic Go SDKs (Chat Completions, Responses, Messages: tool
//     loops, streams, signatures, keys, TLS and CORS) and a browser (the
//     console's inspector), in front of a scripted engine.
//
// Run them with go test ./... in this directory (.ci/run does).
package conformance
