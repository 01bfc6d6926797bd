package build

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() {
	register(buildGroupAggregate)
	register(buildExchange)
	register(buildStreamUnion)
	register(buildStreamJoin)
	register(buildStreamSink)
}

// buildGroupAggregate builds a GroupAggregate.
func buildGroupAggregate(b *builder, n *physical.GroupAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	if n.MiniBatchSize > 0 {
		return b.buildMiniBatchGroupAggregate(n, ch, out) // stream_minibatch.go
	}
	name := n.Name()
	op := ops.NewGroupAggregate(n.GroupKeys, n.Aggs, n.Input.Schema(), out, ops.GroupAggregateOptions{
		Retract:  n.NeedRetraction(),
		StateTTL: b.env.StateTTL,
	})
	op.SetFunctions(b.env.Eval) // script aggregates (ops/script_agg_stream.go)
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildExchange builds a Exchange.
func buildExchange(b *builder, n *physical.Exchange, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	return &unaryRunner{name: name, op: ops.Forward{}, child: ch[0]}, nil
}

// buildStreamUnion builds a StreamUnion.
func buildStreamUnion(b *builder, n *physical.StreamUnion, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	if constantOnly(n) {
		// Constant inputs (VALUES that could not be folded) are
		// bounded: run them one after the other, in order.
		return &unionRunner{name: name, op: ops.NewUnion(len(ch), out), children: ch}, nil
	}
	return &multiRunner{name: name, op: ops.NewStreamUnion(len(ch), out), children: ch}, nil
}

// buildStreamJoin builds a StreamJoin.
func buildStreamJoin(b *builder, n *physical.StreamJoin, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	spec := ops.StreamJoinSpec{Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, NullSafe: n.NullSafe,
		Left: n.Left.Schema(), Right: n.Right.Schema(), Out: n.Out}
	if n.Extra != nil {
		both := append(append(types.Schema{}, n.Left.Schema()...), n.Right.Schema()...)
		cond, err := b.compileFilter(n.Extra, both)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		spec.Cond = cond
	}
	return &multiRunner{name: name, op: ops.NewStreamJoin(spec), children: ch}, nil
}

// buildStreamSink builds a StreamSink.
func buildStreamSink(b *builder, n *physical.StreamSink, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	if b.env.Connectors == nil {
		return nil, fmt.Errorf("%s: internal: no connector registry", name)
	}
	f, err := b.env.Connectors.Lookup(n.Table)
	if err != nil {
		return nil, err
	}
	cx, subtask := b.sinkConn() // parallel.go
	s, err := f.CreateSink(cx, connectors.SinkSpec{Table: n.Table, Overwrite: n.Overwrite, Subtask: subtask})
	if err != nil {
		return nil, err
	}
	child := ch[0]
	if enf := b.notNullEnforcer(&physical.Sink{Input: n.Input, Table: n.Table}); enf != nil {
		child = &unaryRunner{name: name, op: enf, child: child}
	}
	return &unaryRunner{name: name, op: ops.NewSink(s), child: child, sink: s}, nil
}

// multiInput is a streaming operator with several inputs (join, union):
// batches and markers arrive tagged with their input's index, one at a
// time.
type multiInput interface {
	Open(ctx context.Context) error
	Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error
	OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error
	Close() error
}

// multiRunner runs every input of a multi-input streaming operator
// concurrently, each in its own goroutine (inputs may be unbounded), and
// feeds their batches and markers to the operator in arrival order from
// the runner's goroutine.
type multiRunner struct {
	name     string
	op       multiInput
	children []runner
	ck       *runnerCk // checkpoint.go; nil without checkpoints
}

// sideItem is what an input goroutine hands to the join: a batch, a
// marker, or the end of the input's run (with its error).
type sideItem struct {
	side   int
	batch  vectorized.Batch
	marker *vectorized.Marker
	done   bool
	err    error
}

// sideCollector sends one input's output to the join's goroutine.
type sideCollector struct {
	side int
	ch   chan<- sideItem
}

// Emit implements vectorized.Collector.
func (c *sideCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	select {
	case c.ch <- sideItem{side: c.side, batch: b}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// EmitMarker implements vectorized.Collector.
func (c *sideCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	select {
	case c.ch <- sideItem{side: c.side, marker: &m}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *multiRunner) run(ctx context.Context, out vectorized.Collector) (err error) {
	defer closeInto(r.name, &err, r.op.Close)
	if err := r.op.Open(ctx); err != nil {
		return wrap(r.name, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	ch := make(chan sideItem)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	for side, child := range r.children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("internal error while running the plan: %v", p)
					}
				}()
				err = child.run(cctx, &sideCollector{side: side, ch: ch})
			}()
			select {
			case ch <- sideItem{side: side, done: true, err: err}:
			case <-cctx.Done():
			}
		}()
	}
	if len(r.children) == 0 {
		return out.EmitMarker(ctx, endOfInput)
	}
	if r.ck != nil {
		if rd := r.ck.reader(); rd != nil {
			if err := r.op.(vectorized.Stateful).RestoreState(ctx, rd); err != nil {
				return wrap(r.name, fmt.Errorf("restoring the state: %w", err))
			}
		}
	}
	al := &aligner{r: r, out: out, sides: make([]sideState, len(r.children))}
	for running := len(r.children); running > 0; {
		var it sideItem
		select {
		case it = <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		if it.done {
			if it.err != nil {
				return it.err
			}
			running--
			if err := al.end(ctx, it.side); err != nil {
				return err
			}
			continue
		}
		if err := al.handle(ctx, it); err != nil {
			return err
		}
	}
	probeState(ctx, r.op) // bench_probe.go
	if r.ck != nil {
		// Every input ended: the state is final (checkpoint/finished.go).
		st := r.op.(vectorized.Stateful)
		r.ck.finish(func(w vectorized.StateWriter) error { return st.SnapshotState(ctx, w) })
	}
	return nil
}

// sideState is what the aligner tracks per input.
type sideState struct {
	ended   bool
	blocked bool // past the barrier being aligned: hold its items
	queue   []sideItem
}

// aligner feeds a multi-input operator and aligns checkpoint barriers over
// its live inputs: the operator's state is snapshotted, and the barrier
// forwarded, once every input that has not ended delivered it; the items
// of an input already past the barrier wait until then.
type aligner struct {
	r       *multiRunner
	out     vectorized.Collector
	sides   []sideState
	barrier int64 // the checkpoint being aligned, 0: none
	seen    int
}

func (a *aligner) handle(ctx context.Context, it sideItem) error {
	s := &a.sides[it.side]
	if s.blocked {
		s.queue = append(s.queue, it)
		return nil
	}
	if it.marker == nil {
		return wrap(a.r.name, a.r.op.Process(ctx, it.side, it.batch, a.out))
	}
	m := *it.marker
	if m.Kind != vectorized.CheckpointBarrier {
		if m.Kind == vectorized.EndOfInput {
			s.ended = true
		}
		if err := a.r.op.OnMarker(ctx, it.side, m, a.out); err != nil {
			return wrap(a.r.name, err)
		}
		if m.Kind == vectorized.EndOfInput {
			return a.release(ctx)
		}
		return nil
	}
	if a.barrier < m.Checkpoint {
		a.barrier, a.seen = m.Checkpoint, 0
	}
	s.blocked = true
	a.seen++
	return a.release(ctx)
}

// end records that an input's run ended (its EndOfInput passed before).
func (a *aligner) end(ctx context.Context, side int) error {
	s := &a.sides[side]
	if s.ended || s.blocked {
		return nil
	}
	s.ended = true
	return a.release(ctx)
}

// release snapshots and forwards an aligned barrier, then replays what
// the inputs held.
func (a *aligner) release(ctx context.Context) error {
	if a.barrier == 0 {
		return nil
	}
	live := 0
	for i := range a.sides {
		if !a.sides[i].ended || a.sides[i].blocked {
			live++
		}
	}
	if a.seen < live {
		return nil
	}
	id := a.barrier
	a.barrier, a.seen = 0, 0
	if a.r.ck != nil {
		st := a.r.op.(vectorized.Stateful)
		a.r.ck.snapshot(id, func(w vectorized.StateWriter) error { return st.SnapshotState(ctx, w) })
	}
	if err := a.out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.CheckpointBarrier, Checkpoint: id}); err != nil {
		return err
	}
	for i := range a.sides {
		s := &a.sides[i]
		if !s.blocked {
			continue
		}
		s.blocked = false
		q := s.queue
		s.queue = nil
		for k, it := range q {
			if err := a.handle(ctx, it); err != nil {
				return err
			}
			if s.blocked {
				s.queue = append(q[k+1:len(q):len(q)], s.queue...)
				break
			}
		}
	}
	return nil
}

// constantOnly reports whether a plan reads no table: only Values and
// operators over them.
func constantOnly(n physical.Node) bool {
	if _, ok := n.(*physical.TableSourceScan); ok {
		return false
	}
	for _, c := range n.Children() {
		if !constantOnly(c) {
			return false
		}
	}
	return true
}
