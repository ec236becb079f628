package cloud

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/dataset"
)

// An object store without credentials is one short line that says what to
// set, not the SDK's chain of attempts (issue 34, papercuts).
func TestObjectWithoutCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the endpoint was called without credentials: %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	home := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, tt := range []struct{ in, want string }{
		{"s3://data/in.jsonl?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true&region=us-east-1", "no AWS credentials found: set AWS_ACCESS_KEY_ID"},
		{"azblob://data/in.jsonl", "no Azure storage account: set AZURE_STORAGE_ACCOUNT"},
	} {
		_, err := run(context.Background(), dataset.Config{Inputs: []string{tt.in}, Output: filepath.Join(t.TempDir(), "out.jsonl")})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Count(err.Error(), ":") > 4 {
			t.Errorf("%s: %v, want a short line saying %q", tt.in, err, tt.want)
		}
	}
}
