package metrics

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of the times in /proc/self/stat: Linux reports them in
// USER_HZ ticks, 100 a second on every architecture Go supports.
const userHZ = 100

// addProcess registers the process families from /proc, unless it cannot
// be read.
func (r *Registry) addProcess() {
	if _, err := procStat(); err != nil {
		return
	}
	stat := func(field int, scale float64) func() float64 {
		return func() float64 {
			f, err := procStat()
			if err != nil {
				return math.NaN()
			}
			v, _ := strconv.ParseFloat(f[field], 64)
			return v * scale
		}
	}
	r.CounterFunc("process_cpu_seconds_total", "CPU time the process used, user and system, in seconds.", func() float64 {
		f, err := procStat()
		if err != nil {
			return math.NaN()
		}
		user, _ := strconv.ParseFloat(f[statUtime], 64)
		sys, _ := strconv.ParseFloat(f[statStime], 64)
		return (user + sys) / userHZ
	})
	r.GaugeFunc("process_resident_memory_bytes", "Resident set size of the process, in bytes.", stat(statRSS, float64(os.Getpagesize())))
	r.GaugeFunc("process_virtual_memory_bytes", "Virtual memory size of the process, in bytes.", stat(statVsize, 1))
	r.GaugeFunc("process_start_time_seconds", "When the process started, in seconds since 1970.", func() float64 {
		f, err := procStat()
		if err != nil {
			return math.NaN()
		}
		ticks, _ := strconv.ParseFloat(f[statStarttime], 64)
		return bootTime() + ticks/userHZ
	})
	r.GaugeFunc("process_open_fds", "File descriptors the process has open.", func() float64 {
		d, err := os.Open("/proc/self/fd")
		if err != nil {
			return math.NaN()
		}
		defer d.Close()
		names, err := d.Readdirnames(-1)
		if err != nil {
			return math.NaN()
		}
		return float64(len(names))
	})
	r.GaugeFunc("process_max_fds", "The process's limit of open file descriptors (soft).", func() float64 { return limit("Max open files") })
	r.GaugeFunc("process_virtual_memory_max_bytes", "The process's limit of virtual memory, in bytes (soft).", func() float64 { return limit("Max address space") })
}

// Fields of /proc/self/stat, counted from the one after the command's
// closing parenthesis (the state, field 3 in proc(5)).
const (
	statUtime     = 14 - 3
	statStime     = 15 - 3
	statStarttime = 22 - 3
	statVsize     = 23 - 3
	statRSS       = 24 - 3
)

// procStat returns the fields of /proc/self/stat after the command name,
// which may hold spaces and parentheses.
func procStat() ([]string, error) {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, os.ErrInvalid
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) <= statRSS {
		return nil, os.ErrInvalid
	}
	return f, nil
}

// bootTime returns when the system booted, in seconds since 1970 (btime
// in /proc/stat).
func bootTime() float64 {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return math.NaN()
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			t, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return t
			}
		}
	}
	return math.NaN()
}

// limit returns the soft limit named in /proc/self/limits, with
// "unlimited" as the largest uint64.
func limit(name string) float64 {
	data, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return math.NaN()
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, name)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		if f[0] == "unlimited" {
			return math.MaxUint64
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err == nil {
			return float64(v)
		}
	}
	return math.NaN()
}
