package ops

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Two-phase window aggregation (TUMBLE, HOP, CUMULATE over event time).
// LocalWindowAggregate pre-aggregates its rows per window and key into
// accumulator state (agg.Merger.State) and emits it, with the window end
// in a $slice_end BIGINT column, whenever a buffered window may fire (the
// watermark reached its end), at the end of a bundle, before a checkpoint
// barrier and at the end of the input: it keeps nothing across a flush.
// GlobalWindowAggregate merges those rows per window and key
// (agg.Merger.Merge) and fires windows on the watermark as WindowAggregate
// does. A "slice" here is the whole window: a HOP or CUMULATE row is
// pre-aggregated once per window it belongs to.

// windowGroups is the accumulator state of one window: a group table (nil
// without keys) and one Merger per call.
type windowGroups struct {
	table   agg.GroupTable
	accs    []agg.Merger
	nGroups int
}

// newWindowGroups returns the empty state of one window for keys of types
// kts and the mergers of calls over localIn, whose state columns in
// stateSchema start at column first.
// The calls' state columns are returned too (a DISTINCT call's values
// travel in a distinct column after them: group_aggregate_distinct.go).
func newWindowGroups(kts []arrow.DataType, calls []logical.AggCall, localIn types.Schema, stateSchema *arrow.Schema, first int, sf scriptFuncs) (*windowGroups, [][]int, error) {
	g := &windowGroups{}
	if len(kts) > 0 {
		t, err := agg.NewGroupTable(kts)
		if err != nil {
			return nil, nil, err
		}
		g.table = t
	}
	accs, cols, err := newMergers(calls, localIn, stateSchema, first, sf, nil)
	if err != nil {
		return nil, nil, err
	}
	g.accs = accs
	return g, cols, nil
}

// insert looks up the keys of n rows into ids and resizes the mergers.
func (g *windowGroups) insert(keys []arrow.Array, n int, ids []uint32) error {
	if g.table != nil {
		if err := g.table.Insert(keys, n, ids); err != nil {
			return err
		}
		g.nGroups = g.table.Len()
	} else {
		clear(ids[:n])
		if n > 0 {
			g.nGroups = 1
		}
	}
	for _, a := range g.accs {
		a.Resize(g.nGroups)
	}
	return nil
}

// keys returns the group keys in group-id order (the caller releases).
func (g *windowGroups) keys() []arrow.Array {
	if g.table == nil {
		return nil
	}
	return g.table.Keys(vectorized.Mem)
}

// windowRows groups the row indexes of a batch by window, in order of
// first appearance; consecutive rows mostly share their windows, so each
// window position of a row is first compared with the previous row's.
type windowRows struct {
	index map[[2]int64]int
	wins  [][2]int64
	rows  [][]int32
	cache [][2]int64 // per window position, the last window seen
	cidx  []int
}

// reset empties the grouping, keeping its memory.
func (w *windowRows) reset() {
	if w.index == nil {
		w.index = map[[2]int64]int{}
	}
	clear(w.index)
	w.wins = w.wins[:0]
	w.rows = w.rows[:0]
	w.cache, w.cidx = w.cache[:0], w.cidx[:0]
}

// add puts row into win, the slot-th window of the row.
func (w *windowRows) add(slot int, win [2]int64, row int32) {
	for len(w.cache) <= slot {
		w.cache = append(w.cache, [2]int64{math.MinInt64, math.MinInt64})
		w.cidx = append(w.cidx, -1)
	}
	idx := w.cidx[slot]
	if idx < 0 || w.cache[slot] != win {
		var ok bool
		if idx, ok = w.index[win]; !ok {
			idx = len(w.wins)
			w.index[win] = idx
			w.wins = append(w.wins, win)
			if idx < cap(w.rows) {
				w.rows = w.rows[:idx+1]
				w.rows[idx] = w.rows[idx][:0]
			} else {
				w.rows = append(w.rows, nil)
			}
		}
		w.cache[slot], w.cidx[slot] = win, idx
	}
	w.rows[idx] = append(w.rows[idx], row)
}

// sortWindows orders windows by end, then start.
func sortWindows(wins [][2]int64) {
	sort.Slice(wins, func(i, j int) bool {
		if wins[i][1] != wins[j][1] {
			return wins[i][1] < wins[j][1]
		}
		return wins[i][0] < wins[j][0]
	})
}

// keyTypes returns the Arrow types of the columns keys of schema in.
func keyTypes(in types.Schema, keys []int) ([]arrow.DataType, error) {
	kts := make([]arrow.DataType, len(keys))
	for i, k := range keys {
		if k < 0 || k >= len(in) {
			return nil, fmt.Errorf("internal: group key $%d out of range", k)
		}
		t, err := types.ArrowType(in[k].Type)
		if err != nil {
			return nil, err
		}
		kts[i] = t
	}
	return kts, nil
}

// LocalWindowAggregate is the local phase of a two-phase window
// aggregation.
type LocalWindowAggregate struct {
	keys  []int
	calls []logical.AggCall
	win   logical.WindowSpec
	in    types.Schema
	out   *arrow.Schema
	size  int64
	clock *zoneClock

	kts      []arrow.DataType
	distinct *distinctCols // DISTINCT calls (group_aggregate_distinct.go)
	scripts  scriptFuncs   // user-defined aggregates, one interpreter each
	windows  map[[2]int64]*windowGroups
	wm       int64
	rows     int64
	buf      [][2]int64
	sel      windowRows
	ids      []uint32
	keyBuf   []arrow.Array
	argBuf   [][]arrow.Array
}

var _ vectorized.Operator = (*LocalWindowAggregate)(nil)

// NewLocalWindowAggregate returns the local phase of calls grouped by the
// input columns keys per window win (win.TimeCol indexes in), producing
// out: the key columns, the state columns of every call, then $slice_end
// (BIGINT). A bundle also closes after size rows (<= 0: only on markers).
func NewLocalWindowAggregate(keys []int, calls []logical.AggCall, win logical.WindowSpec, in types.Schema, out *arrow.Schema, size int64) *LocalWindowAggregate {
	return &LocalWindowAggregate{keys: keys, calls: calls, win: win, in: in, out: out, size: size, wm: math.MinInt64}
}

// SetTimeZone sets the session time zone: windows over a TIMESTAMP_LTZ
// time column are aligned in it.
func (l *LocalWindowAggregate) SetTimeZone(loc *time.Location) {
	if l.win.TimeCol < 0 || l.win.TimeCol >= len(l.in) {
		return
	}
	if dt, err := types.ArrowType(l.in[l.win.TimeCol].Type); err == nil {
		l.clock = newZoneClock(dt, loc)
	}
}

// Open implements vectorized.Operator.
func (l *LocalWindowAggregate) Open(context.Context) error {
	if l.win.TimeCol < 0 || l.win.TimeCol >= len(l.in) {
		return fmt.Errorf("internal: window time column $%d out of range", l.win.TimeCol)
	}
	if n := len(l.keys) + 1; l.out.NumFields() < n || l.out.Field(l.out.NumFields()-1).Type.ID() != arrow.INT64 {
		return fmt.Errorf("internal: local window aggregate output %s", l.out)
	}
	kts, err := keyTypes(l.in, l.keys)
	if err != nil {
		return err
	}
	l.kts = kts
	// check the state columns once
	_, cols, err := newWindowGroups(nil, l.calls, l.in, l.out, len(l.keys), l.scripts)
	if err != nil {
		return err
	}
	if l.distinct, err = newDistinctCols(l.calls, l.out, stateEnd(cols, len(l.keys))); err != nil {
		return err
	}
	l.windows = map[[2]int64]*windowGroups{}
	l.keyBuf = make([]arrow.Array, len(l.keys))
	l.argBuf = make([][]arrow.Array, len(l.calls))
	for i, c := range l.calls {
		l.argBuf[i] = make([]arrow.Array, len(c.Args))
	}
	return nil
}

// Process implements vectorized.Operator.
func (l *LocalWindowAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	for i := range n {
		if k := b.Kind(i); k.IsRetraction() {
			return fmt.Errorf("local window aggregate: the input must be insert-only, got %s", k)
		}
	}
	tcol := b.Rec.Column(l.win.TimeCol)
	sel := &l.sel
	sel.reset()
	for i := range n {
		ts, ok, err := eventMillis(tcol, i)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		l.buf = l.win.Windows(l.buf[:0], l.clock.local(ts))
		for j, win := range l.buf {
			sel.add(j, win, int32(i))
		}
	}
	for wi, win := range sel.wins {
		g := l.windows[win]
		if g == nil {
			var err error
			if g, _, err = newWindowGroups(l.kts, l.calls, l.in, l.out, len(l.keys), l.scripts); err != nil {
				return err
			}
			l.windows[win] = g
		}
		rows := sel.rows[wi]
		rec := b.Rec
		if len(rows) != n {
			var err error
			if rec, err = Gather(b.Rec, rows, nil); err != nil {
				return err
			}
		}
		err := l.update(g, rec)
		if len(rows) != n {
			rec.Release()
		}
		if err != nil {
			return err
		}
	}
	l.rows += int64(n)
	if l.size > 0 && l.rows >= l.size {
		return l.flush(ctx, out)
	}
	return nil
}

// update folds the rows of rec into the window's accumulators.
func (l *LocalWindowAggregate) update(g *windowGroups, rec arrow.RecordBatch) error {
	m := int(rec.NumRows())
	l.ids = resize(l.ids, m)
	for i, k := range l.keys {
		l.keyBuf[i] = rec.Column(k)
	}
	if err := g.insert(l.keyBuf, m, l.ids); err != nil {
		return err
	}
	for i, acc := range g.accs {
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
		if err := acc.Update(l.ids[:m], l.argBuf[i], filter); err != nil {
			return err
		}
	}
	return nil
}

// flush emits the partial state of every buffered window (in order of
// window end, then start) as one batch and forgets them.
func (l *LocalWindowAggregate) flush(ctx context.Context, out vectorized.Collector) error {
	l.rows = 0
	if len(l.windows) == 0 {
		return nil
	}
	wins := make([][2]int64, 0, len(l.windows))
	for win := range l.windows {
		wins = append(wins, win)
	}
	sortWindows(wins)
	recs := make([]arrow.RecordBatch, 0, len(wins))
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, win := range wins {
		g := l.windows[win]
		if g.nGroups == 0 {
			continue
		}
		cols := g.keys()
		lists := make([]arrow.Array, len(g.accs)) // the DISTINCT calls' values
		for i, acc := range g.accs {
			st, err := acc.State(vectorized.Mem)
			if err != nil {
				releaseArrays(cols)
				releaseArrays(lists)
				return err
			}
			if l.distinct.col[i] >= 0 {
				lists[i], st = st[0], st[1:]
			}
			cols = append(cols, st...)
		}
		if l.distinct.n > 0 {
			dc, err := l.distinct.pack(vectorized.Mem, lists, g.nGroups)
			if err != nil {
				releaseArrays(cols)
				releaseArrays(lists)
				return err
			}
			cols = append(cols, dc...)
		}
		releaseArrays(lists)
		ends := make([]int64, g.nGroups)
		for i := range ends {
			ends[i] = win[1]
		}
		cols = append(cols, aggInt64s(vectorized.Mem, ends))
		rec, err := NewRecord(l.out, cols, int64(g.nGroups))
		releaseArrays(cols)
		if err != nil {
			return fmt.Errorf("local window aggregate: %w", err)
		}
		recs = append(recs, rec)
	}
	clear(l.windows)
	if len(recs) == 0 {
		return nil
	}
	rec, err := concatRecords(l.out, recs)
	if err != nil {
		return err
	}
	if len(recs) == 1 {
		rec.Retain() // the deferred release drops recs[0]
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// due reports whether a buffered window fires at watermark wm.
func (l *LocalWindowAggregate) due(wm int64) bool {
	for win := range l.windows {
		if l.clock.instant(win[1])-1 <= wm {
			return true
		}
	}
	return false
}

// OnMarker implements vectorized.Operator: a watermark that lets a
// buffered window fire, EndOfBundle, a checkpoint barrier and EndOfInput
// flush the buffered windows before the marker is forwarded.
func (l *LocalWindowAggregate) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	switch mk.Kind {
	case vectorized.Watermark:
		if mk.Watermark > l.wm {
			l.wm = mk.Watermark
			if l.due(l.wm) {
				if err := l.flush(ctx, out); err != nil {
					return err
				}
			}
		}
	case vectorized.EndOfBundle, vectorized.CheckpointBarrier, vectorized.EndOfInput:
		if err := l.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, mk)
}

// Close implements vectorized.Operator.
func (l *LocalWindowAggregate) Close() error {
	l.windows = nil
	l.scripts.shared.close()
	return nil
}

// SetFunctions gives the local window aggregate the evaluation context of
// user-defined aggregate functions (with merge); every
// window's accumulators of a function share one interpreter. Call before
// Open.
func (l *LocalWindowAggregate) SetFunctions(ectx *function.EvalContext) {
	l.scripts = scriptFuncs{ectx: ectx, shared: newSharedInstances()}
}

// SetFunctions gives the global window aggregate the evaluation context
// of user-defined aggregate functions. Call before Open.
func (g *GlobalWindowAggregate) SetFunctions(ectx *function.EvalContext) {
	g.scripts = scriptFuncs{ectx: ectx, shared: newSharedInstances()}
}

// GlobalWindowAggregate is the global phase of a two-phase window
// aggregation.
type GlobalWindowAggregate struct {
	keys      []int
	calls     []logical.AggCall
	stateCols [][]int
	sliceEnd  int
	win       logical.WindowSpec
	localIn   types.Schema
	in        *arrow.Schema
	out       *arrow.Schema
	clock     *zoneClock

	kts      []arrow.DataType
	distinct *distinctCols // DISTINCT calls (group_aggregate_distinct.go)
	scripts  scriptFuncs   // user-defined aggregates, one interpreter each
	windows  map[[2]int64]*windowGroups
	wm       int64
	late     atomic.Int64
	ids      []uint32
	sel      windowRows
	keyBuf   []arrow.Array
	stBuf    []arrow.Array
	disk     *windowDisk // the disk state backend (state_window_disk.go)
	diskSch  *arrow.Schema
}

var (
	_ vectorized.Operator = (*GlobalWindowAggregate)(nil)
	_ vectorized.Stateful = (*GlobalWindowAggregate)(nil)
)

// NewGlobalWindowAggregate returns the global phase over input in (group
// columns keys, the state of calls[i] in columns stateCols[i], the window
// end in column sliceEnd) of the windows win; localIn is the local phase's
// input (the calls' argument types and win.TimeCol's type). out is the
// keys, the aggregates, window_start, window_end [, window_time].
func NewGlobalWindowAggregate(keys []int, calls []logical.AggCall, stateCols [][]int, sliceEnd int, win logical.WindowSpec, localIn types.Schema, in, out *arrow.Schema) (*GlobalWindowAggregate, error) {
	nwin := out.NumFields() - len(keys) - len(calls)
	if nwin != 2 && nwin != 3 {
		return nil, fmt.Errorf("global window aggregate: output schema has %d columns for %d keys and %d aggregates", out.NumFields(), len(keys), len(calls))
	}
	if len(stateCols) != len(calls) || sliceEnd < 0 || sliceEnd >= in.NumFields() {
		return nil, fmt.Errorf("internal: global window aggregate of %d state columns for %d calls", len(stateCols), len(calls))
	}
	return &GlobalWindowAggregate{keys: keys, calls: calls, stateCols: stateCols, sliceEnd: sliceEnd, win: win,
		localIn: localIn, in: in, out: out, wm: math.MinInt64, windows: map[[2]int64]*windowGroups{}}, nil
}

// SetTimeZone sets the session time zone: windows over a TIMESTAMP_LTZ
// time column are aligned in it.
func (g *GlobalWindowAggregate) SetTimeZone(loc *time.Location) {
	if g.win.TimeCol < 0 || g.win.TimeCol >= len(g.localIn) {
		return
	}
	if dt, err := types.ArrowType(g.localIn[g.win.TimeCol].Type); err == nil {
		g.clock = newZoneClock(dt, loc)
	}
}

// LateRows returns the number of late partial rows dropped so far.
func (g *GlobalWindowAggregate) LateRows() int64 { return g.late.Load() }

// OpStats implements StatsReporter: the late rows dropped.
func (g *GlobalWindowAggregate) OpStats() OpStats { return OpStats{LateRows: g.LateRows()} }

// Open implements vectorized.Operator.
func (g *GlobalWindowAggregate) Open(context.Context) error {
	g.kts = make([]arrow.DataType, len(g.keys))
	for i, k := range g.keys {
		if k < 0 || k >= g.in.NumFields() {
			return fmt.Errorf("internal: group key $%d out of range", k)
		}
		g.kts[i] = g.in.Field(k).Type
	}
	_, cols, err := newWindowGroups(g.kts, g.calls, g.localIn, g.in, len(g.keys), g.scripts)
	if err != nil {
		return err
	}
	for i := range cols {
		if fmt.Sprint(cols[i]) != fmt.Sprint(g.stateCols[i]) {
			return fmt.Errorf("internal: state columns %v of %s, want %v", g.stateCols[i], g.calls[i], cols[i])
		}
	}
	if g.distinct, err = newDistinctCols(g.calls, g.in, stateEnd(cols, len(g.keys))); err != nil {
		return err
	}
	g.keyBuf = make([]arrow.Array, len(g.keys))
	if g.disk != nil {
		return g.openDisk()
	}
	return nil
}

func (g *GlobalWindowAggregate) newGroups() (*windowGroups, error) {
	w, _, err := newWindowGroups(g.kts, g.calls, g.localIn, g.in, len(g.keys), g.scripts)
	return w, err
}

// windowOf returns the window [start, end) of a window end.
func (g *GlobalWindowAggregate) windowOf(end int64) [2]int64 {
	if g.win.Kind == logical.Cumulate && g.win.Size > 0 {
		t := end - 1 - g.win.Offset
		r := t % g.win.Size
		if r < 0 {
			r += g.win.Size
		}
		return [2]int64{end - 1 - r, end}
	}
	return [2]int64{end - g.win.Size, end}
}

// Process implements vectorized.Operator: partial states are merged into
// their windows; those of fired windows are late and dropped.
func (g *GlobalWindowAggregate) Process(_ context.Context, b vectorized.Batch, _ vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	ends, ok := b.Rec.Column(g.sliceEnd).(*array.Int64)
	if !ok {
		return fmt.Errorf("internal: $slice_end column is %s", b.Rec.Column(g.sliceEnd).DataType())
	}
	if g.disk != nil {
		if err := g.maybeSpill(); err != nil {
			return err
		}
	}
	sel := &g.sel
	sel.reset()
	for i := range n {
		win := g.windowOf(ends.Value(i))
		if g.clock.instant(win[1])-1 <= g.wm {
			g.late.Add(1)
			continue
		}
		sel.add(0, win, int32(i))
	}
	for wi, win := range sel.wins {
		rows := sel.rows[wi]
		rec := b.Rec
		if len(rows) != n {
			var err error
			if rec, err = Gather(b.Rec, rows, nil); err != nil {
				return err
			}
		}
		var err error
		if g.disk != nil && g.disk.onDisk[win] {
			err = g.loadBatch(win, rec)
		}
		if err == nil {
			err = g.merge(win, rec, g.keys, g.stateCols, true)
		}
		if len(rows) != n {
			rec.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// merge folds the partial states of rec (keys in columns keys, states in
// stateCols) into window win; fromLocal: rec is the local phase's, whose
// DISTINCT values are in distinct columns (a snapshot's states are whole).
func (g *GlobalWindowAggregate) merge(win [2]int64, rec arrow.RecordBatch, keys []int, stateCols [][]int, fromLocal bool) error {
	w := g.windows[win]
	if w == nil {
		var err error
		if w, err = g.newGroups(); err != nil {
			return err
		}
		g.windows[win] = w
	}
	m := int(rec.NumRows())
	g.ids = resize(g.ids, m)
	if len(g.keyBuf) != len(keys) {
		g.keyBuf = make([]arrow.Array, len(keys))
	}
	for i, k := range keys {
		g.keyBuf[i] = rec.Column(k)
	}
	if err := w.insert(g.keyBuf, m, g.ids); err != nil {
		return err
	}
	for i, acc := range w.accs {
		if err := g.distinct.mergeCall(acc, i, g.ids[:m], rec, stateCols[i], fromLocal, &g.stBuf); err != nil {
			return err
		}
	}
	return nil
}

// fire emits and frees the windows whose end - 1 is at or below wm, in
// order of window end, then start.
func (g *GlobalWindowAggregate) fire(ctx context.Context, wm int64, out vectorized.Collector) error {
	base := len(g.keys) + len(g.calls)
	for _, win := range g.dueWindows(wm) {
		if err := g.loadDue(win); err != nil {
			return err
		}
		w := g.windows[win]
		delete(g.windows, win)
		if w == nil || w.nGroups == 0 {
			continue
		}
		m := w.nGroups
		cols := w.keys()
		for _, acc := range w.accs {
			v, err := acc.Evaluate(vectorized.Mem)
			if err != nil {
				releaseArrays(cols)
				return err
			}
			cols = append(cols, v)
		}
		for k := base; k < g.out.NumFields(); k++ {
			v := win[0] // window_start, window_end, window_time
			if k-base == 1 {
				v = win[1]
			} else if k-base == 2 {
				v = g.clock.instant(win[1]) - 1
			}
			vals := make([]int64, m)
			for j := range vals {
				vals[j] = v
			}
			a, err := timestampArray(g.out.Field(k).Type, vals)
			if err != nil {
				releaseArrays(cols)
				return err
			}
			cols = append(cols, a)
		}
		rec, err := NewRecord(g.out, cols, int64(m))
		releaseArrays(cols)
		if err != nil {
			return fmt.Errorf("global window aggregate: %w", err)
		}
		if err := emitSliced(ctx, rec, out); err != nil {
			return err
		}
	}
	return nil
}

// OnMarker implements vectorized.Operator.
func (g *GlobalWindowAggregate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	switch m.Kind {
	case vectorized.Watermark:
		if m.Watermark > g.wm {
			g.wm = m.Watermark
			if err := g.fire(ctx, g.wm, out); err != nil {
				return err
			}
		}
	case vectorized.EndOfInput:
		if err := g.fire(ctx, math.MaxInt64, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (g *GlobalWindowAggregate) Close() error {
	clear(g.windows)
	g.scripts.shared.close()
	return g.disk.close()
}

// OpenWindows returns the number of windows holding state.
func (g *GlobalWindowAggregate) OpenWindows() int {
	n := len(g.windows)
	if g.disk != nil {
		for win := range g.disk.onDisk {
			if g.windows[win] == nil {
				n++
			}
		}
	}
	return n
}

// stateSchema is the schema of the "windows" part of a
// GlobalWindowAggregate: key_group, window_start, window_end, the keys and
// the partial state of every call, as WindowAggregate writes it.
func (g *GlobalWindowAggregate) stateSchema(ms []agg.Merger) *arrow.Schema {
	fields := []arrow.Field{{Name: "key_group", Type: arrow.PrimitiveTypes.Int32},
		{Name: "window_start", Type: arrow.PrimitiveTypes.Int64}, {Name: "window_end", Type: arrow.PrimitiveTypes.Int64}}
	for i, t := range g.kts {
		fields = append(fields, arrow.Field{Name: g.out.Field(i).Name, Type: t, Nullable: true})
	}
	for i, m := range ms {
		for j, t := range m.StateTypes() {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("agg%d_%d", i, j), Type: t, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// SnapshotState implements vectorized.Stateful: every open window's
// groups and partial states (part "windows", as WindowAggregate writes
// it), the watermark and the late row count ("window_meta").
func (g *GlobalWindowAggregate) SnapshotState(_ context.Context, sw vectorized.StateWriter) error {
	if g.disk != nil {
		return g.diskSnapshot(sw) // state_window_disk.go
	}
	wins := make([][2]int64, 0, len(g.windows))
	for win := range g.windows {
		wins = append(wins, win)
	}
	sortWindows(wins)
	for _, win := range wins {
		w := g.windows[win]
		n := w.nGroups
		if n == 0 {
			continue
		}
		keys := w.keys()
		ws, we := make([]int64, n), make([]int64, n)
		for i := range n {
			ws[i], we[i] = win[0], win[1]
		}
		cols := []arrow.Array{aggKeyGroups(keys, n), aggInt64s(vectorized.Mem, ws), aggInt64s(vectorized.Mem, we)}
		cols = append(cols, keys...)
		for _, m := range w.accs {
			st, err := m.State(vectorized.Mem)
			if err != nil {
				releaseArrays(cols)
				return err
			}
			cols = append(cols, st...)
		}
		rec, err := NewRecord(g.stateSchema(w.accs), cols, int64(n))
		releaseArrays(cols)
		if err != nil {
			return err
		}
		err = sw.Write(StatePartWindows, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return writeWindowMeta(sw, g.wm, g.late.Load())
}

// RestoreState implements vectorized.Stateful: the owned groups of every
// window, the minimum watermark and (subtask 0) the late row count.
func (g *GlobalWindowAggregate) RestoreState(_ context.Context, r vectorized.StateReader) error {
	if g.disk != nil {
		if done, err := g.diskRestore(r); done || err != nil {
			return err // state_window_disk.go; else the cache takes the canonical parts
		}
	} else if err := refuseStoreFiles("GlobalWindowAggregate", r); err != nil {
		return err
	}
	probe, err := g.newGroups()
	if err != nil {
		return err
	}
	schema := g.stateSchema(probe.accs)
	nk := len(g.keys)
	keys := make([]int, nk)
	for i := range keys {
		keys[i] = 3 + i
	}
	var stateCols [][]int
	col := 3 + nk
	for _, m := range probe.accs {
		var cs []int
		for range m.StateTypes() {
			cs = append(cs, col)
			col++
		}
		stateCols = append(stateCols, cs)
	}
	err = r.Read(StatePartWindows, func(rec arrow.RecordBatch) error {
		if err := aggCheckSchema("global window aggregate", rec.Schema(), schema); err != nil {
			return err
		}
		own, err := aggOwnedRows(rec, r)
		if err != nil {
			return err
		}
		defer own.Release()
		n := int(own.NumRows())
		ws, we := own.Column(1).(*array.Int64), own.Column(2).(*array.Int64)
		byWin := map[[2]int64][]int32{}
		var order [][2]int64
		for i := range n {
			win := [2]int64{ws.Value(i), we.Value(i)}
			if _, ok := byWin[win]; !ok {
				order = append(order, win)
			}
			byWin[win] = append(byWin[win], int32(i))
		}
		for _, win := range order {
			part, err := Gather(own, byWin[win], nil)
			if err != nil {
				return err
			}
			err = g.merge(win, part, keys, stateCols, false)
			part.Release()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	wm, late, err := readWindowMeta(r)
	if err != nil {
		return err
	}
	g.wm = wm
	if r.Subtask() == 0 {
		g.late.Store(late)
	}
	return nil
}
