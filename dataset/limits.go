package dataset

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RejectLimit is how many rejects a run may have and still succeed: a
// count, or a percentage of the rows read. The zero value is the default,
// 1%. A run whose rejects pass it, or that wrote no row of those it read,
// fails (Stats.Failed), unless the limit is 100%, which never fails. The
// convention is BigQuery's max_bad_records (a count the rejects may reach
// but not pass) with a percentage as well; 100% is Spark's PERMISSIVE
// mode, --strict its FAILFAST.
type RejectLimit struct {
	set     bool
	percent bool
	value   float64 // a count, or a percentage in [0, 100]
}

// defaultRejectLimit is the limit of a run that sets none, the zero
// RejectLimit: 1%.
var defaultRejectLimit = RejectLimit{set: true, percent: true, value: 1}

// ParseRejectLimit reads a limit: a count ("0", "250") or a percentage
// ("1%", "0.5%", "100%").
func ParseRejectLimit(s string) (RejectLimit, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return RejectLimit{}, fmt.Errorf("%q: want a count (such as 0 or 250) or a percentage from 0%% to 100%% (such as 1%%)", s)
		}
		return RejectLimit{set: true, percent: true, value: v}, nil
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return RejectLimit{}, fmt.Errorf("%q: want a count (such as 0 or 250) or a percentage from 0%% to 100%% (such as 1%%)", s)
	}
	return RejectLimit{set: true, value: float64(n)}, nil
}

func (l RejectLimit) orDefault() RejectLimit {
	if !l.set {
		return defaultRejectLimit
	}
	return l
}

// String writes the limit as ParseRejectLimit reads it.
func (l RejectLimit) String() string {
	l = l.orDefault()
	if l.percent {
		return strconv.FormatFloat(l.value, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(l.value, 'f', -1, 64)
}

// never reports whether the limit can never fail a run (100%).
func (l RejectLimit) never() bool { return l.percent && l.value >= 100 }

// passed reports whether rejected rows of read pass the limit.
func (l RejectLimit) passed(rejected, read int64) bool {
	if l.percent {
		return float64(rejected)*100 > l.value*float64(read)
	}
	return float64(rejected) > l.value
}

// decide sets Failed and Outcome from the counts and the limit.
func (s *Stats) decide(l RejectLimit) {
	l = l.orDefault()
	s.MaxRejects = l.String()
	s.Failed, s.Outcome = false, "ok"
	switch {
	case s.RowsRead > 0 && s.RowsWritten == 0:
		// Whatever the limit: an empty output is never a success.
		s.Failed = true
		s.Outcome = fmt.Sprintf("failed: none of the %d rows read was written", s.RowsRead)
	case l.never():
	case l.passed(s.RowsRejected, s.RowsRead):
		s.Failed = true
		s.Outcome = fmt.Sprintf("failed: %d of %d rows rejected (%s), more than --max-rejects %s",
			s.RowsRejected, s.RowsRead, percent(s.RowsRejected, s.RowsRead), l)
	}
}

func percent(n, of int64) string {
	if of == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'g', 3, 64) + "%"
}
