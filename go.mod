module github.com/beamharmony/harmony

go 1.26
