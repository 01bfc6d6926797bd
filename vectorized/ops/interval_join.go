package ops

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// IntervalJoinSpec describes an interval join.
type IntervalJoinSpec struct {
	// Kind is inner, left, right or full.
	Kind logical.JoinKind
	// LeftKeys and RightKeys are the equality keys (none: one key).
	LeftKeys, RightKeys []int
	// Left, Right and Out (Left ++ Right) are the schemas.
	Left, Right, Out types.Schema
	// Cond is the rest of the join condition (time bounds included) over
	// a record of Left ++ Right; nil is TRUE.
	Cond Selector
	// RowTime: the time columns are event-time attributes and state
	// expires with the watermark; otherwise with the clock.
	RowTime bool
	// LowerBound and UpperBound bound leftTime - rightTime, in
	// milliseconds (inclusive).
	LowerBound, UpperBound int64
	// LeftTime and RightTime are the time columns.
	LeftTime, RightTime int
	// Now returns the processing time in milliseconds; nil is the wall
	// clock.
	Now func() int64
}

// IntervalJoin is Flink's interval join (TimeIntervalJoin): both inputs
// are insert-only; a row is joined with the kept rows of the other side
// when it arrives, and kept itself as long as a later row of the other
// side can still match it: a left row at time t until the operator time
// (the watermark, or the clock) reaches t - LowerBound, a right row until
// it reaches t + UpperBound. A row of an outer side that expires without
// a match is emitted padded with NULLs. The output watermark is the input
// watermark held back by max(-LowerBound, UpperBound), as Flink's.
//
// Rows of a batch are matched against the other side's state with one
// condition evaluation over every candidate pair within the bounds;
// state keeps the input batches and per key a list of row references,
// and frees a batch when none of its rows is kept any longer.
type IntervalJoin struct {
	spec    IntervalJoinSpec
	table   agg.GroupTable
	sides   [2]*ijSide
	markers *inputMarkers
	out     *arrow.Schema
	cond    *arrow.Schema
	now     int64 // operator time: the last watermark, or the clock
	delay   int64
}

type ijSide struct {
	schema  types.Schema
	types   []arrow.DataType
	keys    []int
	timeCol int
	outer   bool
	batches []arrow.RecordBatch
	live    []int32 // kept rows per batch
	lists   [][]ijEntry
	keyBuf  []arrow.Array
	ids     []uint32
	// expiry of the earliest kept row (MaxInt64: none).
	minExpiry int64
	kept      int
}

type ijEntry struct {
	ref     rowRef
	t       int64
	matched bool
}

// NewIntervalJoin returns an interval join.
func NewIntervalJoin(spec IntervalJoinSpec) *IntervalJoin {
	j := &IntervalJoin{spec: spec, markers: newInputMarkers(2), now: math.MinInt64}
	j.sides[0] = &ijSide{schema: spec.Left, keys: spec.LeftKeys, timeCol: spec.LeftTime,
		outer: spec.Kind == logical.LeftJoin || spec.Kind == logical.FullJoin, minExpiry: math.MaxInt64}
	j.sides[1] = &ijSide{schema: spec.Right, keys: spec.RightKeys, timeCol: spec.RightTime,
		outer: spec.Kind == logical.RightJoin || spec.Kind == logical.FullJoin, minExpiry: math.MaxInt64}
	j.delay = max(-spec.LowerBound, spec.UpperBound, 0)
	return j
}

// Open implements the multi-input operator protocol.
func (j *IntervalJoin) Open(context.Context) error {
	switch j.spec.Kind {
	case logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin:
	default:
		return fmt.Errorf("not supported yet: %s interval joins", j.spec.Kind)
	}
	if len(j.spec.LeftKeys) != len(j.spec.RightKeys) {
		return fmt.Errorf("internal: %d left keys and %d right keys", len(j.spec.LeftKeys), len(j.spec.RightKeys))
	}
	if j.spec.LowerBound > j.spec.UpperBound {
		return fmt.Errorf("internal: interval join bounds [%d, %d]", j.spec.LowerBound, j.spec.UpperBound)
	}
	if len(j.spec.Out) != len(j.spec.Left)+len(j.spec.Right) {
		return fmt.Errorf("internal: join output of %d columns for inputs of %d and %d", len(j.spec.Out), len(j.spec.Left), len(j.spec.Right))
	}
	var err error
	if j.out, err = types.ArrowSchema(j.spec.Out); err != nil {
		return err
	}
	if j.cond, err = types.ArrowSchema(append(append(types.Schema{}, j.spec.Left...), j.spec.Right...)); err != nil {
		return err
	}
	for _, s := range j.sides {
		for _, f := range s.schema {
			t, err := types.ArrowType(f.Type)
			if err != nil {
				return err
			}
			s.types = append(s.types, t)
		}
		if s.timeCol < 0 || s.timeCol >= len(s.schema) {
			return fmt.Errorf("internal: time column $%d out of range", s.timeCol)
		}
		for _, k := range s.keys {
			if k < 0 || k >= len(s.schema) {
				return fmt.Errorf("internal: join key $%d out of range", k)
			}
		}
		s.keyBuf = make([]arrow.Array, len(s.keys))
	}
	if len(j.spec.LeftKeys) > 0 {
		if j.table, err = joinKeyTable(j.sides[0].types, j.sides[1].types, j.spec.LeftKeys, j.spec.RightKeys); err != nil {
			return err
		}
	} else {
		j.sides[0].lists = make([][]ijEntry, 1)
		j.sides[1].lists = make([][]ijEntry, 1)
	}
	return nil
}

// expiry returns the operator time from which a row of side at time t
// can match no later row of the other side.
func (j *IntervalJoin) expiry(side int, t int64) int64 {
	if side == 0 {
		return t - j.spec.LowerBound
	}
	return t + j.spec.UpperBound
}

// Process feeds one batch of side 0 (left) or 1 (right).
func (j *IntervalJoin) Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error {
	if !j.spec.RowTime {
		if err := j.advance(ctx, j.clock(), out); err != nil {
			return err
		}
	}
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	for i := range n {
		if b.Kind(i).IsRetraction() {
			return fmt.Errorf("internal: an interval join input must be insert-only, got %s", b.Kind(i))
		}
	}
	me, other := j.sides[side], j.sides[1-side]
	rec := b.Rec
	if int(rec.NumCols()) != len(me.schema) {
		return fmt.Errorf("internal: join input of %d columns, want %d", rec.NumCols(), len(me.schema))
	}
	me.ids = resize(me.ids, n)
	ids := me.ids
	if err := joinKeyIDs(j.table, me.keys, me.keyBuf, rec, ids, &me.lists, &other.lists); err != nil {
		return err
	}
	skip := make([]bool, n) // NULL key or time: matches nothing
	for _, k := range me.keys {
		c := rec.Column(k)
		if c.NullN() == 0 {
			continue
		}
		for i := range n {
			if c.IsNull(i) {
				skip[i] = true
			}
		}
	}
	times := make([]int64, n)
	tc := rec.Column(me.timeCol)
	for i := range n {
		t, ok, err := eventMillis(tc, i)
		if err != nil {
			return err
		}
		times[i] = t
		if !ok {
			skip[i] = true
		}
	}
	// Candidate pairs within the bounds.
	lo, hi := -j.spec.UpperBound, -j.spec.LowerBound // other.t - t for a left row
	if side == 1 {
		lo, hi = j.spec.LowerBound, j.spec.UpperBound
	}
	start := make([]int32, n+1)
	var pairRow, pairPos []int32
	for i, g := range ids {
		start[i] = int32(len(pairPos))
		if skip[i] {
			continue
		}
		for p, e := range other.lists[g] {
			if d := e.t - times[i]; d >= lo && d <= hi {
				pairRow = append(pairRow, int32(i))
				pairPos = append(pairPos, int32(p))
			}
		}
	}
	start[n] = int32(len(pairPos))
	var ok []bool
	if j.spec.Cond != nil && len(pairPos) > 0 {
		var err error
		if ok, err = j.evalCond(side, rec, ids, pairRow, pairPos); err != nil {
			return err
		}
	}
	batchNo := int32(len(me.batches))
	me.batches = append(me.batches, rec)
	me.live = append(me.live, 0)
	var mine []int32
	var theirs []rowRef
	for i, g := range ids {
		matched := false
		for p := start[i]; p < start[i+1]; p++ {
			if ok != nil && !ok[p] {
				continue
			}
			e := &other.lists[g][pairPos[p]]
			e.matched = true
			matched = true
			mine = append(mine, int32(i))
			theirs = append(theirs, e.ref)
		}
		if !skip[i] {
			if exp := j.expiry(side, times[i]); exp > j.now {
				me.lists[g] = append(me.lists[g], ijEntry{ref: rowRef{batch: batchNo, row: int32(i)}, t: times[i], matched: matched})
				me.live[batchNo]++
				me.kept++
				me.minExpiry = min(me.minExpiry, exp)
				continue
			}
		}
		if me.outer && !matched {
			mine = append(mine, int32(i))
			theirs = append(theirs, noRef)
		}
	}
	if me.live[batchNo] == 0 {
		me.batches[batchNo] = nil
	}
	if len(mine) == 0 {
		return nil
	}
	cols, err := j.pairColumns(side, rec, mine, theirs)
	if err != nil {
		return err
	}
	outRec, err := NewRecord(j.out, cols, int64(len(mine)))
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: outRec})
}

func (j *IntervalJoin) clock() int64 {
	if j.spec.Now != nil {
		return j.spec.Now()
	}
	return time.Now().UnixMilli()
}

// advance moves the operator time to now and expires the rows that can
// no longer match, emitting the unmatched rows of outer sides.
func (j *IntervalJoin) advance(ctx context.Context, now int64, out vectorized.Collector) error {
	if now <= j.now {
		return nil
	}
	j.now = now
	expired := false
	for side, s := range j.sides {
		if s.minExpiry > now {
			continue
		}
		expired = true
		if err := j.expire(ctx, side, func(e ijEntry) bool { return j.expiry(side, e.t) <= now }, out); err != nil {
			return err
		}
	}
	if expired {
		return j.compactKeys() // interval_join_compact.go
	}
	return nil
}

// expire drops the rows of side for which gone holds and emits the
// unmatched ones of an outer side padded with NULLs.
func (j *IntervalJoin) expire(ctx context.Context, side int, gone func(ijEntry) bool, out vectorized.Collector) error {
	s := j.sides[side]
	var padded []rowRef
	var times []int64
	s.minExpiry = math.MaxInt64
	for g, list := range s.lists {
		kept := list[:0]
		for _, e := range list {
			if !gone(e) {
				kept = append(kept, e)
				s.minExpiry = min(s.minExpiry, j.expiry(side, e.t))
				continue
			}
			if s.outer && !e.matched {
				padded = append(padded, e.ref)
				times = append(times, e.t)
			}
			s.kept--
			if s.live[e.ref.batch]--; s.live[e.ref.batch] == 0 && len(padded) == 0 {
				s.batches[e.ref.batch] = nil
			}
		}
		clear(list[len(kept):])
		s.lists[g] = kept
	}
	if len(padded) == 0 {
		return nil
	}
	if err := j.timerOrder(s, padded, times); err != nil {
		return err
	}
	other := j.sides[1-side]
	var mine, theirs []arrow.Array
	for c, f := range s.schema {
		a, err := gatherRefs(s.batches, c, f.Type, s.types[c], padded)
		if err != nil {
			return err
		}
		mine = append(mine, a)
	}
	nulls := make([]rowRef, len(padded))
	for i := range nulls {
		nulls[i] = noRef
	}
	for c, f := range other.schema {
		a, err := gatherRefs(other.batches, c, f.Type, other.types[c], nulls)
		if err != nil {
			return err
		}
		theirs = append(theirs, a)
	}
	for i := range s.live {
		if s.live[i] == 0 {
			s.batches[i] = nil
		}
	}
	cols := append(mine, theirs...)
	if side == 1 {
		cols = append(theirs, mine...)
	}
	rec, err := NewRecord(j.out, cols, int64(len(padded)))
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// pairColumns gathers left ++ right columns of (input row, state row)
// pairs; a row index of -1 or noRef is NULL.
func (j *IntervalJoin) pairColumns(side int, rec arrow.RecordBatch, mine []int32, theirs []rowRef) ([]arrow.Array, error) {
	other := j.sides[1-side]
	return joinPairColumns(side, rec, j.sides[side].schema, mine, other.schema, other.types, other.batches, theirs)
}

func (j *IntervalJoin) evalCond(side int, rec arrow.RecordBatch, ids []uint32, pairRow, pairPos []int32) ([]bool, error) {
	other := j.sides[1-side]
	refs := make([]rowRef, len(pairPos))
	for k, p := range pairPos {
		refs[k] = other.lists[ids[pairRow[k]]][p].ref
	}
	cols, err := j.pairColumns(side, rec, pairRow, refs)
	if err != nil {
		return nil, err
	}
	return selectPairs(j.spec.Cond, j.cond, cols, len(pairPos))
}

// OnMarker handles a marker of one side. With event time, the minimum
// watermark of the inputs expires state and is forwarded held back by
// the join's bounds; at the end of both inputs the unmatched rows of
// outer sides are emitted.
func (j *IntervalJoin) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	return j.markers.onMarker(ctx, side, m, &ijMarkers{j: j, out: out})
}

// ijMarkers receives the combined markers of the inputs.
type ijMarkers struct {
	j   *IntervalJoin
	out vectorized.Collector
}

// Emit implements vectorized.Collector.
func (c *ijMarkers) Emit(ctx context.Context, b vectorized.Batch) error { return c.out.Emit(ctx, b) }

// EmitMarker implements vectorized.Collector.
func (c *ijMarkers) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	j := c.j
	switch m.Kind {
	case vectorized.Watermark:
		if !j.spec.RowTime {
			return c.out.EmitMarker(ctx, m)
		}
		if err := j.advance(ctx, m.Watermark, c.out); err != nil {
			return err
		}
		w := m.Watermark
		if w > math.MinInt64+j.delay {
			w -= j.delay
		}
		return c.out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: w})
	case vectorized.EndOfInput:
		for side := range j.sides {
			if err := j.expire(ctx, side, func(ijEntry) bool { return true }, c.out); err != nil {
				return err
			}
		}
	}
	return c.out.EmitMarker(ctx, m)
}

// Close releases the state.
func (j *IntervalJoin) Close() error {
	for _, s := range j.sides {
		s.batches, s.lists, s.live = nil, nil, nil
	}
	j.table = nil
	return nil
}

// timerOrder sorts expired rows as Flink's timers fire: by time, then by
// the hash of the key (so that the order does not depend on how the state
// was built, e.g. restored from a checkpoint); rows of one key and time
// keep their order.
func (j *IntervalJoin) timerOrder(s *ijSide, refs []rowRef, times []int64) error {
	hashes := make([]uint64, len(refs))
	if len(s.keys) > 0 {
		cols := make([]arrow.Array, len(s.keys))
		fields := make([]arrow.Field, len(s.keys))
		for i, k := range s.keys {
			a, err := gatherRefs(s.batches, k, s.schema[k].Type, s.types[k], refs)
			if err != nil {
				return err
			}
			cols[i] = a
			fields[i] = arrow.Field{Name: s.schema[k].Name, Type: s.types[k], Nullable: true}
		}
		rec, err := NewRecord(arrow.NewSchema(fields, nil), cols, int64(len(refs)))
		if err != nil {
			return err
		}
		vectorized.HashColumns(rec, ijSeq(len(s.keys)), hashes)
	}
	idx := make([]int, len(refs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if times[x] != times[y] {
			return times[x] < times[y]
		}
		return hashes[x] < hashes[y]
	})
	sorted := make([]rowRef, len(refs))
	for i, k := range idx {
		sorted[i] = refs[k]
	}
	copy(refs, sorted)
	return nil
}

func ijSeq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
