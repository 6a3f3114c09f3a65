//go:build !unix

package fieldmanager

import "time"

// cpuTime is not measured here; the figures fall back to wall time.
func cpuTime() time.Duration { return 0 }
