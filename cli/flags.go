package cli

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"time"
)

// The flag values below check their range when they are set, so that an
// out-of-range value is a flag error (exit code 2, one line on stderr),
// whether it comes from the command line or the environment, instead of
// being replaced by a default.

// durationValue is a time.Duration that must be positive, or not
// negative when zero is allowed.
type durationValue struct {
	d         *time.Duration
	allowZero bool
}

func durationFlag(fs *flag.FlagSet, name string, def time.Duration, allowZero bool, usage string) *time.Duration {
	d := def
	fs.Var(durationValue{&d, allowZero}, name, usage)
	return &d
}

func (v durationValue) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return errors.New("not a duration such as 30s, 10m or 1h")
	case d < 0 || d == 0 && !v.allowZero:
		if v.allowZero {
			return errors.New("must not be negative")
		}
		return errors.New("must be positive")
	}
	*v.d = d
	return nil
}

// positiveValue is an integer from 1 to max.
type positiveValue struct {
	n   *int64
	max int64
}

func positiveFlag(fs *flag.FlagSet, name string, def, max int64, usage string) *int64 {
	n := def
	fs.Var(positiveValue{&n, max}, name, usage)
	return &n
}

func (v positiveValue) String() string {
	if v.n == nil {
		return ""
	}
	return strconv.FormatInt(*v.n, 10)
}

func (v positiveValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange), err == nil && n > v.max:
		return errors.New("larger than " + strconv.FormatInt(v.max, 10))
	case err != nil:
		return errors.New("not an integer")
	case n < 1:
		return errors.New("must be positive")
	}
	*v.n = n
	return nil
}

// cpusValue is a positiveValue whose unset value, 0, means one per CPU:
// its default reads the same on every machine, in --help and docs/cli.md.
type cpusValue struct{ positiveValue }

func (v cpusValue) String() string {
	if v.n != nil && *v.n == 0 {
		return "the number of CPUs"
	}
	return v.positiveValue.String()
}

// checkedValue is a string that check accepts.
type checkedValue struct {
	s     *string
	check func(string) error
}

func checkedFlag(fs *flag.FlagSet, name, def string, check func(string) error, usage string) *string {
	s := def
	fs.Var(checkedValue{&s, check}, name, usage)
	return &s
}

func (v checkedValue) String() string {
	if v.s == nil {
		return ""
	}
	return *v.s
}

func (v checkedValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.s = s
	return nil
}

// listValue is a repeatable string flag. Values from the environment are
// replaced, not added to, by the first value on the command line, so that
// a flag given on the command line wins as for the other flags.
type listValue struct {
	vals    *[]string
	fromEnv bool
}

func listFlag(fs *flag.FlagSet, name, usage string) *listValue {
	v := &listValue{vals: new([]string)}
	fs.Var(v, name, usage)
	return v
}

func (v *listValue) String() string {
	if v == nil || v.vals == nil {
		return ""
	}
	return strings.Join(*v.vals, ",")
}

func (v *listValue) Set(s string) error {
	if v.fromEnv {
		*v.vals, v.fromEnv = nil, false
	}
	*v.vals = append(*v.vals, s)
	return nil
}
