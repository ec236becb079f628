package harmony

import (
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// DefaultEffort is the reasoning effort used when none is set: max.
const DefaultEffort = 512

// MinTrainedEffort is the smallest effort Beam was trained with; smaller
// values render but are not respected (page: Reasoning effort).
const MinTrainedEffort = 8

// effortLabels maps the page's labels to integers.
var effortLabels = [...]struct {
	label, value string
}{
	{"minimal", "8"}, {"low", "32"}, {"medium", "64"}, {"high", "128"}, {"xhigh", "256"}, {"max", "512"},
}

// ReasoningEffort is the template's reasoning_effort argument: unset (the
// zero value, meaning 512), an integer, or a label. It keeps what the caller
// gave, so that Render can report an invalid value with the page's error.
type ReasoningEffort struct {
	kind  effortKind
	label string // label text, or an integer's decimal literal
}

type effortKind uint8

const (
	effortUnset effortKind = iota
	effortInt
	effortLabel
	effortInvalid // a JSON value of another type: boolean, float, object...
)

// Effort returns an integer reasoning effort.
func Effort(n int) ReasoningEffort {
	return ReasoningEffort{kind: effortInt, label: strconv.Itoa(n)}
}

// EffortLabel returns a labelled reasoning effort. Labels other than
// minimal, low, medium, high, xhigh and max are reported by Render.
func EffortLabel(label string) ReasoningEffort {
	return ReasoningEffort{kind: effortLabel, label: label}
}

// IsSet reports whether an effort was given.
func (e ReasoningEffort) IsSet() bool { return e.kind != effortUnset }

// String returns the effort as given: the label, the integer, or "" when unset.
func (e ReasoningEffort) String() string { return e.label }

// Value returns the integer effort the prompt will carry, as decimal text
// (integers of any size render as given), or the page's error.
func (e ReasoningEffort) Value() (string, error) {
	switch e.kind {
	case effortUnset:
		return "512", nil // DefaultEffort
	case effortInt:
		if e.label[0] == '-' {
			if e.label == "-0" {
				return "0", nil
			}
			return "", errAt("reasoning_effort", e.label+" is negative; pass an integer of at least "+
				strconv.Itoa(MinTrainedEffort)+" or one of the labels")
		}
		return e.label, nil
	case effortLabel:
		for _, l := range effortLabels {
			if l.label == e.label {
				return l.value, nil
			}
		}
	}
	return "", errInvalidEffort()
}

// UnmarshalJSON reads a JSON integer, a string, or null. Other JSON values
// are kept as invalid, so that Render reports them with the page's error.
func (e *ReasoningEffort) UnmarshalJSON(data []byte) error {
	d, err := pyjson.ParseBytes(data)
	if err != nil {
		return errJSON("", err)
	}
	*e = effortFromJSON(d, 0)
	return nil
}

// MarshalJSON writes the effort as given: a number, a string, or null.
func (e ReasoningEffort) MarshalJSON() ([]byte, error) {
	switch e.kind {
	case effortInt:
		return []byte(e.label), nil
	case effortLabel, effortInvalid:
		return pyjson.AppendQuoted(nil, e.label), nil
	}
	return []byte("null"), nil
}

func effortFromJSON(d *pyjson.Doc, v int) ReasoningEffort {
	switch d.Kind(v) {
	case pyjson.Null:
		return ReasoningEffort{}
	case pyjson.String:
		return ReasoningEffort{kind: effortLabel, label: d.Str(v)}
	case pyjson.Number:
		if raw := string(d.Raw(v)); pyjson.IsIntegerLiteral(raw) {
			return ReasoningEffort{kind: effortInt, label: raw}
		}
	}
	return ReasoningEffort{kind: effortInvalid, label: string(d.Raw(v))}
}
