package build

import (
	"context"
	"sync/atomic"

	"github.com/tablerun/tablerun/vectorized"
)

// Progress counts the rows the sources of a run have read so far. It is
// carried by the context passed to Run (WithProgress); every source adds
// the rows of each batch it emits, so a caller can poll RowsRead from
// another goroutine while the run goes on (the interactive shell's
// progress line). The counters are atomic: a Progress is lock-free and
// safe for concurrent use, and may be shared by several runs (a statement
// set) that then add up.
type Progress struct {
	rows    atomic.Int64
	batches atomic.Int64
}

// RowsRead returns the number of rows the sources emitted so far.
func (p *Progress) RowsRead() int64 {
	if p == nil {
		return 0
	}
	return p.rows.Load()
}

// BatchesRead returns the number of batches the sources emitted so far.
func (p *Progress) BatchesRead() int64 {
	if p == nil {
		return 0
	}
	return p.batches.Load()
}

// progressKey is the context key of a run's Progress.
type progressKey struct{}

// WithProgress returns a context that makes the runs started with it count
// the rows their sources read into p.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressFrom returns the Progress ctx carries, or nil.
func ProgressFrom(ctx context.Context) *Progress {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	return p
}

// countSourceRows wraps a source's collector so that the batches it emits
// count in the Progress ctx carries; without one it returns out unchanged
// (no cost when nobody watches).
func countSourceRows(ctx context.Context, out vectorized.Collector) vectorized.Collector {
	p := ProgressFrom(ctx)
	if p == nil {
		return out
	}
	return &progressCollector{out: out, p: p}
}

// progressCollector counts a source's batches into a Progress.
type progressCollector struct {
	out vectorized.Collector
	p   *Progress
}

// Emit implements vectorized.Collector.
func (c *progressCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	c.p.rows.Add(int64(b.NumRows()))
	c.p.batches.Add(1)
	return c.out.Emit(ctx, b)
}

// EmitMarker implements vectorized.Collector.
func (c *progressCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return c.out.EmitMarker(ctx, m)
}
