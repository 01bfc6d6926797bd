package build

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// RunProbe measures a run for `tablerun bench` (internal/bench): the
// processing-time latency from source to sink, sampled, and the size of
// the operators' state at the end of the input. It is carried by the
// context passed to Run (WithRunProbe); without one the hooks below cost
// nothing. It is safe for concurrent use (sources, sinks and parallel
// instances run on several goroutines).
//
// Latency: every Every-th batch a source emits is stamped with the wall
// clock as it leaves the source (its ingestion time), before it goes
// downstream. When a sink next receives a batch, every stamped batch
// still waiting is matched to it, and its latency is the sink's receive
// time minus the ingestion time. So a sample is "how long after a batch
// entered the job did the next result reach the sink": it includes the
// time the rows spend in operators, exchanges and mini-batch bundles
// (a bundle's rows reach the sink when it flushes), and under a bounded
// run at full speed the queueing of a saturated pipeline. Stamps that no
// result follows (a filter dropped everything after them) are not
// samples; they are counted in Unmatched. Only every Every-th batch takes
// a lock on the source side; the sink takes it once per batch.
//
// State size: when an operator's input ends, before it is closed, the
// runner asks it for its state: an operator that checkpoints
// (vectorized.Stateful) writes a snapshot into a counting writer and the
// bytes of the Arrow buffers count (the size of a checkpoint of that
// operator); otherwise ops.StateSizer's or ops.StatsReporter's estimate
// counts. StateBytes is the sum over all operators (and instances), and
// Overhead the time the measuring took.
type RunProbe struct {
	// Every is the sampling interval in source batches (1: every batch).
	Every int64

	batches  atomic.Int64
	state    atomic.Int64
	disk     atomic.Int64 // bytes of the disk state backend's stores
	overhead atomic.Int64 // nanoseconds spent measuring the state
	hooked   atomic.Bool

	mu        sync.Mutex
	pending   []time.Time
	samples   []time.Duration
	unmatched int64
}

// NewRunProbe returns a probe that stamps every every-th source batch
// (every <= 0 means 1).
func NewRunProbe(every int) *RunProbe {
	if every <= 0 {
		every = 1
	}
	return &RunProbe{Every: int64(every)}
}

// runProbeKey is the context key of a run's RunProbe.
type runProbeKey struct{}

// WithRunProbe returns a context that makes the runs started with it
// report into p.
func WithRunProbe(ctx context.Context, p *RunProbe) context.Context {
	return context.WithValue(ctx, runProbeKey{}, p)
}

// RunProbeFrom returns the RunProbe ctx carries, or nil.
func RunProbeFrom(ctx context.Context) *RunProbe {
	p, _ := ctx.Value(runProbeKey{}).(*RunProbe)
	return p
}

// Latencies returns the latency samples, sorted ascending.
func (p *RunProbe) Latencies() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]time.Duration(nil), p.samples...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Unmatched returns the number of stamped source batches no sink batch
// followed.
func (p *RunProbe) Unmatched() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unmatched + int64(len(p.pending))
}

// StateBytes returns the summed state size of the operators at the end
// of their input.
func (p *RunProbe) StateBytes() int64 { return p.state.Load() }

// Overhead returns the time spent measuring the state (taking the
// snapshots), which a caller timing the run may subtract.
func (p *RunProbe) Overhead() time.Duration { return time.Duration(p.overhead.Load()) }

// Hooked reports whether the runtime called the probe's hooks at all (a
// source stamped a batch or an operator reported its state); false means
// the figures are not measured rather than zero.
func (p *RunProbe) Hooked() bool { return p.hooked.Load() }

// DiskBytes returns the bytes the stores of the disk state backend
// (state.backend.type = 'rocksdb') took at the end of the input.
func (p *RunProbe) DiskBytes() int64 { return p.disk.Load() }

// stamp records the ingestion time of a source batch when it is sampled.
func (p *RunProbe) stamp() {
	n := p.batches.Add(1)
	if (n-1)%p.Every != 0 {
		return
	}
	p.hooked.Store(true)
	t := time.Now()
	p.mu.Lock()
	p.pending = append(p.pending, t)
	p.mu.Unlock()
}

// received matches the waiting stamps to a batch a sink received now.
func (p *RunProbe) received() {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.pending) == 0 {
		return
	}
	for _, t := range p.pending {
		p.samples = append(p.samples, now.Sub(t))
	}
	p.pending = p.pending[:0]
}

// probeSource wraps a source's collector so that its batches are stamped
// into the RunProbe ctx carries; without one it returns out unchanged.
// The source runner calls it next to countSourceRows.
func probeSource(ctx context.Context, out vectorized.Collector) vectorized.Collector {
	p := RunProbeFrom(ctx)
	if p == nil {
		return out
	}
	return &probeCollector{out: out, p: p}
}

// probeCollector stamps a source's batches.
type probeCollector struct {
	out vectorized.Collector
	p   *RunProbe
}

// Emit implements vectorized.Collector.
func (c *probeCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	c.p.stamp()
	return c.out.Emit(ctx, b)
}

// EmitMarker implements vectorized.Collector.
func (c *probeCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return c.out.EmitMarker(ctx, m)
}

// probeSinkInput wraps the collector that feeds a sink's batches so that
// they close the waiting latency stamps of the RunProbe ctx carries;
// without one it returns in unchanged. The sink's runner calls it.
func probeSinkInput(ctx context.Context, in vectorized.Collector) vectorized.Collector {
	p := RunProbeFrom(ctx)
	if p == nil {
		return in
	}
	return &probeSinkCollector{out: in, p: p}
}

// probeSinkCollector reports the batches a sink receives.
type probeSinkCollector struct {
	out vectorized.Collector
	p   *RunProbe
}

// Emit implements vectorized.Collector.
func (c *probeSinkCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	c.p.received()
	return c.out.Emit(ctx, b)
}

// EmitMarker implements vectorized.Collector.
func (c *probeSinkCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return c.out.EmitMarker(ctx, m)
}

// probeState adds the state of op at the end of its input to the RunProbe
// ctx carries (see RunProbe). The runners call it when their input ended
// without error, before closing the operator.
func probeState(ctx context.Context, op any) {
	p := RunProbeFrom(ctx)
	if p == nil || op == nil {
		return
	}
	t0 := time.Now()
	n, ok := stateSize(ctx, op)
	if f, isFused := op.(*fusedOp); isFused {
		op = f.second
	}
	if d, isDisk := op.(interface{ DiskBytes() uint64 }); isDisk {
		p.disk.Add(int64(d.DiskBytes()))
	}
	p.overhead.Add(int64(time.Since(t0)))
	if !ok {
		return
	}
	p.hooked.Store(true)
	p.state.Add(n)
}

// stateSize measures one operator: ok is false for a stateless one.
func stateSize(ctx context.Context, op any) (int64, bool) {
	if f, ok := op.(*fusedOp); ok { // a fused mini-batch local/global aggregate: the global half holds the state
		op = f.second
	}
	if st, ok := op.(vectorized.Stateful); ok {
		w := &countingWriter{}
		if err := st.SnapshotState(ctx, w); err == nil {
			return w.bytes, true
		}
	}
	if sz, ok := op.(ops.StateSizer); ok {
		return sz.StateBytes(), true
	}
	if rep, ok := op.(ops.StatsReporter); ok {
		if n := rep.OpStats().PeakStateBytes; n > 0 {
			return n, true
		}
	}
	return 0, false
}

// countingWriter is a vectorized.StateWriter that only adds up the bytes
// of the Arrow buffers written.
type countingWriter struct{ bytes int64 }

// Write implements vectorized.StateWriter.
func (w *countingWriter) Write(_ string, rec arrow.RecordBatch) error {
	for _, c := range rec.Columns() {
		w.bytes += arrayBytes(c.Data())
	}
	return nil
}

// arrayBytes sums the buffer lengths of an array and its children.
func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}
