package build

import (
	"context"
	"time"

	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// Stats are the runtime statistics of one run of a plan, one NodeStats per
// physical node (EXPLAIN ANALYZE). Set Env.Stats to a new Stats before Run
// and read it after Run returned.
type Stats struct {
	nodes map[physical.Node]*NodeStats
	// Total is the wall time of the whole run, when the caller sets it.
	Total time.Duration
}

// NewStats returns empty statistics to pass in Env.Stats.
func NewStats() *Stats { return &Stats{nodes: map[physical.Node]*NodeStats{}} }

// Node returns the statistics of a node of the plan that ran, or nil for a
// node that was not built.
func (s *Stats) Node(n physical.Node) *NodeStats {
	if s == nil {
		return nil
	}
	return s.nodes[n]
}

// NodeStats are the figures of one physical node.
type NodeStats struct {
	// Name is the node's name (physical.Node.Name()).
	Name string
	// RowsIn and BatchesIn count the rows and batches the node received
	// from all its inputs; RowsOut and BatchesOut what it emitted.
	RowsIn, RowsOut, BatchesIn, BatchesOut int64
	// Busy is the wall time spent in the node itself: its Open, Process,
	// OnMarker and Close (or a source's Run), without the time its output
	// spent downstream. It is measured per batch, not per row.
	Busy time.Duration
	// Op holds what the operator reports about itself (peak state bytes,
	// spills); zero for operators that report nothing.
	Op ops.OpStats

	// wall is the whole time of the node's run (its inputs included);
	// down the time its output spent in the consumer.
	wall, down time.Duration
	children   []*NodeStats
}

// statsRunner records the statistics of one node around its runner.
type statsRunner struct {
	inner runner
	st    *NodeStats
}

// statsCollector counts the batches a node emits and the time they take
// downstream.
type statsCollector struct {
	out vectorized.Collector
	st  *NodeStats
}

// Emit implements vectorized.Collector.
func (c *statsCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	c.st.BatchesOut++
	c.st.RowsOut += int64(b.NumRows())
	t0 := time.Now()
	err := c.out.Emit(ctx, b)
	c.st.down += time.Since(t0)
	return err
}

// EmitMarker implements vectorized.Collector.
func (c *statsCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	t0 := time.Now()
	err := c.out.EmitMarker(ctx, m)
	c.st.down += time.Since(t0)
	return err
}

func (r *statsRunner) run(ctx context.Context, out vectorized.Collector) error {
	t0 := time.Now()
	err := r.inner.run(ctx, &statsCollector{out: out, st: r.st})
	r.st.wall = time.Since(t0)
	r.finish()
	return err
}

// finish derives the node's input counts and own time from its children
// and asks the operator for its figures.
func (r *statsRunner) finish() {
	st := r.st
	st.RowsIn, st.BatchesIn = 0, 0
	busy := st.wall - st.down
	for _, c := range st.children {
		st.RowsIn += c.RowsOut
		st.BatchesIn += c.BatchesOut
		// A child's run is part of this run; what it emitted was
		// processed here.
		busy -= c.wall - c.down
	}
	st.Busy = max(busy, 0)
	var op any
	switch x := r.inner.(type) {
	case *unaryRunner:
		op = x.op
	case *binaryRunner:
		op = x.op
	case *unionRunner:
		op = x.op
	case *multiRunner:
		op = x.op
		// Inputs run concurrently: their wall times overlap, so the own
		// time above is meaningless; it is not reported.
		st.Busy = 0
	}
	if rep, ok := op.(ops.StatsReporter); ok {
		st.Op = rep.OpStats()
	}
	if sz, ok := op.(*sizedBinary); ok && sz.peak > st.Op.PeakStateBytes {
		st.Op.PeakStateBytes = sz.peak
	}
}

// sizedBinary records the peak state size of a two-input operator that
// can tell it (ops.StateSizer): after its build side and at its markers,
// before Close releases the state.
type sizedBinary struct {
	ops.BinaryOperator
	sz   ops.StateSizer
	peak int64
}

func (s *sizedBinary) measure() {
	if n := s.sz.StateBytes(); n > s.peak {
		s.peak = n
	}
}

// FinishBuild implements ops.BinaryOperator.
func (s *sizedBinary) FinishBuild(ctx context.Context) error {
	err := s.BinaryOperator.FinishBuild(ctx)
	s.measure()
	return err
}

// OnMarker implements ops.BinaryOperator.
func (s *sizedBinary) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	s.measure()
	return s.BinaryOperator.OnMarker(ctx, m, out)
}

// buildNode builds n: P gathered instances when it is a parallel node
// requested from a single context (parallel.go), else buildOne.
func (b *builder) buildNode(n physical.Node) (runner, error) {
	if b.inst < 0 && b.isPar(n) {
		return b.buildParallel(n)
	}
	return b.buildOne(n)
}

// buildOne builds one instance of n and, when the run collects statistics
// or has a memory budget, instruments it.
func (b *builder) buildOne(n physical.Node) (runner, error) {
	if ex, ok := n.(*physical.Exchange); ok && b.inst >= 0 && len(ex.Keys) > 0 {
		return b.buildExchange(ex)
	}
	r, err := b.build(n)
	if err != nil {
		return nil, err
	}
	if err := b.attachDiskState(n, r); err != nil { // diskstate.go
		return nil, err
	}
	if b.ck != nil {
		if err := b.attachCheckpoint(n, r); err != nil { // checkpoint.go
			return nil, err
		}
	}
	if b.env.Spill != (ops.SpillConfig{}) {
		if u, ok := r.(*unaryRunner); ok {
			if sp, ok := u.op.(interface{ SetSpill(ops.SpillConfig) }); ok {
				sp.SetSpill(b.env.Spill)
			}
		}
	}
	if b.env.Stats == nil {
		return r, nil
	}
	if b.env.Stats.nodes == nil {
		b.env.Stats.nodes = map[physical.Node]*NodeStats{}
	}
	st := &NodeStats{Name: n.Name()}
	for _, c := range n.Children() {
		if cs := b.env.Stats.nodes[c]; cs != nil {
			st.children = append(st.children, cs)
		}
	}
	b.env.Stats.nodes[n] = st
	if br, ok := r.(*binaryRunner); ok {
		if sz, ok := br.op.(ops.StateSizer); ok {
			br.op = &sizedBinary{BinaryOperator: br.op, sz: sz}
		}
	}
	return &statsRunner{inner: r, st: st}, nil
}
