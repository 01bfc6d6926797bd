//go:build !unix

package bench

import "time"

// cpuTime is not measured on this platform (no getrusage): it reports 0,
// and the per-core rate is then printed as 0.
func cpuTime() time.Duration { return 0 }

// peakRSS is not measured on this platform (no getrusage): it reports 0.
func peakRSS() int64 { return 0 }
