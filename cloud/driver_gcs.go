//go:build !beamharmony_nogcs

package cloud

// The gs:// driver; build with -tags beamharmony_nogcs to leave it out.
import _ "gocloud.dev/blob/gcsblob"
