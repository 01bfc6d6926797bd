package build

import (
	"context"

	"github.com/tablerun/tablerun/vectorized"
)

// sourceCollector returns the vectorized.SourceCollector a source runs
// into (nil when it needs none), wrapping out, the source's collector
// with barrier injection. It is the outermost collector, so that the
// source's waits (vectorized.Sleep, WaitOn) find the Waiter and act on the
// source's goroutine: it marks the source idle after
// Env.SourceIdleTimeout without rows, and with checkpoints it injects a
// requested barrier while the source waits for data (a monitored
// directory without new files, a throttled generator) instead of at its
// next batch, so that checkpoints, and the sinks' commits, do not wait for
// new input.
func (r *sourceRunner) sourceCollector(out vectorized.Collector) *vectorized.SourceCollector {
	if r.idle <= 0 && r.inj == nil {
		return nil
	}
	sc := vectorized.NewSourceCollector(out, r.idle)
	if ic, ok := out.(*injectCollector); ok {
		inner := ic.out
		sc.OnWake(func(ctx context.Context) error { return ic.in.maybeInject(ctx, inner) })
		ic.in.setWaker(sc.Signal)
	}
	return sc
}

// setWaker makes request wake the source's wait.
func (in *injector) setWaker(wake func()) {
	in.mu.Lock()
	in.waker = wake
	pending := in.pending > in.injected
	in.mu.Unlock()
	if pending {
		wake()
	}
}
