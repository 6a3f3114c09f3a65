// Package client tests the client framework against an in-process API server
// and embedded etcd: leader election on a real Lease, and bad input.
package client

import (
	"os"
	"testing"
)

// TestMain runs the test binary as a leader election candidate when
// electorEnv is set (see runElectorProcess), so that a test can kill a
// leader outright; otherwise it runs the tests.
func TestMain(m *testing.M) {
	if os.Getenv(electorEnv) != "" {
		os.Exit(runElectorProcess())
	}
	os.Exit(m.Run())
}
