//go:build !beamharmony_noazure

package cloud

// The azblob:// driver; build with -tags beamharmony_noazure to leave it out.
import _ "gocloud.dev/blob/azureblob"
