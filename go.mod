module github.com/beamharmony/harmony

go 1.26.0

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/dlclark/regexp2/v2 v2.13.3
	github.com/klauspost/compress v1.20.5
	github.com/pierrec/lz4/v4 v4.1.34
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/net v0.63.0
	golang.org/x/text v0.44.0
)
