package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// The standalone console (beamharmony console --dataset FILE) may also
// preview dataset files on its own machine: only those its operator named
// when starting it, which the page opens by their index, never by a path
// of its own. The gateway's console has none: a remote client never reads
// the gateway's files.

// openCall is the open call's body: which of Config.LocalFiles.
type openCall struct {
	File int `json:"file"`
}

func (h *Handler) open(w http.ResponseWriter, r *http.Request) {
	var c openCall
	if !readJSON(w, r, h.cfg.MaxBodyBytes, &c) {
		return
	}
	if c.File < 0 || c.File >= len(h.cfg.LocalFiles) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no local file %d: this console opens the files named with beamharmony console --dataset (%d)", c.File, len(h.cfg.LocalFiles)))
		return
	}
	data, err := ReadLocalFile(h.cfg.LocalFiles[c.File], h.cfg.MaxUploadBytes)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.Timeout)
	defer cancel()
	rep, err := h.Preview(ctx, data)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, filepath.Base(h.cfg.LocalFiles[c.File])+": "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// ReadLocalFile reads the dataset file at path for the preview: a regular
// file (a FIFO or device is refused before it is opened, so that nothing
// waits on a writer) of at most limit bytes.
func ReadLocalFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkLocal(path, st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file opened is the one checked, not one put in its place since.
	st2, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(st, st2) {
		return nil, fmt.Errorf("%s: the file changed while it was opened; open it again", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, errTooLargeFile(path, limit)
	}
	return data, nil
}

// CheckLocalFile checks, without opening it, that the file at path is one
// ReadLocalFile reads.
func CheckLocalFile(path string, limit int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkLocal(path, st, limit)
}

func checkLocal(path string, st os.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); the preview reads regular files only", path, st.Mode().Type())
	}
	if st.Size() > limit {
		return errTooLargeFile(path, limit)
	}
	return nil
}

func errTooLargeFile(path string, limit int64) error {
	return errors.New(path + ": larger than the console's limit of " + byteSize(limit) + " (--max-upload-bytes)")
}
