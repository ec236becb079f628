module github.com/beamharmony/harmony/conformance

go 1.26.0

require (
	github.com/beamharmony/harmony v0.0.0
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/tiktoken-go/tokenizer v0.10.0
)

require (
	github.com/dlclark/regexp2/v2 v2.13.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

// The module is developed beside the main module, in the same repository.
replace github.com/beamharmony/harmony => ../
