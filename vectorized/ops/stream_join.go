package ops

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// StreamJoinSpec describes a streaming regular join.
type StreamJoinSpec struct {
	// Kind is inner, left, right, full, semi or anti (not the null-aware
	// anti join of NOT IN).
	Kind logical.JoinKind
	// LeftKeys and RightKeys are the equality keys (of equal types); none
	// means every row has the same key. A NULL key matches nothing,
	// except where NullSafe marks the key (IS NOT DISTINCT FROM).
	LeftKeys, RightKeys []int
	NullSafe            []bool
	// Left, Right and Out are the schemas; Out is Left ++ Right (Left for
	// semi and anti joins).
	Left, Right, Out types.Schema
	// Cond is the non-equality part of the condition, over a record of
	// the Left ++ Right columns; nil is TRUE.
	Cond Selector
}

// StreamJoin is Flink's streaming regular join (StreamingJoinOperator):
// both inputs are changelogs, every row is kept in the state of its side
// under its join key, and every input row immediately emits its joined
// changes, in input order. An inner join forwards the input's row kind
// (+I/+U/-U/-D); an outer join emits +I and -D only: a row of an outer
// side without a match is emitted padded with NULLs (+I[l, null]) and
// retracted (-D[l, null]) when its first match arrives, and re-emitted
// when its last match is retracted. The rows of one key are matched in
// insertion order.
//
// Semi and anti joins (Flink's StreamingSemiAntiJoinOperator) emit left
// rows only: a left row passes with its own kind when it has a match
// (semi) or none (anti); a right row that gives a left row its first
// match emits that row (semi: with the right row's kind; anti: -D), and
// one that takes away its last match emits it again (semi: with the right
// row's kind; anti: +I).
//
// It is vectorized per batch: the batch's keys are mapped to ids by one
// agg.GroupTable probe shared by both sides; as the other side's state
// does not change while a batch of this side is processed, every
// candidate pair of the batch is known up front and the non-equi
// condition runs once over all of them; one sequential pass then updates
// the state (association counts of outer rows) and lists the output rows,
// which are gathered column by column. State keeps the input batches
// themselves and per key a list of row references.
type StreamJoin struct {
	spec    StreamJoinSpec
	table   agg.GroupTable // nil without keys: one key id 0
	sides   [2]*joinSide
	markers *inputMarkers
	out     *arrow.Schema
	cond    *arrow.Schema // Left ++ Right, for Cond
	disk    *joinDisk     // state.backend.type 'rocksdb' (state_join_disk.go)
}

type joinSide struct {
	schema  types.Schema
	types   []arrow.DataType
	keys    []int
	outer   bool
	batches []arrow.RecordBatch
	lists   [][]joinEntry // by key id, in insertion order
	keyBuf  []arrow.Array
	ids     []uint32
}

// joinEntry is one row in a side's state (each copy of a duplicate row is
// its own entry). assoc counts its current matches (outer sides).
type joinEntry struct {
	ref   rowRef
	assoc int32
}

// NewStreamJoin returns a streaming join.
func NewStreamJoin(spec StreamJoinSpec) *StreamJoin {
	j := &StreamJoin{spec: spec, markers: newInputMarkers(2)}
	j.sides[0] = &joinSide{schema: spec.Left, keys: spec.LeftKeys, outer: spec.Kind == logical.LeftJoin || spec.Kind == logical.FullJoin || j.semiAnti()}
	j.sides[1] = &joinSide{schema: spec.Right, keys: spec.RightKeys, outer: spec.Kind == logical.RightJoin || spec.Kind == logical.FullJoin}
	return j
}

// Open implements the multi-input operator protocol.
func (j *StreamJoin) Open(context.Context) error {
	switch j.spec.Kind {
	case logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin, logical.SemiJoin, logical.AntiJoin:
	default:
		return fmt.Errorf("not supported yet: %s in streaming mode", j.spec.Kind)
	}
	if len(j.spec.LeftKeys) != len(j.spec.RightKeys) {
		return fmt.Errorf("internal: %d left keys and %d right keys", len(j.spec.LeftKeys), len(j.spec.RightKeys))
	}
	if j.semiAnti() {
		if len(j.spec.Out) != len(j.spec.Left) {
			return fmt.Errorf("internal: %s output of %d columns for a left input of %d", j.spec.Kind, len(j.spec.Out), len(j.spec.Left))
		}
	} else if len(j.spec.Out) != len(j.spec.Left)+len(j.spec.Right) {
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
		j.sides[0].lists = make([][]joinEntry, 1)
		j.sides[1].lists = make([][]joinEntry, 1)
	}
	if j.disk != nil {
		return j.openDisk()
	}
	return nil
}

// Process feeds one batch of side 0 (left) or 1 (right).
func (j *StreamJoin) Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	me, other := j.sides[side], j.sides[1-side]
	rec := b.Rec
	if int(rec.NumCols()) != len(me.schema) {
		return fmt.Errorf("internal: join input of %d columns, want %d", rec.NumCols(), len(me.schema))
	}

	// Key ids and NULL keys.
	me.ids = resize(me.ids, n)
	ids := me.ids
	before := 0
	if j.disk != nil {
		if err := j.maybeEvictJoin(); err != nil { // state_join_disk.go
			return err
		}
		if j.table != nil {
			before = j.table.Len()
		}
	}
	if err := joinKeyIDs(j.table, me.keys, me.keyBuf, rec, ids, &me.lists, &other.lists); err != nil {
		return err
	}
	if j.disk != nil {
		if err := j.loadNewKeys(me, rec, ids, before); err != nil {
			return err
		}
		j.disk.markDirty(ids, len(me.lists))
		j.disk.bytes += recBytes(rec)
	}
	var nullKey []bool
	for ki, k := range me.keys {
		c := rec.Column(k)
		if c.NullN() == 0 || ki < len(j.spec.NullSafe) && j.spec.NullSafe[ki] {
			continue
		}
		if nullKey == nil {
			nullKey = make([]bool, n)
		}
		for i := range n {
			if c.IsNull(i) {
				nullKey[i] = true
			}
		}
	}
	batchNo := int32(len(me.batches))
	me.batches = append(me.batches, rec)

	// Candidate pairs: the other side's state is fixed during this batch.
	start := make([]int32, n+1)
	var pairRow []int32
	var pairPos []int32
	for i, g := range ids {
		start[i] = int32(len(pairPos))
		if nullKey != nil && nullKey[i] {
			continue
		}
		for p := range other.lists[g] {
			pairRow = append(pairRow, int32(i))
			pairPos = append(pairPos, int32(p))
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

	// Sequential pass: state updates and the output rows, in row order.
	var mine []int32
	var theirs []rowRef
	var kinds []changelog.RowKind
	emit := func(k changelog.RowKind, row int32, ref rowRef) {
		mine = append(mine, row)
		theirs = append(theirs, ref)
		kinds = append(kinds, k)
	}
	var matches []int32
	for i, g := range ids {
		matches = matches[:0]
		for p := start[i]; p < start[i+1]; p++ {
			if ok == nil || ok[p] {
				matches = append(matches, pairPos[p])
			}
		}
		olist := other.lists[g]
		kind := b.Kind(i)
		hasKey := nullKey == nil || !nullKey[i]
		if j.semiAnti() {
			j.semiAntiRow(side, me, olist, batchNo, i, g, hasKey, kind, matches, rec, emit)
			continue
		}
		if !kind.IsRetraction() {
			if hasKey {
				me.lists[g] = append(me.lists[g], joinEntry{ref: rowRef{batch: batchNo, row: int32(i)}, assoc: int32(len(matches))})
			}
			if me.outer && len(matches) == 0 {
				emit(changelog.Insert, int32(i), noRef)
				continue
			}
			if other.outer {
				for _, p := range matches {
					if olist[p].assoc == 0 {
						emit(changelog.Delete, -1, olist[p].ref)
					}
					olist[p].assoc++
				}
			}
			k := kind
			if me.outer || other.outer {
				k = changelog.Insert
			}
			for _, p := range matches {
				emit(k, int32(i), olist[p].ref)
			}
			continue
		}
		// A retraction: drop one copy of the row from the state.
		if hasKey {
			j.removeRow(me, g, rec, i)
		}
		if len(matches) == 0 {
			if me.outer {
				emit(changelog.Delete, int32(i), noRef)
			}
			continue
		}
		k := kind
		if me.outer || other.outer {
			k = changelog.Delete
		}
		for _, p := range matches {
			emit(k, int32(i), olist[p].ref)
		}
		if other.outer {
			for _, p := range matches {
				if olist[p].assoc == 1 {
					emit(changelog.Insert, -1, olist[p].ref)
				}
				olist[p].assoc--
			}
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	cols, err := j.columns(side, rec, mine, theirs)
	if err != nil {
		return err
	}
	outRec, err := NewRecord(j.out, cols, int64(len(kinds)))
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: outRec, Kinds: kinds})
}

// semiAntiRow processes row i of a semi or anti join.
func (j *StreamJoin) semiAntiRow(side int, me *joinSide, olist []joinEntry, batchNo int32, i int, g uint32, hasKey bool,
	kind changelog.RowKind, matches []int32, rec arrow.RecordBatch, emit func(changelog.RowKind, int32, rowRef)) {
	anti := j.spec.Kind == logical.AntiJoin
	if side == 0 {
		if (len(matches) > 0) != anti {
			emit(kind, int32(i), noRef)
		}
		if !hasKey {
			return
		}
		if !kind.IsRetraction() {
			me.lists[g] = append(me.lists[g], joinEntry{ref: rowRef{batch: batchNo, row: int32(i)}, assoc: int32(len(matches))})
			return
		}
		j.removeRow(me, g, rec, i)
		return
	}
	if !kind.IsRetraction() {
		if hasKey {
			me.lists[g] = append(me.lists[g], joinEntry{ref: rowRef{batch: batchNo, row: int32(i)}})
		}
		for _, p := range matches {
			if olist[p].assoc == 0 {
				k := kind
				if anti {
					k = changelog.Delete
				}
				emit(k, -1, olist[p].ref)
			}
			olist[p].assoc++
		}
		return
	}
	if hasKey {
		j.removeRow(me, g, rec, i)
	}
	for _, p := range matches {
		if olist[p].assoc == 1 {
			k := kind
			if anti {
				k = changelog.Insert
			}
			emit(k, -1, olist[p].ref)
		}
		olist[p].assoc--
	}
}

// removeRow drops one copy of row i of rec from side s's list g.
func (j *StreamJoin) removeRow(s *joinSide, g uint32, rec arrow.RecordBatch, i int) {
	list := s.lists[g]
	for x, e := range list {
		if j.sameRow(s, e.ref, rec, i) {
			s.lists[g] = append(list[:x:x], list[x+1:]...)
			return
		}
	}
}

func (j *StreamJoin) semiAnti() bool {
	return j.spec.Kind == logical.SemiJoin || j.spec.Kind == logical.AntiJoin
}

// columns gathers the output columns: the input side's from rec by row
// index (-1: NULL), the other side's from its state by reference. A semi
// or anti join outputs the left side only: the left row is the input row
// (side 0) or the state row (side 1).
func (j *StreamJoin) columns(side int, rec arrow.RecordBatch, mine []int32, theirs []rowRef) ([]arrow.Array, error) {
	if j.semiAnti() {
		if side == 0 {
			return j.sideColumns(0, rec, mine)
		}
		return j.stateColumns(0, theirs)
	}
	return j.pairColumns(side, rec, mine, theirs)
}

func (j *StreamJoin) sideColumns(side int, rec arrow.RecordBatch, rows []int32) ([]arrow.Array, error) {
	var cols []arrow.Array
	for c := range j.sides[side].schema {
		a, err := GatherArray(rec.Column(c), rows)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return cols, nil
}

func (j *StreamJoin) stateColumns(side int, refs []rowRef) ([]arrow.Array, error) {
	s := j.sides[side]
	var cols []arrow.Array
	for c, f := range s.schema {
		a, err := gatherRefs(s.batches, c, f.Type, s.types[c], refs)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return cols, nil
}

// pairColumns gathers left ++ right columns of (input row, state row)
// pairs.
func (j *StreamJoin) pairColumns(side int, rec arrow.RecordBatch, mine []int32, theirs []rowRef) ([]arrow.Array, error) {
	other := j.sides[1-side]
	return joinPairColumns(side, rec, j.sides[side].schema, mine, other.schema, other.types, other.batches, theirs)
}

// evalCond evaluates the non-equi condition over every candidate pair and
// returns which hold.
func (j *StreamJoin) evalCond(side int, rec arrow.RecordBatch, ids []uint32, pairRow, pairPos []int32) ([]bool, error) {
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

// joinPairColumns gathers the columns of candidate pairs of a two-sided
// join, left columns first: row mine[k] of rec (a batch of side side)
// with the kept row theirs[k] of the other side (its batches, schema and
// Arrow types).
func joinPairColumns(side int, rec arrow.RecordBatch, mySchema types.Schema, mine []int32,
	otherSchema types.Schema, otherTypes []arrow.DataType, otherBatches []arrow.RecordBatch, theirs []rowRef) ([]arrow.Array, error) {
	var myCols, otherCols []arrow.Array
	for c := range mySchema {
		a, err := GatherArray(rec.Column(c), mine)
		if err != nil {
			return nil, err
		}
		myCols = append(myCols, a)
	}
	for c, f := range otherSchema {
		a, err := gatherRefs(otherBatches, c, f.Type, otherTypes[c], theirs)
		if err != nil {
			return nil, err
		}
		otherCols = append(otherCols, a)
	}
	if side == 0 {
		return append(myCols, otherCols...), nil
	}
	return append(otherCols, myCols...), nil
}

// selectPairs evaluates a join condition over n candidate pairs (cols in
// the pair schema) and returns which hold.
func selectPairs(cond Selector, schema *arrow.Schema, cols []arrow.Array, n int) ([]bool, error) {
	pairs, err := NewRecord(schema, cols, int64(n))
	if err != nil {
		return nil, err
	}
	sel, err := cond.Select(pairs)
	if err != nil {
		return nil, err
	}
	ok := make([]bool, n)
	for _, s := range sel {
		ok[s] = true
	}
	return ok, nil
}

// sameRow reports whether the state row ref of side s equals row i of rec.
func (j *StreamJoin) sameRow(s *joinSide, ref rowRef, rec arrow.RecordBatch, i int) bool {
	kept := s.batches[ref.batch]
	for c, f := range s.schema {
		x := types.GetValue(kept.Column(c), int(ref.row), f.Type)
		y := types.GetValue(rec.Column(c), i, f.Type)
		if x == nil || y == nil {
			if x != y {
				return false
			}
			continue
		}
		if reflect.TypeOf(x).Comparable() && reflect.TypeOf(y).Comparable() {
			if x != y {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// OnMarker handles a marker of one side: the join's watermark is the
// minimum of both sides'; EndOfInput is forwarded once both sides have
// ended.
func (j *StreamJoin) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	return j.markers.onMarker(ctx, side, m, out)
}

// Close releases the state.
func (j *StreamJoin) Close() error {
	for _, s := range j.sides {
		s.batches, s.lists = nil, nil
	}
	j.table = nil
	return j.disk.close()
}

// joinKeyTable returns the group table of a two-sided join's equality
// keys (the sides' key columns must have the same Arrow types).
func joinKeyTable(left, right []arrow.DataType, leftKeys, rightKeys []int) (agg.GroupTable, error) {
	kts := make([]arrow.DataType, len(leftKeys))
	for i, k := range leftKeys {
		kts[i] = left[k]
		if rt := right[rightKeys[i]]; !arrow.TypeEqual(kts[i], rt) {
			return nil, fmt.Errorf("internal: join key %d is %s on the left and %s on the right", i, kts[i], rt)
		}
	}
	return agg.NewGroupTable(kts)
}

// joinKeyIDs looks up the key columns keys of rec in the join-key table
// (keyBuf is scratch) into ids, one per row, and grows both sides' per-key
// lists to the table's size; without a table every row has key 0.
func joinKeyIDs[E any](table agg.GroupTable, keys []int, keyBuf []arrow.Array, rec arrow.RecordBatch, ids []uint32, mine, others *[][]E) error {
	if table == nil {
		clear(ids)
		return nil
	}
	for i, k := range keys {
		keyBuf[i] = rec.Column(k)
	}
	if err := table.Insert(keyBuf, len(ids), ids); err != nil {
		return err
	}
	growLists(table.Len(), mine, others)
	return nil
}

// growLists makes room for g keys in both sides' per-key lists.
func growLists[E any](g int, mine, others *[][]E) {
	if g > len(*mine) {
		*mine = append(*mine, make([][]E, g-len(*mine))...)
	}
	if g > len(*others) {
		*others = append(*others, make([][]E, g-len(*others))...)
	}
}
