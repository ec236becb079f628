//go:build !linux

package metrics

// addProcess registers nothing: the process families are read from Linux's
// /proc.
func (r *Registry) addProcess() {}
