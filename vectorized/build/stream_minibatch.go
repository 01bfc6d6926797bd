package build

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() {
	register(buildMiniBatchAssigner)
	register(buildLocalGroupAggregate)
	register(buildGlobalGroupAggregate)
}

// buildLocalGroupAggregate builds a LocalGroupAggregate.
func buildLocalGroupAggregate(b *builder, n *physical.LocalGroupAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	op := ops.NewLocalGroupAggregate(n.GroupKeys, n.Aggs, n.Input.Schema(), out, 0)
	op.SetFunctions(b.env.Eval) // user-defined aggregates with merge
	return unary(op)
}

// buildGlobalGroupAggregate builds a GlobalGroupAggregate.
func buildGlobalGroupAggregate(b *builder, n *physical.GlobalGroupAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	in, err := types.ArrowSchema(n.Input.Schema())
	if err != nil {
		return nil, err
	}
	op := ops.NewGlobalGroupAggregate(n.GroupKeys, n.Aggs, n.StateCols, n.LocalIn, in, out,
		ops.GroupAggregateOptions{StateTTL: b.env.StateTTL}, 0)
	op.SetFunctions(b.env.Eval)
	return unary(op)
}

// buildMiniBatchAssigner builds a MiniBatchAssigner: by processing time
// here, by event time in ops.RowTimeMiniBatchAssigner.
func buildMiniBatchAssigner(b *builder, n *physical.MiniBatchAssigner, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	if n.RowTime {
		return &unaryRunner{name: name, op: ops.NewRowTimeMiniBatchAssigner(n.IntervalMs, n.Size), child: ch[0]}, nil
	}
	return &unaryRunner{name: name, op: ops.NewMiniBatchAssigner(time.Duration(n.IntervalMs)*time.Millisecond, n.Size), child: ch[0]}, nil
}

// buildMiniBatchGroupAggregate builds a GroupAggregate with MiniBatchSize
// (buildGroupAggregate calls it).
func (b *builder) buildMiniBatchGroupAggregate(n *physical.GroupAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	if local, global, ok := physical.SplitGroupAggregate(n, n.Input); ok && !hasUserCall(n.Aggs) {
		// Over an insert-only input the one-phase mini-batch aggregate
		// runs as a fused local and global phase: the bundle is
		// pre-aggregated into accumulators and merged once per group.
		// (Script aggregates keep the stepper: one phase must not need
		// their accumulators to export.)
		lo, err := arrowSchema(name, local.Out)
		if err != nil {
			return nil, err
		}
		lop := ops.NewLocalGroupAggregate(local.GroupKeys, local.Aggs, n.Input.Schema(), lo, n.MiniBatchSize)
		lop.SetFunctions(b.env.Eval) // user-defined aggregates with merge
		gop := ops.NewGlobalGroupAggregate(global.GroupKeys, global.Aggs, global.StateCols, global.LocalIn, lo, out,
			ops.GroupAggregateOptions{StateTTL: b.env.StateTTL}, 0)
		gop.SetFunctions(b.env.Eval)
		return unary(&fusedOp{first: lop, second: gop})
	}
	mb := ops.NewMiniBatchGroupAggregate(n.GroupKeys, n.Aggs, n.Input.Schema(), out, ops.GroupAggregateOptions{
		Retract:  n.NeedRetraction(),
		StateTTL: b.env.StateTTL,
	}, n.MiniBatchSize)
	mb.SetFunctions(b.env.Eval) // script aggregates (ops/script_agg_stream.go)
	return unary(mb)
}

// fusedOp runs two operators as one: the output of first goes straight
// into second.
type fusedOp struct {
	first, second vectorized.Operator
}

type fusedCollector struct {
	op  vectorized.Operator
	out vectorized.Collector
}

// Emit implements vectorized.Collector.
func (c *fusedCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	return c.op.Process(ctx, b, c.out)
}

// EmitMarker implements vectorized.Collector.
func (c *fusedCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return c.op.OnMarker(ctx, m, c.out)
}

// Open implements vectorized.Operator.
func (f *fusedOp) Open(ctx context.Context) error {
	if err := f.first.Open(ctx); err != nil {
		return err
	}
	return f.second.Open(ctx)
}

// Process implements vectorized.Operator.
func (f *fusedOp) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	return f.first.Process(ctx, b, &fusedCollector{op: f.second, out: out})
}

// OnMarker implements vectorized.Operator.
func (f *fusedOp) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return f.first.OnMarker(ctx, m, &fusedCollector{op: f.second, out: out})
}

// Close implements vectorized.Operator.
func (f *fusedOp) Close() error {
	err := f.first.Close()
	if err2 := f.second.Close(); err == nil {
		err = err2
	}
	return err
}

// hasUserCall reports whether a call is of a user-defined aggregate.
func hasUserCall(aggs []logical.AggCall) bool {
	for _, a := range aggs {
		if a.User {
			return true
		}
	}
	return false
}
