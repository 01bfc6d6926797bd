package build

import (
	"context"
	"sync"
)

// Drainer ends the sources of a running job on request, as if they were
// bounded (Flink's STOP JOB … WITH DRAIN): each source's Run is cancelled,
// the runner then sends EndOfInput, so windows fire, aggregates emit what
// they hold and sinks finish (commit) as at the end of a bounded input.
type Drainer struct {
	mu      sync.Mutex
	drained bool
	cancels []context.CancelFunc
}

// NewDrainer returns a Drainer for one run (Env.Drain).
func NewDrainer() *Drainer { return &Drainer{} }

// Drain ends every source of the run. Sources that start after it end at
// once.
func (d *Drainer) Drain() {
	d.mu.Lock()
	d.drained = true
	cs := d.cancels
	d.cancels = nil
	d.mu.Unlock()
	for _, c := range cs {
		c()
	}
}

// Drained reports whether Drain was called.
func (d *Drainer) Drained() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.drained
}

// sourceContext returns the context a source runs under: cancelled by
// Drain as well as by ctx.
func (d *Drainer) sourceContext(ctx context.Context) (context.Context, context.CancelFunc) {
	sctx, cancel := context.WithCancel(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.drained {
		cancel()
	} else {
		d.cancels = append(d.cancels, cancel)
	}
	return sctx, cancel
}
