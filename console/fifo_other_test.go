//go:build !unix

package console_test

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
