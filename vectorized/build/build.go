// Package build turns a physical plan into vectorized operators and drives
// them to completion (batch mode, one goroutine).
//
// Every physical node becomes a runner. A runner pushes its node's output
// into a Collector: a source runs its connector; a single-input node opens
// its operator and runs its child into a collector that feeds the operator;
// a two-input node (join, set operation) runs its right (build) child to the
// end before its left (probe) child. Each source is followed by an
// EndOfInput marker. Every Open is matched by a Close, also on errors, and
// every error is prefixed once with the name of the node it came from
// ("HashAggregate: …").
package build

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// Env is what running a plan needs from the session.
type Env struct {
	// Connectors finds the factories of scanned and written tables.
	Connectors *connectors.Registry
	// Conn is passed to the connectors; nil means a bounded default.
	Conn *connectors.Context
	// Functions resolves the functions of compiled expressions.
	Functions *function.Registry
	// Eval is the evaluation context of compiled expressions.
	Eval *function.EvalContext
	// SinkNotNullDrop drops rows with a NULL in a NOT NULL sink column
	// instead of failing (table.exec.sink.not-null-enforcer = DROP).
	SinkNotNullDrop bool
	// StateTTL is table.exec.state.ttl (streaming; 0 keeps state forever).
	StateTTL time.Duration
	// Spill is the memory budget of HashAggregate, Sort and SortLimit
	// (each gets the whole budget) and their spill directory (stats.go).
	Spill ops.SpillConfig
	// Stats, when not nil, collects per-node runtime statistics (EXPLAIN
	// ANALYZE); see NewStats. A run with statistics runs one instance of
	// every node.
	Stats *Stats
	// Parallelism is the number of instances of the parallel nodes of a
	// streaming plan (table.exec.resource.default-parallelism); 0 or 1
	// runs everything once. See parallel.go.
	Parallelism int
	// Checkpoint, when not nil, checkpoints a streaming run and may
	// restore it (checkpoint.go).
	Checkpoint *CheckpointSettings
	// Drain, when not nil, lets the caller end the run's sources early
	// (STOP JOB … WITH DRAIN; drain.go).
	Drain *Drainer
	// SourceIdleTimeout is table.exec.source.idle-timeout (streaming; 0
	// is off): a table source (each parallel split) that emits no rows
	// for this long is marked idle (vectorized/idle.go).
	SourceIdleTimeout time.Duration
	// DiskState, when not nil, keeps the keyed state of streaming
	// operators on disk (state.backend.type = 'rocksdb', diskstate.go).
	DiskState *diskstate.Config
}

// Run builds the operators of plan and drives them to completion,
// delivering the root's batches to out in order (a Sink root delivers
// nothing). It stops promptly when ctx is cancelled, returning ctx.Err()
// (possibly wrapped). An error returned by out comes back unchanged; any
// other error of a running node is an *OperatorError naming the node.
func Run(ctx context.Context, plan physical.Node, env *Env, out func(b vectorized.Batch) error) (err error) {
	// A panic is a broken invariant (ours or a connector's); it must not
	// take the process down. The runners' deferred Closes have run by the
	// time it gets here.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error while running the plan: %v", p)
		}
	}()
	if env == nil {
		env = &Env{}
	}
	if env.Eval != nil && env.Eval.Done == nil {
		// Script calls stop when the run is cancelled.
		e2, ev := *env, *env.Eval
		ev.Done = ctx.Done()
		e2.Eval = &ev
		env = &e2
	}
	reads := analyseReads(plan)
	b := &builder{env: env, inst: -1, par: env.Parallelism, readFields: reads.readFields(), reads: reads}
	if env.Stats != nil {
		b.par = 1 // statistics are per node, not per instance
	}
	if env.Checkpoint != nil {
		b.ck = &ckState{set: env.Checkpoint}
		b.ck.assignIDs(plan)
	}
	if env.DiskState != nil {
		b.disk = diskstate.NewBackend(*env.DiskState)
		defer b.disk.Close() // removes the working directory
	}
	r, err := b.buildNode(plan)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, stopHubs := b.startHubs(ctx) // parallel.go
	if b.ck != nil {
		stop, failed, err := b.startCheckpoints(ctx) // checkpoint.go
		if err != nil {
			stopHubs()
			return err
		}
		defer stop()
		r = &checkpointedRun{inner: r, failed: failed}
	}
	err = wrap("", r.run(ctx, &rootCollector{out: out}))
	stopHubs()
	if a, ok := err.(*OperatorError); ok && a.Node == "" {
		return a.Err // the caller's own error, unchanged
	}
	return err
}

// Collect runs plan and returns the root's batches.
func Collect(ctx context.Context, plan physical.Node, env *Env) ([]vectorized.Batch, error) {
	var out []vectorized.Batch
	err := Run(ctx, plan, env, func(b vectorized.Batch) error {
		out = append(out, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// OperatorError is an error raised while running a plan, attributed to the
// physical node it came from: its text is "Node: cause" (for example
// "HashAggregate: SingleValueAggFunction received more than one element.").
// Use errors.As to get the node and the bare cause, say to print the cause
// alone as Flink does. (Internally, an empty Node marks an error of Run's
// callback, which Run returns unwrapped.)
type OperatorError struct {
	// Node is the physical node's name (physical.Node.Name()).
	Node string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *OperatorError) Error() string {
	if e.Node == "" {
		return e.Err.Error()
	}
	return e.Node + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *OperatorError) Unwrap() error { return e.Err }

// wrap attributes err to the node name. An *OperatorError came from
// downstream: it is returned bare, without what the
// nodes it passed through added (a source that wraps its collector's
// errors). Cancellations pass unchanged.
func wrap(name string, err error) error {
	if err == nil {
		return nil
	}
	var a *OperatorError
	if errors.As(err, &a) {
		return a
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &OperatorError{Node: name, Err: err}
}

// runner pushes one node's output into a collector.
type runner interface {
	run(ctx context.Context, out vectorized.Collector) error
}

// processor is the probe-side half shared by Operator and BinaryOperator.
type processor interface {
	Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error
	OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error
}

// rootCollector delivers the root's batches to the caller.
type rootCollector struct {
	out func(b vectorized.Batch) error
}

// Emit implements vectorized.Collector.
func (c *rootCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.out == nil {
		return nil
	}
	if err := c.out(b); err != nil {
		return &OperatorError{Err: err}
	}
	return nil
}

// EmitMarker implements vectorized.Collector.
func (c *rootCollector) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// opCollector feeds an operator.
type opCollector struct {
	name string
	op   processor
	out  vectorized.Collector
}

// Emit implements vectorized.Collector.
func (c *opCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return wrap(c.name, c.op.Process(ctx, b, c.out))
}

// EmitMarker implements vectorized.Collector.
func (c *opCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return wrap(c.name, c.op.OnMarker(ctx, m, c.out))
}

// buildCollector feeds the build side of a two-input operator.
type buildCollector struct {
	name     string
	op       ops.BinaryOperator
	finished bool
}

// Emit implements vectorized.Collector.
func (c *buildCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return wrap(c.name, c.op.ProcessBuild(ctx, b))
}

// EmitMarker implements vectorized.Collector.
func (c *buildCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	if m.Kind != vectorized.EndOfInput || c.finished {
		return nil
	}
	c.finished = true
	return wrap(c.name, c.op.FinishBuild(ctx))
}

var endOfInput = vectorized.Marker{Kind: vectorized.EndOfInput}

// closeInto closes with f and keeps the first error.
func closeInto(name string, errp *error, f func() error) {
	if err := f(); err != nil && *errp == nil {
		*errp = wrap(name, err)
	}
}

// sourceRunner runs a source, then sends EndOfInput.
type sourceRunner struct {
	name string
	src  vectorized.Source
	ck   *runnerCk // checkpoint.go; nil without checkpoints
	inj  *injector
	// drain, when not nil, can end the source early (drain.go).
	drain *Drainer
	idle  time.Duration // Env.SourceIdleTimeout; 0: off
}

func (r *sourceRunner) run(ctx context.Context, out vectorized.Collector) (err error) {
	out = countSourceRows(ctx, out) // progress.go: rows read, when ctx carries a Progress
	out = probeSource(ctx, out)     // bench_probe.go: latency stamps, when ctx carries a RunProbe
	defer closeInto(r.name, &err, r.src.Close)
	if err := r.src.Open(ctx); err != nil {
		return wrap(r.name, err)
	}
	if r.inj != nil {
		if rd := r.ck.reader(); rd != nil {
			if err := r.inj.src.RestorePosition(rd); err != nil {
				return wrap(r.name, fmt.Errorf("restoring the source position: %w", err))
			}
		}
		out = &injectCollector{out: out, in: r.inj}
	}
	if sc := r.sourceCollector(out); sc != nil { // source_wait.go
		defer sc.Stop()
		out = sc
	}
	runCtx := ctx
	if r.drain != nil { // drain.go: STOP JOB … WITH DRAIN ends the source
		var cancel context.CancelFunc
		runCtx, cancel = r.drain.sourceContext(ctx)
		defer cancel()
	}
	if err := r.src.Run(runCtx, out); err != nil && !(r.drain != nil && r.drain.Drained() && ctx.Err() == nil) {
		return wrap(r.name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.inj != nil {
		r.inj.finish()
	}
	return out.EmitMarker(ctx, endOfInput)
}

// unaryRunner runs a single-input operator over its child.
type unaryRunner struct {
	name  string
	op    vectorized.Operator
	child runner
	sink  connectors.Sink // the connector sink of a StreamSink
	ck    *runnerCk       // checkpoint.go; nil without checkpoints
}

func (r *unaryRunner) run(ctx context.Context, out vectorized.Collector) (err error) {
	defer closeInto(r.name, &err, r.op.Close)
	if err := r.op.Open(ctx); err != nil {
		return wrap(r.name, err)
	}
	op := r.op
	if r.ck != nil {
		if err := r.restore(ctx); err != nil {
			return wrap(r.name, fmt.Errorf("restoring the state: %w", err))
		}
		if r.sink != nil {
			op = &sinkCk{Operator: op, sink: r.sink, ck: r.ck}
		} else if st, ok := stateOf(op); ok {
			out = &stateCollector{out: out, ck: r.ck, state: st}
		}
	}
	var in vectorized.Collector = &opCollector{name: r.name, op: op, out: out}
	if r.sink != nil {
		in = probeSinkInput(ctx, in) // bench_probe.go
	}
	err = r.child.run(ctx, in)
	if err == nil {
		probeState(ctx, r.op) // bench_probe.go
	}
	if l, ok := r.op.(*ops.Limit); ok && ops.IsLimitReached(err, l) {
		// The limit has all its rows: the input ends here.
		return wrap(r.name, r.op.OnMarker(ctx, endOfInput, out))
	}
	return err
}

// unionRunner runs every input into one Union operator.
type unionRunner struct {
	name     string
	op       *ops.Union
	children []runner
}

func (r *unionRunner) run(ctx context.Context, out vectorized.Collector) (err error) {
	defer closeInto(r.name, &err, r.op.Close)
	if err := r.op.Open(ctx); err != nil {
		return wrap(r.name, err)
	}
	c := &opCollector{name: r.name, op: r.op, out: out}
	for _, ch := range r.children {
		if err := ch.run(ctx, c); err != nil {
			return err
		}
	}
	if len(r.children) == 0 {
		return out.EmitMarker(ctx, endOfInput)
	}
	return nil
}

// binaryRunner runs the build (right) side to the end, then the probe
// (left) side.
type binaryRunner struct {
	name        string
	op          ops.BinaryOperator
	left, right runner
}

func (r *binaryRunner) run(ctx context.Context, out vectorized.Collector) (err error) {
	defer closeInto(r.name, &err, r.op.Close)
	if err := r.op.Open(ctx); err != nil {
		return wrap(r.name, err)
	}
	bc := &buildCollector{name: r.name, op: r.op}
	if err := r.right.run(ctx, bc); err != nil {
		return err
	}
	if !bc.finished {
		return wrap(r.name, fmt.Errorf("internal: build side ended without EndOfInput"))
	}
	return r.left.run(ctx, &opCollector{name: r.name, op: r.op, out: out})
}

// builder turns physical nodes into runners.
type builder struct {
	env *Env
	// par is the number of instances of a parallel node (parallel.go);
	// inst is the instance being built, -1 outside parallel nodes.
	par, inst int
	parMemo   map[physical.Node]bool
	hubs      map[*physical.Exchange]*hub
	allHubs   []*hub
	ck        *ckState           // checkpoint.go; nil without checkpoints
	disk      *diskstate.Backend // diskstate.go; nil with the heap backend
	outMu     *sync.Mutex        // shared by the sink instances' writers
	// readFields: the read fields of each scan's ROW columns (read_fields.go)
	readFields map[*physical.TableSourceScan][][]bool
	// reads: what of each node's output columns is read (read_fields.go)
	reads *readAnalysis
}

func (b *builder) conn() *connectors.Context {
	if b.env.Conn != nil {
		return b.env.Conn
	}
	return &connectors.Context{BatchSize: vectorized.DefaultBatchSize, Bounded: true, Parallelism: 1}
}

func arrowSchema(name string, s types.Schema) (*arrow.Schema, error) {
	as, err := types.ArrowSchema(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return as, nil
}

func (b *builder) children(n physical.Node) ([]runner, error) {
	ch := n.Children()
	out := make([]runner, len(ch))
	for i, c := range ch {
		r, err := b.buildNode(c)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// nullAwareCond rewrites the condition of a null-aware (NOT IN) anti join
// without equality keys so that a plain anti join computes it: its first
// conjunct is the NOT IN comparison, where unknown counts as a match (IS
// NOT FALSE); the other conjuncts are the correlation, a WHERE clause.
func nullAwareCond(cond logical.Expr, naa bool) logical.Expr {
	if !naa || cond == nil {
		return cond
	}
	cs := logical.Conjuncts(cond)
	first := logical.NewCall(function.OpIsNotFalse, types.BooleanT.WithNullable(false), cs[0])
	return logical.And(append([]logical.Expr{first}, cs[1:]...)...)
}

func (b *builder) joinSpec(left, right physical.Node, kind logical.JoinKind, cond logical.Expr, naa bool, out *arrow.Schema) (ops.JoinSpec, error) {
	ls, err := arrowSchema("left input", left.Schema())
	if err != nil {
		return ops.JoinSpec{}, err
	}
	rs, err := arrowSchema("right input", right.Schema())
	if err != nil {
		return ops.JoinSpec{}, err
	}
	spec := ops.JoinSpec{Kind: kind, NullAwareAnti: naa, Left: ls, Right: rs, Out: out}
	if cond != nil {
		both := append(append(types.Schema{}, left.Schema()...), right.Schema()...)
		if spec.Cond, err = b.compileFilter(cond, both); err != nil {
			return ops.JoinSpec{}, err
		}
	}
	return spec, nil
}
