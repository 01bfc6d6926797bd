package ops

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Two-phase (local/global) streaming aggregation over an insert-only
// input. The local side pre-aggregates each bundle into partial state
// (agg.Merger.State) and emits it as insert rows; the global side merges
// those rows into its per-group state (agg.Merger.Merge) and emits one net
// change per group and bundle.

// newMergers makes one Merger per call over input in and checks that the
// state columns of schema stateOut, starting at column first, have their
// types. Calls of user-defined aggregates become script accumulators
// through sf (their state: the exported accumulator); a script
// accumulator of reuse (the previous bundle's) is emptied and kept with
// its interpreter.
func newMergers(calls []logical.AggCall, in types.Schema, stateOut *arrow.Schema, first int, sf scriptFuncs, reuse []agg.Merger) (_ []agg.Merger, _ [][]int, err error) {
	accs := make([]agg.Merger, len(calls))
	cols := make([][]int, len(calls))
	defer func() {
		if err != nil {
			closeMergers(accs)
		}
	}()
	col := first
	for i, c := range calls {
		if c.User {
			if i < len(reuse) {
				if sa, ok := reuse[i].(*scriptAccumulator); ok && sa.inst != nil {
					sa.resetGroups()
					accs[i], reuse[i] = sa, nil
				}
			}
			if accs[i] == nil {
				sa, ok, err := sf.accumulator(c, in)
				if err != nil {
					return nil, nil, err
				}
				if !ok {
					return nil, nil, fmt.Errorf("internal: no script implementation of the aggregate function '%s'", c.Name)
				}
				if !sa.canMerge || sa.distinct != nil {
					sa.close()
					return nil, nil, fmt.Errorf("internal: %s cannot split into local and global phases", c)
				}
				accs[i] = sa
			}
			if col >= stateOut.NumFields() || stateOut.Field(col).Type.ID() != arrow.BINARY {
				return nil, nil, fmt.Errorf("internal: state column %d of %s is not BINARY", col, c)
			}
			cols[i] = []int{col}
			col++
			continue
		}
		argTypes := make([]arrow.DataType, len(c.Args))
		for j, a := range c.Args {
			if a < 0 || a >= len(in) {
				return nil, nil, fmt.Errorf("internal: aggregate input column $%d out of range", a)
			}
			t, err := types.ArrowType(in[a].Type)
			if err != nil {
				return nil, nil, err
			}
			argTypes[j] = t
		}
		acc, err := agg.NewAccumulator(accumulatorName(c), argTypes, nil, c.Distinct)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c, err)
		}
		m, ok := agg.MergerOf(acc)
		if !ok {
			return nil, nil, fmt.Errorf("internal: %s cannot split into local and global phases", c)
		}
		sts := m.StateTypes()
		if c.Distinct {
			// the distinct values travel in a shared distinct column
			// (group_aggregate_distinct.go); the call's columns hold the
			// inner aggregate's state
			sts = sts[1:]
		}
		for _, st := range sts {
			if col >= stateOut.NumFields() || !arrow.TypeEqual(stateOut.Field(col).Type, st) {
				return nil, nil, fmt.Errorf("internal: state column %d of %s is not %s", col, c, st)
			}
			cols[i] = append(cols[i], col)
			col++
		}
		accs[i] = m
	}
	return accs, cols, nil
}

// closeMergers returns the interpreters of the script accumulators among
// accs.
func closeMergers(accs []agg.Merger) {
	for _, a := range accs {
		if sa, ok := a.(*scriptAccumulator); ok {
			sa.close()
		}
	}
}

// SetFunctions gives the local aggregate the evaluation context passed to
// user-defined (script) aggregate functions. Call before Open.
func (l *LocalGroupAggregate) SetFunctions(ectx *function.EvalContext) {
	l.scripts = scriptFuncs{ectx: ectx}
}

// SetFunctions gives the global aggregate the evaluation context of
// user-defined aggregate functions. Call before Open.
func (g *GlobalGroupAggregate) SetFunctions(ectx *function.EvalContext) {
	g.scripts = scriptFuncs{ectx: ectx}
}

// LocalGroupAggregate is the local phase: per bundle, partial state per
// group.
type LocalGroupAggregate struct {
	groupKeys []int
	calls     []logical.AggCall
	in        types.Schema
	out       *arrow.Schema
	size      int64

	table    agg.GroupTable
	accs     []agg.Merger
	scripts  scriptFuncs   // user-defined aggregates (script_agg.go)
	distinct *distinctCols // DISTINCT calls (group_aggregate_distinct.go)
	rows     int64
	ids      []uint32
	keyBuf   []arrow.Array
	argBuf   [][]arrow.Array
}

var _ vectorized.Operator = (*LocalGroupAggregate)(nil)

// NewLocalGroupAggregate returns the local phase of calls grouped by the
// input columns groupKeys, producing out (group columns, then the state
// columns of every call). A bundle also closes after size rows (<= 0:
// only on markers).
func NewLocalGroupAggregate(groupKeys []int, calls []logical.AggCall, in types.Schema, out *arrow.Schema, size int64) *LocalGroupAggregate {
	return &LocalGroupAggregate{groupKeys: groupKeys, calls: calls, in: in, out: out, size: size}
}

// Open implements vectorized.Operator.
func (l *LocalGroupAggregate) Open(context.Context) error {
	l.keyBuf = make([]arrow.Array, len(l.groupKeys))
	l.argBuf = make([][]arrow.Array, len(l.calls))
	for i, c := range l.calls {
		l.argBuf[i] = make([]arrow.Array, len(c.Args))
	}
	return l.reset()
}

// reset starts a new bundle.
func (l *LocalGroupAggregate) reset() error {
	l.table = nil
	if len(l.groupKeys) > 0 {
		kts := make([]arrow.DataType, len(l.groupKeys))
		for i, k := range l.groupKeys {
			if k < 0 || k >= len(l.in) {
				return fmt.Errorf("internal: group key $%d out of range", k)
			}
			t, err := types.ArrowType(l.in[k].Type)
			if err != nil {
				return err
			}
			kts[i] = t
		}
		t, err := agg.NewGroupTable(kts)
		if err != nil {
			return err
		}
		l.table = t
	}
	accs, cols, err := newMergers(l.calls, l.in, l.out, len(l.groupKeys), l.scripts, l.accs)
	if err != nil {
		return err
	}
	closeMergers(l.accs) // what was not reused
	l.accs = accs
	l.rows = 0
	if l.distinct == nil {
		if l.distinct, err = newDistinctCols(l.calls, l.out, stateEnd(cols, len(l.groupKeys))); err != nil {
			return err
		}
	}
	return nil
}

// stateEnd returns the column after the state columns cols of the calls,
// which start at column first.
func stateEnd(cols [][]int, first int) int {
	end := first
	for _, c := range cols {
		for _, x := range c {
			end = max(end, x+1)
		}
	}
	return end
}

// Process implements vectorized.Operator.
func (l *LocalGroupAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	if b.Kinds != nil {
		for _, k := range b.Kinds {
			if k.IsRetraction() {
				return fmt.Errorf("internal: LocalGroupAggregate received %s", k)
			}
		}
	}
	rec := b.Rec
	l.ids = resize(l.ids, n)
	groups := 1
	if l.table != nil {
		for i, k := range l.groupKeys {
			l.keyBuf[i] = rec.Column(k)
		}
		if err := l.table.Insert(l.keyBuf, n, l.ids); err != nil {
			return err
		}
		groups = l.table.Len()
	} else {
		clear(l.ids)
	}
	for i, acc := range l.accs {
		acc.Resize(groups)
		c := l.calls[i]
		for k, a := range c.Args {
			l.argBuf[i][k] = rec.Column(a)
		}
		var filter *array.Boolean
		if c.Filter >= 0 {
			f, ok := rec.Column(c.Filter).(*array.Boolean)
			if !ok {
				return fmt.Errorf("internal: aggregate filter column $%d is %s", c.Filter, rec.Column(c.Filter).DataType())
			}
			filter = f
		}
		if err := acc.Update(l.ids, l.argBuf[i], filter); err != nil {
			return err
		}
	}
	l.rows += int64(n)
	if l.size > 0 && l.rows >= l.size {
		return l.flush(ctx, out)
	}
	return nil
}

// flush emits the partial state of the bundle and starts a new one.
func (l *LocalGroupAggregate) flush(ctx context.Context, out vectorized.Collector) error {
	if l.rows == 0 {
		return nil
	}
	groups := 1
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if l.table != nil {
		groups = l.table.Len()
		cols = append(cols, l.table.Keys(vectorized.Mem)...)
	}
	var lists []arrow.Array // the DISTINCT calls' values
	if l.distinct.n > 0 {
		lists = make([]arrow.Array, len(l.accs))
		defer releaseArrays(lists)
	}
	for i, acc := range l.accs {
		acc.Resize(groups)
		st, err := acc.State(vectorized.Mem)
		if err != nil {
			return err
		}
		if l.distinct.col[i] >= 0 {
			lists[i], st = st[0], st[1:]
		}
		cols = append(cols, st...)
	}
	if l.distinct.n > 0 {
		dc, err := l.distinct.pack(vectorized.Mem, lists, groups)
		if err != nil {
			return err
		}
		cols = append(cols, dc...)
	}
	rec, err := NewRecord(l.out, cols, int64(groups))
	if err != nil {
		return err
	}
	if err := l.reset(); err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// OnMarker implements vectorized.Operator: EndOfBundle, a checkpoint
// barrier and EndOfInput close the bundle; every marker is forwarded.
func (l *LocalGroupAggregate) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	switch mk.Kind {
	case vectorized.EndOfBundle, vectorized.EndOfInput, vectorized.CheckpointBarrier:
		if err := l.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, mk)
}

// Close implements vectorized.Operator.
func (l *LocalGroupAggregate) Close() error {
	closeMergers(l.accs)
	l.table, l.accs = nil, nil
	return nil
}

// GlobalGroupAggregate is the global phase: it merges partial states per
// group and emits net changes per bundle.
type GlobalGroupAggregate struct {
	groupKeys []int
	calls     []logical.AggCall
	stateCols [][]int
	localIn   types.Schema
	in        *arrow.Schema
	out       *arrow.Schema
	opts      GroupAggregateOptions
	buf       bundleBuffer

	table    agg.GroupTable
	accs     []agg.Merger
	scripts  scriptFuncs   // user-defined aggregates (script_agg.go)
	distinct *distinctCols // DISTINCT calls (group_aggregate_distinct.go)
	nGroups  int
	ids      []uint32
	keyBuf   []arrow.Array
	stBuf    []arrow.Array
	seen     []uint32
	last     []int32
	epoch    uint32
	ttl      groupTTL     // state TTL (state_agg.go)
	delta    deltaTracker // incremental snapshots (state_agg_delta.go)
	disk     *aggDisk     // state.backend.type 'rocksdb' (state_agg_disk.go)
	existed  []bool       // per group of a bundle on disk: it had state before
}

var _ vectorized.Operator = (*GlobalGroupAggregate)(nil)

// NewGlobalGroupAggregate returns the global phase over input in (group
// columns groupKeys, the state of calls[i] in columns stateCols[i]);
// localIn is the local phase's input (the calls' argument types). A
// bundle also closes after size rows (<= 0: only on markers).
func NewGlobalGroupAggregate(groupKeys []int, calls []logical.AggCall, stateCols [][]int, localIn types.Schema, in, out *arrow.Schema, opts GroupAggregateOptions, size int64) *GlobalGroupAggregate {
	return &GlobalGroupAggregate{groupKeys: groupKeys, calls: calls, stateCols: stateCols, localIn: localIn, in: in, out: out, opts: opts, buf: bundleBuffer{size: size}}
}

// Open implements vectorized.Operator.
func (g *GlobalGroupAggregate) Open(context.Context) error {
	if g.out.NumFields() != len(g.groupKeys)+len(g.calls) || len(g.stateCols) != len(g.calls) {
		return fmt.Errorf("internal: global aggregate of %d columns for %d keys and %d calls", g.out.NumFields(), len(g.groupKeys), len(g.calls))
	}
	if len(g.groupKeys) > 0 {
		kts := make([]arrow.DataType, len(g.groupKeys))
		for i, k := range g.groupKeys {
			kts[i] = g.in.Field(k).Type
		}
		t, err := agg.NewGroupTable(kts)
		if err != nil {
			return err
		}
		g.table = t
		g.keyBuf = make([]arrow.Array, len(g.groupKeys))
	}
	first := len(g.groupKeys)
	accs, cols, err := newMergers(g.calls, g.localIn, g.in, first, g.scripts, nil)
	if err != nil {
		return err
	}
	for i := range cols {
		if fmt.Sprint(cols[i]) != fmt.Sprint(g.stateCols[i]) {
			closeMergers(accs)
			return fmt.Errorf("internal: state columns %v of %s, want %v", g.stateCols[i], g.calls[i], cols[i])
		}
	}
	g.accs = accs
	if g.distinct, err = newDistinctCols(g.calls, g.in, stateEnd(cols, first)); err != nil {
		return err
	}
	if g.disk != nil {
		return g.openDisk()
	}
	return nil
}

// Process implements vectorized.Operator: the batch is buffered.
func (g *GlobalGroupAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if g.buf.add(b) {
		return g.flush(ctx, out)
	}
	return nil
}

// OnMarker implements vectorized.Operator: EndOfBundle, a checkpoint
// barrier and EndOfInput close the bundle; every marker is forwarded.
func (g *GlobalGroupAggregate) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	switch mk.Kind {
	case vectorized.EndOfBundle, vectorized.EndOfInput, vectorized.CheckpointBarrier:
		if err := g.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, mk)
}

func (g *GlobalGroupAggregate) flush(ctx context.Context, out vectorized.Collector) error {
	b, err := g.buf.take(g.in)
	if err != nil || b.NumRows() == 0 {
		return err
	}
	n := b.NumRows()
	rec := b.Rec
	g.ids = resize(g.ids, n)
	old := g.nGroups
	var found []uint32 // groups new to the cache that the store had
	if g.disk != nil {
		if old, found, err = g.diskBundle(ctx, rec, n); err != nil { // state_agg_disk.go
			return err
		}
	} else if g.table != nil {
		for i, k := range g.groupKeys {
			g.keyBuf[i] = rec.Column(k)
		}
		if err := g.table.Insert(g.keyBuf, n, g.ids); err != nil {
			return err
		}
		g.nGroups = g.table.Len()
	} else {
		clear(g.ids)
		g.nGroups = 1
	}
	if g.disk != nil {
		// expiry was handled by diskBundle
	} else if rebuilt, err := g.expireTouched(ctx, g.ids); err != nil {
		return err
	} else if rebuilt {
		// the expired groups are gone: the bundle's keys again
		old = g.nGroups
		if g.table != nil {
			if err := g.table.Insert(g.keyBuf, n, g.ids); err != nil {
				return err
			}
			g.nGroups = g.table.Len()
		} else {
			g.nGroups = 1
		}
	}
	g.touchAccess(g.ids)
	g.delta.mark(g.ids, g.nGroups)
	// existed: the group had state before the bundle
	if len(g.existed) < g.nGroups {
		g.existed = append(g.existed, make([]bool, g.nGroups-len(g.existed))...)
	}
	for _, id := range found {
		g.existed[id] = true
	}
	existed := func(id uint32) bool { return int(id) < old || g.existed[id] }
	for len(g.seen) < g.nGroups {
		g.seen = append(g.seen, 0)
		g.last = append(g.last, 0)
	}
	g.epoch++
	var touched []uint32
	for i, id := range g.ids {
		if g.seen[id] != g.epoch {
			g.seen[id] = g.epoch
			touched = append(touched, id)
		}
		g.last[id] = int32(i)
	}
	// The results of the touched groups before the bundle (those that
	// existed) and after it: only the bundle's groups are evaluated.
	var prevIDs []uint32
	for _, id := range touched {
		if existed(id) {
			prevIDs = append(prevIDs, id)
		}
	}
	vals := make([]arrow.Array, len(g.accs))
	defer releaseArrays(vals)
	for i, acc := range g.accs {
		acc.Resize(g.nGroups)
		var before arrow.Array
		if len(prevIDs) > 0 {
			var err error
			if before, err = evaluateIDs(acc, prevIDs); err != nil {
				return err
			}
		}
		err := g.distinct.mergeCall(acc, i, g.ids, rec, g.stateCols[i], true, &g.stBuf)
		var after arrow.Array
		if err == nil {
			after, err = evaluateIDs(acc, touched)
		}
		if err != nil {
			releaseArrays([]arrow.Array{before})
			return err
		}
		// values: the before results of prevIDs, then the after results
		// of touched
		if before == nil {
			vals[i] = after
		} else {
			vals[i], err = array.Concatenate([]arrow.Array{before, after}, vectorized.Mem)
			before.Release()
			after.Release()
			if err != nil {
				return err
			}
		}
	}
	cmps := make([]func(i, j int) bool, len(vals))
	for i, v := range vals {
		cmps[i] = sameValueFunc(v)
	}
	keyIdx := make([]int32, 0, 2*len(touched))
	valIdx := make([]int32, 0, 2*len(touched))
	kinds := make([]changelog.RowKind, 0, 2*len(touched))
	add := func(row, v int32, k changelog.RowKind) {
		keyIdx = append(keyIdx, row)
		valIdx = append(valIdx, v)
		kinds = append(kinds, k)
	}
	nPrev, p := int32(len(prevIDs)), int32(0)
	for t, id := range touched {
		row := g.last[id]
		now := nPrev + int32(t)
		if !existed(id) {
			add(row, now, changelog.Insert)
			continue
		}
		was := p
		p++
		changed := g.opts.StateTTL > 0
		for _, same := range cmps {
			if changed {
				break
			}
			changed = !same(int(was), int(now))
		}
		if !changed {
			continue
		}
		if !g.opts.NoUpdateBefore {
			add(row, was, changelog.UpdateBefore)
		}
		add(row, now, changelog.UpdateAfter)
	}
	for _, id := range found {
		g.existed[id] = false
	}
	return emitChanges(ctx, out, g.out, rec, g.groupKeys, keyIdx, vals, valIdx, kinds)
}

// Close implements vectorized.Operator.
func (g *GlobalGroupAggregate) Close() error {
	closeMergers(g.accs)
	g.table, g.accs, g.buf = nil, nil, bundleBuffer{}
	return g.disk.close()
}

// evaluateIDs returns the results of groups ids of acc: only those when
// it can (agg.IDEvaluator), else every group's, gathered.
func evaluateIDs(acc agg.Accumulator, ids []uint32) (arrow.Array, error) {
	if e, ok := acc.(agg.IDEvaluator); ok {
		a, err := e.EvaluateIDs(vectorized.Mem, ids)
		if !errors.Is(err, agg.ErrNoIDEvaluator) {
			return a, err
		}
	}
	all, err := acc.Evaluate(vectorized.Mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	idx := make([]int32, len(ids))
	for i, g := range ids {
		idx[i] = int32(g)
	}
	return GatherArray(all, idx)
}
