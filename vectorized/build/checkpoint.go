package build

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/checkpoint"
)

// Checkpoints of a streaming run (Env.Checkpoint).
//
// Every participant is a task: one instance of a source, of a stateful
// operator or of a sink, named by the operator's stable id in the plan
// ("<preorder index>-<node name>") and its subtask. The coordinator asks
// the sources for checkpoint n; each source, between two of its batches,
// writes its position and emits barrier n in-band. A single-input
// operator writes its state when the barrier leaves it (after a mini-batch
// bundle the barrier flushed); multi-input operators and exchange hubs
// align the barrier over their live inputs first. Sinks pre-commit on the
// barrier and commit when the coordinator reports n complete. A task whose
// input has ended (a finished source, an operator after EndOfInput, a sink
// that published everything) hands its final state to the coordinator once,
// which answers every later checkpoint with it (Flink's FLIP-147), so
// checkpoints go on while a bounded side input has finished.
//
// A run that restores (CheckpointSettings.Restore) hands every task the
// state of its operator from the checkpoint before the first row, so the
// sources continue after their positions and the operators from their
// state.

// CheckpointSettings turns checkpointing on for a streaming run.
type CheckpointSettings struct {
	// Config configures the coordinator (directory, interval, retention,
	// tolerable failures, job id).
	Config checkpoint.Config
	// Restore, when not nil, is the checkpoint or savepoint the run starts
	// from.
	Restore *checkpoint.Restored
	// IgnoreUnclaimed lets a restore leave the state of operators the
	// plan does not have unused; otherwise such state fails the run
	// (execution.savepoint.ignore-unclaimed-state).
	IgnoreUnclaimed bool
	// Started, when not nil, receives the run's coordinator once the run
	// starts (the session keeps it for SHOW JOBS and savepoints).
	Started func(c *checkpoint.Coordinator)
}

// ckState is the checkpointing of one run while it is built and runs.
type ckState struct {
	set     *CheckpointSettings
	ids     map[physical.Node]string
	tasks   []checkpoint.TaskID
	sources []*injector
	commits []func(id int64)
	// listeners learn which checkpoints completed (incremental snapshots)
	listeners []vectorized.CheckpointListener
	coord     *checkpoint.Coordinator
}

// assignIDs numbers the nodes of plan in preorder: a node's id is stable
// as long as the plan's shape is (the same SQL), whatever the parallelism.
func (c *ckState) assignIDs(plan physical.Node) {
	c.ids = map[physical.Node]string{}
	i := 0
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		if _, ok := c.ids[n]; !ok {
			c.ids[n] = fmt.Sprintf("%d-%s", i, n.Name())
			i++
		}
		for _, ch := range n.Children() {
			walk(ch)
		}
	}
	walk(plan)
}

// statelessNode reports the nodes whose operators keep nothing across a
// barrier (physical.Stateless).
func statelessNode(n physical.Node) bool {
	s, ok := n.(physical.Stateless)
	return ok && s.Stateless()
}

// task returns the task of the instance of n being built.
func (b *builder) task(n physical.Node) (checkpoint.TaskID, int, int) {
	sub, par := 0, 1
	if b.inst >= 0 {
		sub, par = b.inst, b.par
	}
	return checkpoint.TaskID{Operator: b.ck.ids[n], Subtask: sub}, sub, par
}

// attachCheckpoint registers the runner of n as a participant of
// checkpoints, or fails when n keeps state it cannot snapshot.
func (b *builder) attachCheckpoint(n physical.Node, r runner) error {
	c := b.ck
	notSupported := func(what string) error {
		return fmt.Errorf("not supported yet: checkpointing %s (%s); turn execution.checkpointing.interval off for this job", n.Name(), what)
	}
	switch r := r.(type) {
	case *sourceRunner:
		src, ok := r.src.(vectorized.CheckpointedSource)
		if !ok {
			what := "this source"
			if s, ok := n.(*physical.TableSourceScan); ok {
				what = fmt.Sprintf("the source of table %s (connector '%s')", s.Table.ID, s.Table.Table.Options["connector"])
			}
			return notSupported(what + " cannot report its position")
		}
		t, sub, par := b.task(n)
		inj := &injector{ck: c, task: t, src: src}
		r.ck = &runnerCk{ck: c, task: t, sub: sub, par: par}
		r.inj = inj
		c.tasks = append(c.tasks, t)
		c.sources = append(c.sources, inj)
		if l, ok := r.src.(vectorized.CheckpointListener); ok {
			// a source that acts on completed checkpoints (kafka commits
			// their offsets to its group)
			c.listeners = append(c.listeners, l)
		}
	case *unaryRunner:
		t, sub, par := b.task(n)
		if r.sink != nil {
			r.ck = &runnerCk{ck: c, task: t, sub: sub, par: par}
			c.tasks = append(c.tasks, t)
			if tp, ok := r.sink.(connectors.TwoPhaseSink); ok {
				c.commits = append(c.commits, func(id int64) {
					if err := tp.Commit(context.Background(), id); err != nil && c.set.Config.Logf != nil {
						c.set.Config.Logf("Committing checkpoint %d of %s failed: %v", id, t, err)
					}
				})
			}
			return nil
		}
		if s, ok := stateOf(r.op); ok {
			r.ck = &runnerCk{ck: c, task: t, sub: sub, par: par}
			c.tasks = append(c.tasks, t)
			if l, ok := s.(vectorized.CheckpointListener); ok {
				c.listeners = append(c.listeners, l)
			}
			return nil
		}
		if !statelessNode(n) {
			return notSupported("its operator cannot snapshot its state")
		}
	case *multiRunner:
		t, sub, par := b.task(n)
		if _, ok := r.op.(vectorized.Stateful); ok {
			r.ck = &runnerCk{ck: c, task: t, sub: sub, par: par}
			c.tasks = append(c.tasks, t)
			if l, ok := r.op.(vectorized.CheckpointListener); ok {
				c.listeners = append(c.listeners, l)
			}
			return nil
		}
		if !statelessNode(n) {
			return notSupported("its operator cannot snapshot its state")
		}
	case *hubConsumer:
	case *unionRunner:
		// Constant inputs only (bounded VALUES): nothing to keep.
	default:
		return notSupported("no checkpoint support in its runner")
	}
	return nil
}

// stateOf returns the Stateful of an operator (through the fused
// local/global aggregate of one-phase mini-batch).
func stateOf(op vectorized.Operator) (vectorized.Stateful, bool) {
	if f, ok := op.(*fusedOp); ok {
		s, ok := f.second.(vectorized.Stateful)
		return s, ok
	}
	s, ok := op.(vectorized.Stateful)
	return s, ok
}

// runnerCk is a runner's task in the checkpoints.
type runnerCk struct {
	ck       *ckState
	task     checkpoint.TaskID
	sub, par int
	finished bool // its final state went to the coordinator
}

// reader returns the task's state in the restored checkpoint, or nil.
func (r *runnerCk) reader() vectorized.StateReader {
	if r == nil || r.ck.set.Restore == nil {
		return nil
	}
	return r.ck.set.Restore.Reader(r.task.Operator, r.sub, r.par)
}

// finish hands the task's final state to the coordinator once its input
// has ended; later checkpoints reuse it (checkpoint/finished.go).
func (r *runnerCk) finish(write func(w vectorized.StateWriter) error) {
	if r.ck.coord == nil || r.finished {
		return
	}
	r.finished = true
	if err := r.ck.coord.Finish(r.task, write); err != nil {
		r.ck.logf("%v", err)
	}
}

// logf reports a checkpointing problem that does not stop the run.
func (c *ckState) logf(format string, args ...any) {
	if c.set.Config.Logf != nil {
		c.set.Config.Logf(format, args...)
	}
}

// snapshot writes the task's state for checkpoint id. A failure fails
// the checkpoint (the coordinator counts it); the run goes on.
func (r *runnerCk) snapshot(id int64, write func(w vectorized.StateWriter) error) {
	if r.ck.coord == nil {
		return
	}
	_ = r.ck.coord.Snapshot(id, r.task, write)
}

// stateCollector sits after a stateful single-input operator: when a
// barrier leaves the operator it snapshots the operator, then forwards
// the barrier.
type stateCollector struct {
	out   vectorized.Collector
	ck    *runnerCk
	state vectorized.Stateful
}

// Emit implements vectorized.Collector.
func (c *stateCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	return c.out.Emit(ctx, b)
}

// EmitMarker implements vectorized.Collector.
func (c *stateCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	switch m.Kind {
	case vectorized.CheckpointBarrier:
		c.ck.snapshot(m.Checkpoint, func(w vectorized.StateWriter) error { return c.state.SnapshotState(ctx, w) })
	case vectorized.EndOfInput:
		// The input ended: this state is final (checkpoint/finished.go).
		c.ck.finish(func(w vectorized.StateWriter) error { return c.state.SnapshotState(ctx, w) })
	}
	return c.out.EmitMarker(ctx, m)
}

// sinkCk is the operator of a sink task: it pre-commits a two-phase sink
// on the barrier, flushes a FlushingSink, and a plain sink just
// acknowledges (at-least-once).
type sinkCk struct {
	vectorized.Operator
	sink connectors.Sink
	ck   *runnerCk
}

// OnMarker implements vectorized.Operator.
func (s *sinkCk) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.CheckpointBarrier {
		if fs, ok := s.sink.(connectors.FlushingSink); ok {
			// At-least-once: what the checkpoint covers is written first.
			if err := fs.Flush(ctx); err != nil {
				return err
			}
		}
		tp, ok := s.sink.(connectors.TwoPhaseSink)
		s.ck.snapshot(m.Checkpoint, func(w vectorized.StateWriter) error {
			if !ok {
				return nil
			}
			return tp.PreCommit(ctx, m.Checkpoint, w)
		})
	}
	if fc, ok := s.sink.(connectors.FinalCheckpointSink); ok && m.Kind == vectorized.EndOfInput && s.ck.ck.coord != nil {
		// The final checkpoint (FLIP-147): the rows after the last
		// checkpoint go into the task's final state, which the next
		// checkpoint includes; the sink's Finish waits for its commit.
		var perr error
		s.ck.finish(func(w vectorized.StateWriter) error {
			perr = fc.PreCommitFinal(ctx, w)
			return perr
		})
		if perr != nil {
			return perr
		}
	}
	if err := s.Operator.OnMarker(ctx, m, out); err != nil {
		return err
	}
	if m.Kind == vectorized.EndOfInput {
		// Finished: everything is published, nothing is left to commit.
		s.ck.finish(func(vectorized.StateWriter) error { return nil })
	}
	return nil
}

// restoreOp restores a unary runner's operator or sink after Open.
func (r *unaryRunner) restore(ctx context.Context) error {
	rd := r.ck.reader()
	if rd == nil {
		return nil
	}
	if r.sink != nil {
		if tp, ok := r.sink.(connectors.TwoPhaseSink); ok {
			return tp.RestoreState(ctx, rd)
		}
		return nil
	}
	if s, ok := stateOf(r.op); ok {
		return s.RestoreState(ctx, rd)
	}
	return nil
}

// injector puts a source's barriers into its output.
type injector struct {
	ck   *ckState
	task checkpoint.TaskID
	src  vectorized.CheckpointedSource

	mu       sync.Mutex
	pending  int64 // highest checkpoint requested
	injected int64 // highest checkpoint injected
	finished bool
	waker    func() // wakes the source's wait to inject (source_wait.go)
}

// request asks for barrier id (called by the coordinator's trigger).
func (in *injector) request(id int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if id > in.pending {
		in.pending = id
	}
	if in.waker != nil {
		in.waker() // a waiting source injects now (source_wait.go)
	}
}

// finish records the end of the source: no barrier can follow, so its
// final position answers the later checkpoints.
func (in *injector) finish() {
	in.mu.Lock()
	in.finished = true
	in.mu.Unlock()
	if c := in.ck.coord; c != nil {
		// Its final position answers every later checkpoint
		// (checkpoint/finished.go).
		if err := c.Finish(in.task, in.src.SnapshotPosition); err != nil {
			in.ck.logf("%v", err)
		}
	}
}

// maybeInject snapshots the position and emits the barrier of a pending
// checkpoint; it runs inside the source's Emit calls.
func (in *injector) maybeInject(ctx context.Context, out vectorized.Collector) error {
	in.mu.Lock()
	id := in.pending
	if id <= in.injected || in.finished {
		in.mu.Unlock()
		return nil
	}
	in.injected = id
	in.mu.Unlock()
	if c := in.ck.coord; c != nil {
		_ = c.Snapshot(id, in.task, in.src.SnapshotPosition)
	}
	return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.CheckpointBarrier, Checkpoint: id})
}

// injectCollector is a source's collector with barrier injection.
type injectCollector struct {
	out vectorized.Collector
	in  *injector
}

// Emit implements vectorized.Collector.
func (c *injectCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	if err := c.out.Emit(ctx, b); err != nil {
		return err
	}
	return c.in.maybeInject(ctx, c.out)
}

// EmitMarker implements vectorized.Collector.
func (c *injectCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	if err := c.out.EmitMarker(ctx, m); err != nil {
		return err
	}
	if m.Kind == vectorized.CheckpointBarrier {
		return nil
	}
	return c.in.maybeInject(ctx, c.out)
}

// startCheckpoints creates and starts the run's coordinator.
func (b *builder) startCheckpoints(ctx context.Context) (stop func(), failed <-chan error, err error) {
	c := b.ck
	if err := c.checkClaimed(); err != nil {
		return nil, nil, err
	}
	coord, err := checkpoint.NewCoordinator(c.set.Config, c.tasks, func(id int64) {
		for _, s := range c.sources {
			s.request(id)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if c.set.Restore != nil {
		coord.SetFirstID(c.set.Restore.ID() + 1)
	}
	for _, fn := range c.commits {
		coord.OnComplete(fn)
	}
	for _, l := range c.listeners {
		coord.OnComplete(l.NotifyCheckpointComplete)
		coord.OnAbort(l.NotifyCheckpointAborted)
	}
	c.coord = coord
	if c.set.Started != nil {
		c.set.Started(coord)
	}
	coord.Start(ctx)
	return coord.Stop, coord.Failed(), nil
}

// checkpointed wraps the root runner so that a checkpoint failure beyond
// the tolerable number fails the run.
type checkpointedRun struct {
	inner  runner
	failed <-chan error
}

func (r *checkpointedRun) run(ctx context.Context, out vectorized.Collector) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case err := <-r.failed:
			cancel(err)
		case <-done:
		}
	}()
	err := r.inner.run(ctx, out)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// checkClaimed refuses a restore that would leave state unused: a
// checkpoint operator id no task of the plan has (the SQL changed, or the
// metadata names an operator wrongly) means rows would be lost silently.
func (c *ckState) checkClaimed() error {
	r := c.set.Restore
	if r == nil || c.set.IgnoreUnclaimed {
		return nil
	}
	claimed := map[string]bool{}
	for _, t := range c.tasks {
		claimed[t.Operator] = true
	}
	var unclaimed []string
	for _, op := range r.Operators() {
		if !claimed[op] {
			unclaimed = append(unclaimed, op)
		}
	}
	if len(unclaimed) == 0 {
		return nil
	}
	return fmt.Errorf("Failed to rollback to checkpoint/savepoint %s. Cannot map checkpoint/savepoint state for operator %s to the new program, "+
		"because the operator is not available in the new program. If you want to allow to skip this, you can set '%s' to 'true'.",
		r.Path(), strings.Join(unclaimed, ", "), "execution.savepoint.ignore-unclaimed-state")
}
