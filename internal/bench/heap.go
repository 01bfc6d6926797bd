package bench

import (
	"runtime/metrics"
	"time"
)

// heapMetric is the Go heap occupied by objects (live and not yet swept).
const heapMetric = "/memory/classes/heap/objects:bytes"

// sampleHeap samples the Go heap every 10 ms until the returned function is
// called, which returns the largest sample.
func sampleHeap() func() uint64 {
	done := make(chan struct{})
	result := make(chan uint64, 1)
	read := func() uint64 {
		s := []metrics.Sample{{Name: heapMetric}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[0].Value.Uint64()
	}
	go func() {
		peak := read()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				result <- max(peak, read())
				return
			case <-t.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}
