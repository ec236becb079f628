package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Stats are a run's counts. RowsRead always equals RowsWritten plus
// RowsRejected.
type Stats struct {
	// Rows is the number of rows read (RowsRead, under the name the
	// summary uses).
	Rows         int64 `json:"rows"`
	RowsRead     int64 `json:"rows_read"`
	RowsWritten  int64 `json:"rows_written"`
	RowsRejected int64 `json:"rows_rejected"`
	// RejectsByError counts rejects by error, digits replaced by N.
	RejectsByError map[string]int64 `json:"rejects_by_error"`
	// RowsTruncated counts rows cut to --max-tokens.
	RowsTruncated int64 `json:"rows_truncated"`
	// RowsWithoutReasoning counts the rows (among those that decode) with
	// assistant turns without reasoning, TurnsWithoutReasoning those
	// turns: rejected by default, rendered as empty analysis messages with
	// AllowMissingThinking, which says which.
	RowsWithoutReasoning  int64 `json:"rows_without_reasoning"`
	TurnsWithoutReasoning int64 `json:"turns_without_reasoning"`
	AllowMissingThinking  bool  `json:"allow_missing_thinking"`
	// UnknownKeys counts the rows (among those that decode) holding each
	// kind of key the renderer does not read, named by its path with
	// positions written [] and lint's word on it ("messages[].weight:
	// unknown key, not rendered; remove it"): a misspelt key, or one the
	// format has no place for, that changed nothing in the rows written.
	// At most maxUnknownKinds kinds are named; the rows holding others
	// are counted once each under otherUnknownKeys. The summary names
	// the summaryUnknownKinds most common.
	UnknownKeys map[string]int64 `json:"unknown_keys"`
	// Tokens and TrainedTokens count ids and ids with a mask of 1 (token
	// output); Characters and TrainedCharacters count the text and its
	// assistant spans (text output).
	Tokens            int64 `json:"tokens"`
	TrainedTokens     int64 `json:"trained_tokens"`
	Characters        int64 `json:"characters"`
	TrainedCharacters int64 `json:"trained_characters"`
	// TrainedFraction is TrainedTokens/Tokens, or with text output
	// TrainedCharacters/Characters.
	TrainedFraction float64 `json:"trained_fraction"`
	// InputBytes is the size on disk of the input read.
	InputBytes    int64   `json:"input_bytes"`
	Seconds       float64 `json:"seconds"`
	MBPerSecond   float64 `json:"mb_per_s"`
	RowsPerSecond float64 `json:"rows_per_s"`
	Inputs        int     `json:"inputs"`
	Units         int     `json:"units"`
	Output        string  `json:"output"`
	Rejects       string  `json:"rejects"`
	Manifest      string  `json:"manifest"`
	// Skipped says that the output was up to date and nothing ran.
	Skipped  bool     `json:"skipped"`
	Warnings []string `json:"warnings"`
	// Error is the error that stopped a failed run, and no output was
	// written.
	Error string `json:"error,omitempty"`
	// RejectsNotWritten counts the rejects past --max-rejects-bytes:
	// counted, not in the rejects file.
	RejectsNotWritten int64 `json:"rejects_not_written"`
	// MaxRejects is the limit the run was held to; Failed says that the
	// run completed but failed it (or wrote no row), and Outcome says why
	// ("ok" otherwise).
	MaxRejects string `json:"max_rejects"`
	Failed     bool   `json:"failed"`
	Outcome    string `json:"outcome"`
}

func (s *Stats) finish(d time.Duration, tokens bool) {
	s.Rows = s.RowsRead
	s.Seconds = d.Seconds()
	if s.Seconds > 0 {
		s.MBPerSecond = float64(s.InputBytes) / 1e6 / s.Seconds
		s.RowsPerSecond = float64(s.RowsRead) / s.Seconds
	}
	switch {
	case tokens && s.Tokens > 0:
		s.TrainedFraction = float64(s.TrainedTokens) / float64(s.Tokens)
	case !tokens && s.Characters > 0:
		s.TrainedFraction = float64(s.TrainedCharacters) / float64(s.Characters)
	}
}

// maxUnknownKinds caps the kinds of unknown keys Stats names, so that a
// dataset whose rows each hold a key of their own takes no more memory
// for them than a few.
const maxUnknownKinds = 100

// otherUnknownKeys is the UnknownKeys entry counting the rows holding
// kinds past maxUnknownKinds (each such row once).
const otherUnknownKeys = "(other unknown keys, not named)"

// countUnknown counts the kinds of unknown keys of rows, each row's kinds
// followed by "" (batchResult.unknown): a row for each of its kinds
// named, and once under otherUnknownKeys when it holds others.
func (s *Stats) countUnknown(kinds []string) {
	other := false
	for _, k := range kinds {
		if k == "" {
			if other {
				s.UnknownKeys[otherUnknownKeys]++
			}
			other = false
			continue
		}
		if _, ok := s.UnknownKeys[k]; !ok && len(s.UnknownKeys) >= maxUnknownKinds {
			other = true
			continue
		}
		s.UnknownKeys[k]++
	}
}

// encode returns the statistics as written to --stats.
func (s *Stats) encode() []byte {
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	if s.UnknownKeys == nil {
		s.UnknownKeys = map[string]int64{}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err) // plain strings and numbers
	}
	return append(data, '\n')
}

// WriteSummary writes the run's summary for a person, a few lines.
func (s *Stats) WriteSummary(w io.Writer, tokens bool) {
	fmt.Fprintf(w, "%d rows read: %d written, %d rejected", s.RowsRead, s.RowsWritten, s.RowsRejected)
	if s.RowsTruncated > 0 {
		fmt.Fprintf(w, ", %d truncated", s.RowsTruncated)
	}
	fmt.Fprintln(w)
	writeCounts(w, s.RejectsByError, len(s.RejectsByError))
	if s.TurnsWithoutReasoning > 0 {
		fmt.Fprintf(w, "%d assistant turns without reasoning in %d rows: ", s.TurnsWithoutReasoning, s.RowsWithoutReasoning)
		if s.AllowMissingThinking {
			fmt.Fprintln(w, "rendered as empty analysis messages (--allow-missing-thinking)")
		} else {
			fmt.Fprintln(w, "rows rejected (--allow-missing-thinking renders them as the template does)")
		}
	}
	if len(s.UnknownKeys) > 0 {
		fmt.Fprintln(w, "keys the renderer does not read (nothing of them is in the rows written), by rows holding each:")
		if n := writeCounts(w, s.UnknownKeys, summaryUnknownKinds); n > 0 {
			fmt.Fprintf(w, "  and %d more kinds (--stats lists them)\n", n)
		}
	}
	if tokens {
		fmt.Fprintf(w, "%d tokens, %.1f%% trained\n", s.Tokens, 100*s.TrainedFraction)
	} else {
		fmt.Fprintf(w, "%d characters, %.1f%% trained\n", s.Characters, 100*s.TrainedFraction)
	}
	fmt.Fprintf(w, "%.2f s, %.1f MB/s, %.0f rows/s\n", s.Seconds, s.MBPerSecond, s.RowsPerSecond)
	if s.RowsRejected > 0 && s.Rejects == "" {
		fmt.Fprintln(w, "rejects: not written (the output is stdout; --rejects FILE writes them)")
	} else if s.RowsRejected > 0 {
		fmt.Fprintf(w, "rejects: %s", s.Rejects)
		if s.RejectsNotWritten > 0 {
			fmt.Fprintf(w, " (%d not written: the file reached --max-rejects-bytes)", s.RejectsNotWritten)
		}
		fmt.Fprintln(w)
	}
}

// summaryUnknownKinds is how many kinds of unknown keys the summary
// names, the most common; --stats and the manifest hold them all.
const summaryUnknownKinds = 10

// writeCounts writes the first max of counts one per line, the largest
// first (then by name), as the summary lists rejects and unknown keys,
// and returns how many it left out.
func writeCounts(w io.Writer, counts map[string]int64, max int) int {
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int {
		if d := counts[b] - counts[a]; d != 0 {
			return int(d)
		}
		return strings.Compare(a, b)
	})
	for _, k := range keys[:min(max, len(keys))] {
		fmt.Fprintf(w, "  %6d  %s\n", counts[k], k)
	}
	return len(keys) - min(max, len(keys))
}
