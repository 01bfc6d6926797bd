package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of the time-bounded joins (see vectorized.Stateful and
// state_common.go).
//
// IntervalJoin writes the keyed parts "left" and "right": key_group (of
// the side's join keys), "matched" (BOOLEAN: the row has met a partner,
// for outer sides), then the side's columns; one row per kept row. The
// operator time is the last watermark (part "markers").
//
// WindowJoin writes the keyed parts "left" and "right": key_group (of the
// keys the Exchange routes by: the join keys other than the window
// bounds), then the buffered rows of the windows that have not fired.
//
// LookupJoin keeps no state across a barrier: the barrier of its input
// waits for the end of the temporal table (the multi-input runner aligns
// barriers), which is read again in full when a job restores.

var (
	_ vectorized.Stateful = (*IntervalJoin)(nil)
	_ vectorized.Stateful = (*WindowJoin)(nil)
	_ vectorized.Stateful = (*LookupJoin)(nil)
)

var timeJoinParts = [2]string{"left", "right"}

// stateSchema is key_group, extra, then the columns of s.
func stateSchema(s types.Schema, extra ...arrow.Field) (*arrow.Schema, error) {
	as, err := types.ArrowSchema(s)
	if err != nil {
		return nil, err
	}
	fields := append([]arrow.Field{keyGroupField}, extra...)
	return arrow.NewSchema(append(fields, as.Fields()...), nil), nil
}

// writeKeyed writes the rows of rec with their key groups (over keys) and
// the extra columns into part.
func writeKeyed(w vectorized.StateWriter, part string, schema *arrow.Schema, rec arrow.RecordBatch, keys []int, extra ...arrow.Array) error {
	cols := append([]arrow.Array{int32Array(keyGroupsOf(rec, keys))}, extra...)
	cols = append(cols, rec.Columns()...)
	out := array.NewRecordBatch(schema, cols, rec.NumRows())
	defer out.Release()
	if err := w.Write(part, out); err != nil {
		return fmt.Errorf("snapshot %s: %w", part, err)
	}
	return nil
}

// readKeyed calls fn with the rows of part whose key group r owns: a
// record of the columns after the nextra extra columns, and the indexes
// of the rows in the state record (for the extra columns).
func readKeyed(r vectorized.StateReader, part string, schema *arrow.Schema, nextra int, fn func(state, rows arrow.RecordBatch, idx []int32) error) error {
	rowSchema := arrow.NewSchema(schema.Fields()[1+nextra:], nil)
	return r.Read(part, func(rec arrow.RecordBatch) error {
		if err := checkStateSchema(part, rec, schema); err != nil {
			return err
		}
		kg := rec.Column(0).(*array.Int32)
		var idx []int32
		for i := 0; i < kg.Len(); i++ {
			if r.Owns(int(kg.Value(i))) {
				idx = append(idx, int32(i))
			}
		}
		if len(idx) == 0 {
			return nil
		}
		cols := make([]arrow.Array, rowSchema.NumFields())
		for c := range cols {
			a, err := GatherArray(rec.Column(1+nextra+c), idx)
			if err != nil {
				return err
			}
			cols[c] = a
		}
		rows, err := NewRecord(rowSchema, cols, int64(len(idx)))
		if err != nil {
			return err
		}
		return fn(rec, rows, idx)
	})
}

var matchedField = arrow.Field{Name: "matched", Type: arrow.FixedWidthTypes.Boolean}

// SnapshotState implements vectorized.Stateful.
func (j *IntervalJoin) SnapshotState(_ context.Context, w vectorized.StateWriter) error {
	for side, s := range j.sides {
		schema, err := stateSchema(s.schema, matchedField)
		if err != nil {
			return err
		}
		var refs []rowRef
		mb := array.NewBooleanBuilder(vectorized.Mem)
		flush := func() error {
			if len(refs) == 0 {
				return nil
			}
			cols := make([]arrow.Array, len(s.schema))
			for c, f := range s.schema {
				if cols[c], err = gatherRefs(s.batches, c, f.Type, s.types[c], refs); err != nil {
					return err
				}
			}
			rows, err := NewRecord(arrow.NewSchema(schema.Fields()[2:], nil), cols, int64(len(refs)))
			if err != nil {
				return err
			}
			matched := mb.NewArray()
			err = writeKeyed(w, timeJoinParts[side], schema, rows, s.keys, matched)
			refs = refs[:0]
			return err
		}
		for _, list := range s.lists {
			for _, e := range list {
				refs = append(refs, e.ref)
				mb.Append(e.matched)
				if len(refs) == stateRowsPerBatch {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		mb.Release()
	}
	return j.markers.snapshot(w)
}

// RestoreState implements vectorized.Stateful. It is called after Open.
func (j *IntervalJoin) RestoreState(_ context.Context, r vectorized.StateReader) error {
	for side, s := range j.sides {
		schema, err := stateSchema(s.schema, matchedField)
		if err != nil {
			return err
		}
		err = readKeyed(r, timeJoinParts[side], schema, 1, func(state, rows arrow.RecordBatch, idx []int32) error {
			m := state.Column(1).(*array.Boolean)
			return j.restoreRows(side, rows, func(i int) bool { return m.Value(int(idx[i])) })
		})
		if err != nil {
			return err
		}
	}
	if err := j.markers.restore(r); err != nil {
		return err
	}
	if j.spec.RowTime && j.markers.last != math.MinInt64 {
		j.now = j.markers.last
	}
	return nil
}

// restoreRows adds the rows of rec to the state of side.
func (j *IntervalJoin) restoreRows(side int, rec arrow.RecordBatch, matched func(i int) bool) error {
	me, other := j.sides[side], j.sides[1-side]
	n := int(rec.NumRows())
	ids := make([]uint32, n)
	if j.table != nil {
		keys := make([]arrow.Array, len(me.keys))
		for i, k := range me.keys {
			keys[i] = rec.Column(k)
		}
		if err := j.table.Insert(keys, n, ids); err != nil {
			return err
		}
		for _, s := range []*ijSide{me, other} {
			if g := j.table.Len(); g > len(s.lists) {
				s.lists = append(s.lists, make([][]ijEntry, g-len(s.lists))...)
			}
		}
	}
	batchNo := int32(len(me.batches))
	me.batches = append(me.batches, rec)
	me.live = append(me.live, 0)
	tc := rec.Column(me.timeCol)
	for i, g := range ids {
		t, ok, err := eventMillis(tc, i)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("restoring %s: a kept row without a time", timeJoinParts[side])
		}
		me.lists[g] = append(me.lists[g], ijEntry{ref: rowRef{batch: batchNo, row: int32(i)}, t: t, matched: matched(i)})
		me.live[batchNo]++
		me.kept++
		me.minExpiry = min(me.minExpiry, j.expiry(side, t))
	}
	return nil
}

// SnapshotState implements vectorized.Stateful.
func (j *WindowJoin) SnapshotState(_ context.Context, w vectorized.StateWriter) error {
	if j.disk != nil {
		return j.diskSnapshot(w) // state_timejoin_disk.go
	}
	for side, buf := range j.bufs {
		schema, err := stateSchema(j.sideSchema(side))
		if err != nil {
			return err
		}
		for _, end := range sortedEnds(buf) {
			for _, b := range buf[end] {
				if err := writeKeyed(w, timeJoinParts[side], schema, b.Rec, j.spec.HashKeys[side]); err != nil {
					return err
				}
			}
		}
	}
	return j.markers.snapshot(w)
}

// RestoreState implements vectorized.Stateful. It is called after Open.
func (j *WindowJoin) RestoreState(_ context.Context, r vectorized.StateReader) error {
	if j.disk != nil {
		if done, err := j.diskRestore(r); done || err != nil {
			return err // state_timejoin_disk.go; else the buffers take the canonical parts
		}
	} else if err := refuseStoreFiles("WindowJoin", r); err != nil {
		return err
	}
	for side := range j.bufs {
		schema, err := stateSchema(j.sideSchema(side))
		if err != nil {
			return err
		}
		err = readKeyed(r, timeJoinParts[side], schema, 0, func(_, rows arrow.RecordBatch, _ []int32) error {
			return j.buffer(side, vectorized.Batch{Rec: rows}, false)
		})
		if err != nil {
			return err
		}
	}
	if err := j.markers.restore(r); err != nil {
		return err
	}
	j.wm = j.markers.last
	return nil
}

// sideSchema returns the input schema of side as SQL types.
func (j *WindowJoin) sideSchema(side int) types.Schema {
	if side == 0 {
		return j.spec.LeftTypes
	}
	return j.spec.RightTypes
}

// SnapshotState implements vectorized.Stateful: nothing is kept across a
// barrier (see above); a barrier that overtook the end of the temporal
// table fails the checkpoint.
func (j *LookupJoin) SnapshotState(context.Context, vectorized.StateWriter) error {
	if !j.loaded && len(j.pending) > 0 {
		return fmt.Errorf("not supported yet: a checkpoint of a lookup join before its temporal table is read")
	}
	return nil
}

// RestoreState implements vectorized.Stateful.
func (j *LookupJoin) RestoreState(context.Context, vectorized.StateReader) error { return nil }

// TemporalJoin writes the keyed parts "left" (the left rows waiting for
// the watermark, in arrival order: key_group of the left keys, then the
// left columns) and "right" (the kept versions, key by key in time
// order: key_group of the right keys, "gone", then the right columns),
// and the watermarks ("markers").

var (
	_         vectorized.Stateful = (*TemporalJoin)(nil)
	goneField                     = arrow.Field{Name: "gone", Type: arrow.FixedWidthTypes.Boolean}
)

// SnapshotState implements vectorized.Stateful.
func (j *TemporalJoin) SnapshotState(_ context.Context, w vectorized.StateWriter) error {
	lschema, err := stateSchema(j.spec.Left)
	if err != nil {
		return err
	}
	for lo := 0; lo < len(j.waiting); lo += stateRowsPerBatch {
		part := j.waiting[lo:min(lo+stateRowsPerBatch, len(j.waiting))]
		refs := make([]rowRef, len(part))
		for i, l := range part {
			refs[i] = l.ref
		}
		rows, err := j.sideRecord(0, refs)
		if err != nil {
			return err
		}
		if err := writeKeyed(w, "left", lschema, rows, j.spec.LeftKeys); err != nil {
			return err
		}
	}
	rschema, err := stateSchema(j.spec.Right, goneField)
	if err != nil {
		return err
	}
	var refs []rowRef
	gone := array.NewBooleanBuilder(vectorized.Mem)
	defer gone.Release()
	flush := func() error {
		if len(refs) == 0 {
			return nil
		}
		rows, err := j.sideRecord(1, refs)
		if err != nil {
			return err
		}
		refs = refs[:0]
		return writeKeyed(w, "right", rschema, rows, j.spec.RightKeys, gone.NewArray())
	}
	for _, vs := range j.versions {
		for _, v := range vs {
			refs = append(refs, v.ref)
			gone.Append(v.gone)
			if len(refs) == stateRowsPerBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return j.markers.snapshot(w)
}

// sideRecord gathers the rows refs of side 0 (left) or 1 (right).
func (j *TemporalJoin) sideRecord(side int, refs []rowRef) (arrow.RecordBatch, error) {
	s, batches, dts := j.spec.Left, j.lbatches, j.ltypes
	if side == 1 {
		s, batches, dts = j.spec.Right, j.rbatches, j.rtypes
	}
	cols := make([]arrow.Array, len(s))
	for c, f := range s {
		a, err := gatherRefs(batches, c, f.Type, dts[c], refs)
		if err != nil {
			return nil, err
		}
		cols[c] = a
	}
	as, err := types.ArrowSchema(s)
	if err != nil {
		return nil, err
	}
	return NewRecord(as, cols, int64(len(refs)))
}

// RestoreState implements vectorized.Stateful. It is called after Open.
func (j *TemporalJoin) RestoreState(_ context.Context, r vectorized.StateReader) error {
	lschema, err := stateSchema(j.spec.Left)
	if err != nil {
		return err
	}
	err = readKeyed(r, "left", lschema, 0, func(_, rows arrow.RecordBatch, _ []int32) error {
		return j.addLeft(vectorized.Batch{Rec: rows})
	})
	if err != nil {
		return err
	}
	rschema, err := stateSchema(j.spec.Right, goneField)
	if err != nil {
		return err
	}
	err = readKeyed(r, "right", rschema, 1, func(state, rows arrow.RecordBatch, idx []int32) error {
		g := state.Column(1).(*array.Boolean)
		kinds := make([]changelog.RowKind, len(idx))
		for i, x := range idx {
			kinds[i] = changelog.Insert
			if g.Value(int(x)) {
				kinds[i] = changelog.Delete
			}
		}
		return j.addRight(vectorized.Batch{Rec: rows, Kinds: kinds})
	})
	if err != nil {
		return err
	}
	if err := j.markers.restore(r); err != nil {
		return err
	}
	j.wm = j.markers.last
	return nil
}
