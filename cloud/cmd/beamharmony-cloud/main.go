// Command beamharmony-cloud is beamharmony with object storage: every
// command of beamharmony, and the dataset command also reads and writes
// s3://BUCKET/KEY, gs://BUCKET/KEY and azblob://CONTAINER/KEY paths
// through the Go CDK (package cloud). It is built apart, in the module
// github.com/beamharmony/harmony/cloud, so that beamharmony links no cloud
// SDK:
//
//	cd cloud && go install ./cmd/beamharmony-cloud
//
// in a clone of the repository (cloud is a module of its own).
package main

import (
	"os"

	"github.com/beamharmony/harmony/cli"
	"github.com/beamharmony/harmony/cloud"
)

func main() {
	p := cli.Program{OpenBucket: cloud.OpenBucket}
	os.Exit(p.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
