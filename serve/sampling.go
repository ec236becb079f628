package serve

import (
	"encoding/json"
	"math"
	"strconv"
)

// Sampling parameters are checked before they reach the engine: a value
// that is not a finite number in the parameter's range is a 400 naming the
// field, on every API. JSON has no NaN or Infinity, but a literal such as
// 1e400 overflows a float64; such values are refused rather than forwarded
// as written. What goes to the engine is the number's shortest decimal
// form.

// numRange is the valid values of a sampling parameter: from min to max,
// min excluded when minOpen; integers only when integer.
type numRange struct {
	min, max float64
	minOpen  bool
	integer  bool
	// text describes the range in errors.
	text string
}

// The ranges of the sampling parameters: the OpenAI APIs' documented
// ranges, and the engines' (vLLM, SGLang) where the APIs leave one open.
var (
	temperatureRange       = numRange{min: 0, max: 2, text: "a number from 0 to 2"}
	temperatureRangeClaude = numRange{min: 0, max: 1, text: "a number from 0 to 1"}
	topPRange              = numRange{min: 0, max: 1, minOpen: true, text: "a number above 0 and at most 1"}
	penaltyRange           = numRange{min: -2, max: 2, text: "a number from -2 to 2"}
	topKRange              = numRange{min: -1, max: math.MaxInt32, integer: true, text: "an integer from -1 (no limit) to 2147483647"}
	minPRange              = numRange{min: 0, max: 1, text: "a number from 0 to 1"}
	repetitionPenaltyRange = numRange{min: 0, max: math.MaxFloat64, minOpen: true, text: "a finite number above 0"}
)

// samplingBody holds the sampling parameters of a request body; the
// three APIs' bodies embed it, and each API reads the parameters of its
// list (chatSampling, messagesSampling, responsesSampling), ignoring the
// others as before.
type samplingBody struct {
	Temperature       json.RawMessage `json:"temperature"`
	TopP              json.RawMessage `json:"top_p"`
	PresencePenalty   json.RawMessage `json:"presence_penalty"`
	FrequencyPenalty  json.RawMessage `json:"frequency_penalty"`
	TopK              json.RawMessage `json:"top_k"`
	MinP              json.RawMessage `json:"min_p"`
	RepetitionPenalty json.RawMessage `json:"repetition_penalty"`
}

// samplingParam is a sampling parameter an API takes and its range.
type samplingParam struct {
	name string
	rg   numRange
}

// The sampling parameters of each API, in the order they are checked.
var (
	chatSampling = []samplingParam{
		{"temperature", temperatureRange}, {"top_p", topPRange},
		{"presence_penalty", penaltyRange}, {"frequency_penalty", penaltyRange},
		{"top_k", topKRange}, {"min_p", minPRange}, {"repetition_penalty", repetitionPenaltyRange},
	}
	messagesSampling  = []samplingParam{{"temperature", temperatureRangeClaude}, {"top_p", topPRange}, {"top_k", topKRange}}
	responsesSampling = []samplingParam{{"temperature", temperatureRange}, {"top_p", topPRange}}
)

// decodeSampling checks the parameters of params in b and keeps the
// values to forward in r; the first bad one is a 400 naming it.
func (r *request) decodeSampling(b *samplingBody, params []samplingParam) *apiError {
	for _, p := range params {
		var raw json.RawMessage
		var dst *json.RawMessage
		switch p.name {
		case "temperature":
			raw, dst = b.Temperature, &r.temperature
		case "top_p":
			raw, dst = b.TopP, &r.topP
		case "presence_penalty":
			raw, dst = b.PresencePenalty, &r.presencePenalty
		case "frequency_penalty":
			raw, dst = b.FrequencyPenalty, &r.frequencyPenalty
		case "top_k":
			raw, dst = b.TopK, &r.topK
		case "min_p":
			raw, dst = b.MinP, &r.minP
		case "repetition_penalty":
			raw, dst = b.RepetitionPenalty, &r.repetitionPenalty
		default:
			panic("serve: unknown sampling parameter " + p.name)
		}
		v, err := rawSampling(raw, p.name, p.rg)
		if err != nil {
			return err
		}
		*dst = v
	}
	return nil
}

// rawSampling checks a sampling parameter (absent or null: not set) and
// returns the value to forward.
func rawSampling(raw json.RawMessage, param string, rg numRange) (json.RawMessage, *apiError) {
	if isNull(raw) {
		return nil, nil
	}
	if kindOf(raw) != "a number" {
		return nil, paramError(param, "invalid_type", "must be "+rg.text+", got "+kindOf(raw))
	}
	bad := func() (json.RawMessage, *apiError) {
		return nil, paramError(param, "invalid_value", "must be "+rg.text+", got "+string(truncate(raw, 40)))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err != nil, math.IsInf(f, 0), math.IsNaN(f):
		return bad()
	case f < rg.min, f > rg.max, rg.minOpen && f == rg.min:
		return bad()
	case rg.integer:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return bad()
		}
		return strconv.AppendInt(nil, n, 10), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}
