package ops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Checkpointed state and state TTL of the streaming group aggregates.
//
// A group aggregate writes its groups into the keyed part "groups": the
// key group of the group key (vectorized.KeyGroup of vectorized.HashColumns
// over the GROUP BY columns), the key columns, the group's input row count
// (GroupAggregate: 0 means no state, a later row is +I), the processing
// time of its last access (state TTL), then the exported state of every
// aggregate call (agg.StepStater for the per-record and mini-batch forms,
// agg.Merger for the global phase of two-phase aggregation). Restoring
// inserts the owned keys into a fresh group table and sets their state.
//
// State TTL (table.exec.state.ttl) is kept per group as the processing
// time of its last access: a group not accessed for the TTL is invisible
// (a new row for its key starts from scratch and is emitted as +I, a
// retraction for it is ignored), and once enough of the table is expired
// the table is rebuilt with the live groups only, through the same export
// and import as a snapshot, so memory stays bounded under endless new keys.

// StatePartGroups is the keyed state part of the group aggregates.
const StatePartGroups = "groups"

// aggStateChunk bounds the groups of one record batch of a snapshot.
var aggStateChunk = 1 << 16

// compactMinGroups is the table size below which state TTL never rebuilds
// a group table (a variable for tests).
var compactMinGroups = 1024

var (
	_ vectorized.Stateful = (*GroupAggregate)(nil)
	_ vectorized.Stateful = (*MiniBatchGroupAggregate)(nil)
	_ vectorized.Stateful = (*GlobalGroupAggregate)(nil)
	_ vectorized.Stateful = (*LocalGroupAggregate)(nil)
)

// groupTTL is the state TTL bookkeeping of a group aggregate.
type groupTTL struct {
	now    func() time.Time // nil: time.Now
	access []int64          // per group: last access, Unix nanoseconds
	// mark: the table size at which the next compaction scan runs.
	mark int
}

func (t *groupTTL) nanos() int64 {
	if t.now == nil {
		return time.Now().UnixNano()
	}
	return t.now().UnixNano()
}

// ttlExpired reports whether a group last accessed at access is expired at now.
func ttlExpired(ttl time.Duration, now, access int64) bool {
	return ttl > 0 && now-access >= int64(ttl)
}

// SetClock sets the processing-time clock of state TTL (time.Now by
// default). Call before Open; tests use it.
func (h *GroupAggregate) SetClock(now func() time.Time) { h.ttl.now = now }

// SetClock sets the processing-time clock of state TTL (time.Now by
// default). Call before Open; tests use it.
func (g *GlobalGroupAggregate) SetClock(now func() time.Time) { g.ttl.now = now }

// LiveGroups returns the number of groups the group table holds (live or
// not yet compacted away).
func (h *GroupAggregate) LiveGroups() int { return h.nGroups }

// LiveGroups returns the number of groups the group table holds (live or
// not yet compacted away).
func (g *GlobalGroupAggregate) LiveGroups() int { return g.nGroups }

// touchGroups applies state TTL to the groups of a batch (ids, after the
// table insert): an expired group loses its state, then every group's
// access time becomes now.
func (h *GroupAggregate) touchGroups(ids []uint32) {
	if h.opts.StateTTL <= 0 {
		return
	}
	now := h.ttl.nanos()
	for len(h.ttl.access) < h.nGroups {
		h.ttl.access = append(h.ttl.access, now)
	}
	for _, g := range ids {
		if h.rows[g] > 0 && ttlExpired(h.opts.StateTTL, now, h.ttl.access[g]) {
			h.rows[g] = 0
			for _, s := range h.steps {
				s.step.Clear(g)
			}
		}
		h.ttl.access[g] = now
	}
}

// liveGroups returns the groups holding unexpired state, in id order.
func (h *GroupAggregate) liveGroups(now int64) []uint32 {
	var live []uint32
	for g := 0; g < h.nGroups; g++ {
		if h.rows[g] == 0 {
			continue
		}
		if h.opts.StateTTL > 0 && g < len(h.ttl.access) && ttlExpired(h.opts.StateTTL, now, h.ttl.access[g]) {
			continue
		}
		live = append(live, uint32(g))
	}
	return live
}

// maybeCompact rebuilds the group table without the empty and expired
// groups when state TTL is on and the table doubled since the last scan.
// Called before a batch's insert.
func (h *GroupAggregate) maybeCompact(ctx context.Context) error {
	if h.disk != nil {
		return h.maybeEvict(ctx) // state_agg_disk.go
	}
	if h.opts.StateTTL <= 0 || h.table == nil {
		return nil
	}
	n := h.table.Len()
	if n < max(h.ttl.mark, compactMinGroups) {
		return nil
	}
	live := h.liveGroups(h.ttl.nanos())
	if len(live) > n/2 {
		h.ttl.mark = 2 * n
		return nil
	}
	states, err := h.stepStaters()
	var rec arrow.RecordBatch
	if err == nil {
		tk := &aggKeys{t: h.table}
		rec, err = h.stateRecord(live, states, tk)
		tk.release()
	}
	if errors.Is(err, errScriptState) || errors.Is(err, agg.ErrNotSupported) {
		// an accumulator that cannot be exported: expiry still applies,
		// the memory is not reclaimed
		h.ttl.mark = 2 * n
		return nil
	}
	if err != nil {
		return err
	}
	defer rec.Release()
	fresh := &GroupAggregate{groupKeys: h.groupKeys, calls: h.calls, in: h.in, out: h.out, opts: h.opts, scripts: h.scripts}
	fresh.ttl.now = h.ttl.now
	if err := fresh.Open(ctx); err != nil {
		return err
	}
	if err := fresh.loadState(rec, nil); err != nil {
		_ = fresh.Close()
		return err
	}
	h.closeSteppers()
	h.table, h.steps, h.rows, h.nGroups = fresh.table, fresh.steps, fresh.rows, fresh.nGroups
	h.delta.renumbered()
	h.ttl.access = fresh.ttl.access
	h.ttl.mark = 2 * max(len(live), compactMinGroups/2)
	return nil
}

// stepStaters returns the state export of every aggregate call, or a
// "not supported yet" error naming the first that has none.
func (h *GroupAggregate) stepStaters() ([]agg.StepStater, error) {
	out := make([]agg.StepStater, len(h.steps))
	for i, s := range h.steps {
		st, err := agg.AsStepStater(s.step, h.calls[i].String())
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// stateSchema is the schema of the "groups" part.
func (h *GroupAggregate) stateSchema(states []agg.StepStater) (*arrow.Schema, error) {
	fields := []arrow.Field{{Name: "key_group", Type: arrow.PrimitiveTypes.Int32}}
	for i, k := range h.groupKeys {
		t, err := h.column(k)
		if err != nil {
			return nil, err
		}
		fields = append(fields, arrow.Field{Name: h.out.Field(i).Name, Type: t, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: "rows", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "access", Type: arrow.PrimitiveTypes.Int64})
	for i, st := range states {
		for j, t := range st.StepStateTypes() {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("agg%d_%d", i, j), Type: t, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

// aggKeyGroups computes the key group column of key arrays of n rows.
func aggKeyGroups(keys []arrow.Array, n int) arrow.Array {
	fields := make([]arrow.Field, len(keys))
	cols := make([]int, len(keys))
	for i, k := range keys {
		fields[i] = arrow.Field{Name: fmt.Sprintf("k%d", i), Type: k.DataType(), Nullable: true}
		cols[i] = i
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), keys, int64(n))
	defer rec.Release()
	hashes := make([]uint64, n)
	vectorized.HashColumns(rec, cols, hashes)
	kg := make([]int32, n)
	for i, h := range hashes {
		kg[i] = int32(vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism))
	}
	b := array.NewInt32Builder(vectorized.Mem)
	defer b.Release()
	b.AppendValues(kg, nil)
	return b.NewArray()
}

// aggInt64s builds a BIGINT array.
func aggInt64s(mem memory.Allocator, vs []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

// aggKeys gives the keys of groups of a group table (nil: the global
// aggregate). It materialises the table's keys once, however many
// chunks a snapshot writes; release frees them.
type aggKeys struct {
	t   agg.GroupTable
	all []arrow.Array
}

// gather returns the keys of groups, in that order; the caller releases
// them.
func (k *aggKeys) gather(groups []uint32) ([]arrow.Array, error) {
	if k.t == nil {
		return nil, nil
	}
	if k.all == nil {
		k.all = k.t.Keys(vectorized.Mem)
	}
	idx := make([]int32, len(groups))
	for i, g := range groups {
		idx[i] = int32(g)
	}
	keys := make([]arrow.Array, len(k.all))
	for i, a := range k.all {
		c, err := GatherArray(a, idx)
		if err != nil {
			releaseArrays(keys)
			return nil, err
		}
		keys[i] = c
	}
	return keys, nil
}

func (k *aggKeys) release() {
	releaseArrays(k.all)
	k.all = nil
}

// aggTableKeys returns the keys of groups (in that order) of a group table.
func aggTableKeys(t agg.GroupTable, groups []uint32) ([]arrow.Array, error) {
	k := &aggKeys{t: t}
	defer k.release()
	return k.gather(groups)
}

// stateRecord exports the given groups as one record of the "groups" part.
func (h *GroupAggregate) stateRecord(groups []uint32, states []agg.StepStater, tk *aggKeys) (arrow.RecordBatch, error) {
	schema, err := h.stateSchema(states)
	if err != nil {
		return nil, err
	}
	n := len(groups)
	var cols []arrow.Array
	defer func() { releaseArrays(cols) }()
	keys, err := tk.gather(groups)
	if err != nil {
		return nil, err
	}
	cols = append(cols, aggKeyGroups(keys, n))
	cols = append(cols, keys...)
	rows := make([]int64, n)
	access := make([]int64, n)
	for i, g := range groups {
		rows[i] = h.rows[g]
		if int(g) < len(h.ttl.access) {
			access[i] = h.ttl.access[g]
		}
	}
	cols = append(cols, aggInt64s(vectorized.Mem, rows), aggInt64s(vectorized.Mem, access))
	for i, st := range states {
		arrs, err := st.StepState(vectorized.Mem, groups)
		if err != nil {
			if errors.Is(err, errScriptState) {
				return nil, scriptStateError(h.calls[i].Name, err)
			}
			return nil, err
		}
		cols = append(cols, arrs...)
	}
	return NewRecord(schema, cols, int64(n))
}

// aggOwnedRows returns rec restricted to the rows whose key group r owns (all
// rows when r is nil); the caller releases it.
func aggOwnedRows(rec arrow.RecordBatch, r vectorized.StateReader) (arrow.RecordBatch, error) {
	if rec.NumCols() == 0 || rec.Schema().Field(0).Name != "key_group" {
		return nil, fmt.Errorf("internal: keyed state part without a key_group column")
	}
	kg, ok := rec.Column(0).(*array.Int32)
	if !ok {
		return nil, fmt.Errorf("internal: key_group column of type %s", rec.Column(0).DataType())
	}
	n := int(rec.NumRows())
	idx := make([]int32, 0, n)
	for i := range n {
		if r == nil || r.Owns(int(kg.Value(i))) {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == n {
		rec.Retain()
		return rec, nil
	}
	return Gather(rec, idx, nil)
}

// aggCheckSchema compares a restored part's schema with the expected one.
func aggCheckSchema(op string, got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return fmt.Errorf("restore %s: state has %d columns, want %d (the query changed?)", op, got.NumFields(), want.NumFields())
	}
	for i := range want.NumFields() {
		if !arrow.TypeEqual(got.Field(i).Type, want.Field(i).Type) {
			return fmt.Errorf("restore %s: state column %d (%s) has type %s, want %s (the query changed?)", op, i, want.Field(i).Name, got.Field(i).Type, want.Field(i).Type)
		}
	}
	return nil
}

// loadState inserts the groups of a "groups" record whose key group r owns
// (every group when r is nil) and sets their state.
func (h *GroupAggregate) loadState(rec arrow.RecordBatch, r vectorized.StateReader) error {
	states, err := h.stepStaters()
	if err != nil {
		return err
	}
	want, err := h.stateSchema(states)
	if err != nil {
		return err
	}
	if err := aggCheckSchema("GroupAggregate", rec.Schema(), want); err != nil {
		return err
	}
	own, err := aggOwnedRows(rec, r)
	if err != nil {
		return err
	}
	defer own.Release()
	n := int(own.NumRows())
	if n == 0 {
		return nil
	}
	nk := len(h.groupKeys)
	ids := make([]uint32, n)
	if h.table != nil {
		keys := make([]arrow.Array, nk)
		for i := range keys {
			keys[i] = own.Column(1 + i)
		}
		if err := h.table.Insert(keys, n, ids); err != nil {
			return err
		}
		h.grow(h.table.Len())
	}
	rows := own.Column(1 + nk).(*array.Int64)
	access := own.Column(2 + nk).(*array.Int64)
	for len(h.ttl.access) < h.nGroups {
		h.ttl.access = append(h.ttl.access, 0)
	}
	now := h.ttl.nanos()
	for i, g := range ids {
		if h.rows[g] != 0 {
			return fmt.Errorf("restore GroupAggregate: the state holds a group twice")
		}
		h.rows[g] = rows.Value(i)
		h.ttl.access[g] = access.Value(i)
		if h.ttl.access[g] == 0 {
			h.ttl.access[g] = now // written without state TTL: accessed now
		}
	}
	col := 3 + nk
	for _, st := range states {
		k := len(st.StepStateTypes())
		if err := st.SetStepState(ids, own.Columns()[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return nil
}

// SnapshotState implements vectorized.Stateful: the groups with state
// (unexpired under state TTL) into the part "groups" — or, as a delta of
// an incremental checkpoint, the groups changed since the last snapshot
// and tombstones for those gone (state_agg_delta.go).
func (h *GroupAggregate) SnapshotState(_ context.Context, w vectorized.StateWriter) error {
	if h.disk != nil {
		return h.diskSnapshot(w) // state_agg_disk.go
	}
	states, err := h.stepStaters()
	if err != nil {
		return err
	}
	now := h.ttl.nanos()
	kind, id := h.delta.begin(w, h.nGroups)
	tk := &aggKeys{t: h.table}
	defer tk.release()
	record := func(groups []uint32) (arrow.RecordBatch, error) { return h.stateRecord(groups, states, tk) }
	if kind == snapshotDelta {
		up, del := h.delta.split(h.nGroups, func(g uint32) bool {
			return h.rows[g] > 0 && !(h.opts.StateTTL > 0 && int(g) < len(h.ttl.access) && ttlExpired(h.opts.StateTTL, now, h.ttl.access[g]))
		})
		if err := writeGroupChunks(w, StatePartGroups, up, record); err != nil {
			return err
		}
		names := make([]string, len(h.groupKeys))
		for i := range names {
			names[i] = h.out.Field(i).Name
		}
		if err := writeGroupChunks(w, StatePartGroupsDeleted, del, func(groups []uint32) (arrow.RecordBatch, error) {
			return aggTombstones(tk, groups, names)
		}); err != nil {
			return err
		}
		h.delta.done(kind, id, len(up)+len(del))
		return nil
	}
	if err := writeGroupChunks(w, StatePartGroups, h.liveGroups(now), record); err != nil {
		return err
	}
	h.delta.done(kind, id, 0)
	return nil
}

// RestoreState implements vectorized.Stateful: the owned groups of the
// part "groups" (of the chain of full snapshot and deltas, newest state
// per key).
func (h *GroupAggregate) RestoreState(_ context.Context, r vectorized.StateReader) error {
	if h.disk != nil {
		return h.diskRestore(r) // state_agg_disk.go
	}
	if err := refuseStoreFiles("GroupAggregate", r); err != nil {
		return err
	}
	h.delta.renumbered()
	return readGroupChain(r, len(h.groupKeys), func(rec arrow.RecordBatch) error { return h.loadState(rec, r) })
}

// SnapshotState implements vectorized.Stateful: the bundle is empty (it
// was flushed on the checkpoint barrier), so the state is the aggregate's.
func (m *MiniBatchGroupAggregate) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	if m.buf.rows > 0 {
		return fmt.Errorf("internal: mini-batch aggregate snapshot with %d buffered rows", m.buf.rows)
	}
	return m.GroupAggregate.SnapshotState(ctx, w)
}

// SnapshotState implements vectorized.Stateful: the local phase flushes
// its bundle on the checkpoint barrier and keeps no state.
func (l *LocalGroupAggregate) SnapshotState(context.Context, vectorized.StateWriter) error {
	if l.rows > 0 {
		return fmt.Errorf("internal: local aggregate snapshot with %d buffered rows", l.rows)
	}
	return nil
}

// RestoreState implements vectorized.Stateful: nothing to restore.
func (l *LocalGroupAggregate) RestoreState(context.Context, vectorized.StateReader) error {
	return nil
}

// ---- SINGLE_VALUE ----

var _ agg.StepStater = (*singleValueStep)(nil)

// StepStateTypes implements agg.StepStater: the value and the row count.
func (s *singleValueStep) StepStateTypes() []arrow.DataType {
	return []arrow.DataType{s.dt, arrow.PrimitiveTypes.Int64}
}

// StepState implements agg.StepStater.
func (s *singleValueStep) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	refs := make([]rowRef, len(groups))
	cnt := make([]int64, len(groups))
	for i, g := range groups {
		refs[i], cnt[i] = s.ref[g], s.cnt[g]
	}
	v, err := gatherRefs(s.recs, 0, s.t, s.dt, refs)
	if err != nil {
		return nil, err
	}
	return []arrow.Array{v, aggInt64s(mem, cnt)}, nil
}

// SetStepState implements agg.StepStater.
func (s *singleValueStep) SetStepState(groups []uint32, state []arrow.Array) error {
	if len(state) != 2 || !arrow.TypeEqual(state[0].DataType(), s.dt) || state[0].Len() < len(groups) {
		return fmt.Errorf("internal: SINGLE_VALUE state of %d columns", len(state))
	}
	batch := int32(len(s.recs))
	state[0].Retain()
	s.recs = append(s.recs, array.NewRecordBatch(s.schema, []arrow.Array{state[0]}, int64(state[0].Len())))
	cnt := state[1].(*array.Int64)
	for i, g := range groups {
		s.cnt[g] = cnt.Value(i)
		if s.cnt[g] > 0 {
			s.ref[g] = rowRef{batch: batch, row: int32(i)}
		}
	}
	return nil
}

// ---- the global phase of two-phase aggregation ----

// stateSchema is the schema of the global phase's "groups" part.
func (g *GlobalGroupAggregate) stateSchema() *arrow.Schema {
	fields := []arrow.Field{{Name: "key_group", Type: arrow.PrimitiveTypes.Int32}}
	for i, k := range g.groupKeys {
		fields = append(fields, arrow.Field{Name: g.out.Field(i).Name, Type: g.in.Field(k).Type, Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: "access", Type: arrow.PrimitiveTypes.Int64})
	for i, acc := range g.accs {
		for j, t := range acc.StateTypes() {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("agg%d_%d", i, j), Type: t, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// liveGroups returns the groups of the global phase not expired at now.
func (g *GlobalGroupAggregate) liveGroups(now int64) []uint32 {
	live := make([]uint32, 0, g.nGroups)
	for id := 0; id < g.nGroups; id++ {
		if g.opts.StateTTL > 0 && id < len(g.ttl.access) && ttlExpired(g.opts.StateTTL, now, g.ttl.access[id]) {
			continue
		}
		live = append(live, uint32(id))
	}
	return live
}

// mergerStates returns the partial state of every group of every call;
// the caller releases it.
func (g *GlobalGroupAggregate) mergerStates() ([][]arrow.Array, error) {
	out := make([][]arrow.Array, len(g.accs))
	for i, acc := range g.accs {
		acc.Resize(g.nGroups)
		st, err := acc.State(vectorized.Mem)
		if err != nil {
			for _, s := range out {
				releaseArrays(s)
			}
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

func releaseStates(states [][]arrow.Array) {
	for _, s := range states {
		releaseArrays(s)
	}
}

// stateRecord exports the given groups as one record of the "groups" part;
// states are the partial states of all groups (mergerStates).
func (g *GlobalGroupAggregate) stateRecord(groups []uint32, states [][]arrow.Array, tk *aggKeys) (arrow.RecordBatch, error) {
	n := len(groups)
	idx := make([]int32, n)
	access := make([]int64, n)
	for i, id := range groups {
		idx[i] = int32(id)
		if int(id) < len(g.ttl.access) {
			access[i] = g.ttl.access[id]
		}
	}
	var cols []arrow.Array
	defer func() { releaseArrays(cols) }()
	keys, err := tk.gather(groups)
	if err != nil {
		return nil, err
	}
	cols = append(cols, aggKeyGroups(keys, n))
	cols = append(cols, keys...)
	cols = append(cols, aggInt64s(vectorized.Mem, access))
	for _, st := range states {
		for _, a := range st {
			c, err := GatherArray(a, idx)
			if err != nil {
				return nil, err
			}
			cols = append(cols, c)
		}
	}
	return NewRecord(g.stateSchema(), cols, int64(n))
}

// loadState inserts the groups of a "groups" record that r owns (all when
// r is nil) and merges their state.
func (g *GlobalGroupAggregate) loadState(rec arrow.RecordBatch, r vectorized.StateReader) error {
	if err := aggCheckSchema("GlobalGroupAggregate", rec.Schema(), g.stateSchema()); err != nil {
		return err
	}
	own, err := aggOwnedRows(rec, r)
	if err != nil {
		return err
	}
	defer own.Release()
	n := int(own.NumRows())
	if n == 0 {
		return nil
	}
	nk := len(g.groupKeys)
	ids := make([]uint32, n)
	before := g.nGroups
	if g.table != nil {
		keys := make([]arrow.Array, nk)
		for i := range keys {
			keys[i] = own.Column(1 + i)
		}
		if err := g.table.Insert(keys, n, ids); err != nil {
			return err
		}
		g.nGroups = g.table.Len()
		if g.nGroups != before+n {
			return fmt.Errorf("restore GlobalGroupAggregate: the state holds a group twice")
		}
	} else {
		if before != 0 || n != 1 {
			return fmt.Errorf("restore GlobalGroupAggregate: the state holds a group twice")
		}
		g.nGroups = 1
	}
	access := own.Column(1 + nk).(*array.Int64)
	for len(g.ttl.access) < g.nGroups {
		g.ttl.access = append(g.ttl.access, 0)
	}
	now := g.ttl.nanos()
	for i, id := range ids {
		g.ttl.access[id] = access.Value(i)
		if g.ttl.access[id] == 0 {
			g.ttl.access[id] = now // written without state TTL: accessed now
		}
	}
	col := 1 + nk + 1
	for _, acc := range g.accs {
		k := len(acc.StateTypes())
		acc.Resize(g.nGroups)
		if err := acc.Merge(ids, own.Columns()[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return nil
}

// SnapshotState implements vectorized.Stateful: the (unexpired) groups and
// their merged partial state into the part "groups" — or, as a delta of an
// incremental checkpoint, the groups changed since the last snapshot and
// tombstones for those expired (state_agg_delta.go). The bundle is empty:
// it was flushed on the checkpoint barrier.
func (g *GlobalGroupAggregate) SnapshotState(_ context.Context, w vectorized.StateWriter) error {
	if g.buf.rows > 0 {
		return fmt.Errorf("internal: global aggregate snapshot with %d buffered rows", g.buf.rows)
	}
	if g.disk != nil { // state_agg_disk.go
		if err := g.flushDisk(); err != nil {
			return err
		}
		return g.disk.snapshot(w, g.opts.StateTTL, g.ttl.nanos())
	}
	now := g.ttl.nanos()
	kind, id := g.delta.begin(w, g.nGroups)
	var groups, del []uint32
	if kind == snapshotDelta {
		groups, del = g.delta.split(g.nGroups, func(id uint32) bool {
			return !(g.opts.StateTTL > 0 && int(id) < len(g.ttl.access) && ttlExpired(g.opts.StateTTL, now, g.ttl.access[id]))
		})
	} else {
		groups = g.liveGroups(now)
	}
	tk := &aggKeys{t: g.table}
	defer tk.release()
	if len(groups) > 0 {
		states, err := g.mergerStates()
		if err != nil {
			return err
		}
		err = writeGroupChunks(w, StatePartGroups, groups, func(groups []uint32) (arrow.RecordBatch, error) { return g.stateRecord(groups, states, tk) })
		releaseStates(states)
		if err != nil {
			return err
		}
	}
	if len(del) > 0 {
		names := make([]string, len(g.groupKeys))
		for i := range names {
			names[i] = g.out.Field(i).Name
		}
		if err := writeGroupChunks(w, StatePartGroupsDeleted, del, func(groups []uint32) (arrow.RecordBatch, error) {
			return aggTombstones(tk, groups, names)
		}); err != nil {
			return err
		}
	}
	g.delta.done(kind, id, len(groups)+len(del))
	return nil
}

// RestoreState implements vectorized.Stateful: the owned groups of the
// part "groups" (of the chain of full snapshot and deltas, newest state
// per key).
func (g *GlobalGroupAggregate) RestoreState(_ context.Context, r vectorized.StateReader) error {
	if g.disk != nil {
		return g.disk.restore("GlobalGroupAggregate", r) // state_agg_disk.go
	}
	if err := refuseStoreFiles("GlobalGroupAggregate", r); err != nil {
		return err
	}
	g.delta.renumbered()
	if err := readGroupChain(r, len(g.groupKeys), func(rec arrow.RecordBatch) error { return g.loadState(rec, r) }); err != nil {
		return err
	}
	return nil
}

// expireTouched applies state TTL to the global phase before a bundle is
// merged: when a key of the bundle (ids, already inserted) belongs to an
// expired group, or the table doubled since the last scan, the table is
// rebuilt with the unexpired groups only. It reports whether it rebuilt
// (the caller then inserts the bundle's keys again).
func (g *GlobalGroupAggregate) expireTouched(ctx context.Context, ids []uint32) (bool, error) {
	if g.opts.StateTTL <= 0 {
		return false, nil
	}
	now := g.ttl.nanos()
	stale := false
	for _, id := range ids {
		if int(id) < len(g.ttl.access) && ttlExpired(g.opts.StateTTL, now, g.ttl.access[id]) {
			stale = true
			break
		}
	}
	n := g.nGroups
	if !stale && (g.table == nil || n < max(g.ttl.mark, compactMinGroups)) {
		return false, nil
	}
	// groups new in this bundle have no access time yet: not live state
	old := min(n, len(g.ttl.access))
	live := make([]uint32, 0, old)
	for id := 0; id < old; id++ {
		if !ttlExpired(g.opts.StateTTL, now, g.ttl.access[id]) {
			live = append(live, uint32(id))
		}
	}
	if !stale && len(live) > n/2 {
		g.ttl.mark = 2 * n
		return false, nil
	}
	states, err := g.mergerStates()
	if err != nil {
		return false, err
	}
	tk := &aggKeys{t: g.table}
	rec, err := g.stateRecord(live, states, tk)
	tk.release()
	releaseStates(states)
	if err != nil {
		return false, err
	}
	defer rec.Release()
	fresh := NewGlobalGroupAggregate(g.groupKeys, g.calls, g.stateCols, g.localIn, g.in, g.out, g.opts, 0)
	fresh.scripts = g.scripts
	if err := fresh.Open(ctx); err != nil {
		return false, err
	}
	if err := fresh.loadState(rec, nil); err != nil {
		closeMergers(fresh.accs)
		return false, err
	}
	closeMergers(g.accs)
	g.table, g.accs, g.nGroups = fresh.table, fresh.accs, fresh.nGroups
	g.delta.renumbered()
	g.ttl.access = fresh.ttl.access
	g.ttl.mark = 2 * max(len(live), compactMinGroups/2)
	g.seen, g.last = nil, nil
	return true, nil
}

// touchAccess sets the access time of the bundle's groups to now.
func (g *GlobalGroupAggregate) touchAccess(ids []uint32) {
	if g.opts.StateTTL <= 0 {
		return
	}
	now := g.ttl.nanos()
	for len(g.ttl.access) < g.nGroups {
		g.ttl.access = append(g.ttl.access, now)
	}
	for _, id := range ids {
		g.ttl.access[id] = now
	}
}
