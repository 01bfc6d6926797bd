package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of StreamJoin and StreamUnion.
//
// StreamJoin writes the keyed parts "left" and "right": key_group (of the
// side's join key columns), "assoc" (INT: the row's current number of
// matches, for outer and semi/anti sides), then the side's columns; one
// row per stored copy of a row, key by key, each key's rows in insertion
// order (the order the join matches them in). Both the join and the union
// write the non-keyed part "markers": one row of the watermark of each
// input ("wm_0", "wm_1", …) and the last watermark forwarded ("last").

var (
	_ vectorized.Stateful = (*StreamJoin)(nil)
	_ vectorized.Stateful = (*StreamUnion)(nil)
)

var joinSideParts = [2]string{"left", "right"}

// joinStateSchema is key_group, assoc, then the side's columns.
func (j *StreamJoin) joinStateSchema(side int) (*arrow.Schema, error) {
	as, err := types.ArrowSchema(j.sides[side].schema)
	if err != nil {
		return nil, err
	}
	fields := []arrow.Field{keyGroupField, {Name: "assoc", Type: arrow.PrimitiveTypes.Int32}}
	return arrow.NewSchema(append(fields, as.Fields()...), nil), nil
}

// SnapshotState implements vectorized.Stateful.
func (j *StreamJoin) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	if j.disk != nil {
		return j.diskSnapshot(w) // state_join_disk.go
	}
	for side, s := range j.sides {
		schema, err := j.joinStateSchema(side)
		if err != nil {
			return err
		}
		var refs []rowRef
		var assoc []int32
		flush := func() error {
			if len(refs) == 0 {
				return nil
			}
			cols, err := j.stateColumns(side, refs)
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", joinSideParts[side], err)
			}
			rows := array.NewRecordBatch(arrow.NewSchema(schema.Fields()[2:], nil), cols, int64(len(refs)))
			all := append([]arrow.Array{int32Array(keyGroupsOf(rows, s.keys)), int32Array(assoc)}, cols...)
			rec := array.NewRecordBatch(schema, all, int64(len(refs)))
			err = w.Write(joinSideParts[side], rec)
			rec.Release()
			rows.Release()
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", joinSideParts[side], err)
			}
			refs, assoc = refs[:0], assoc[:0]
			return nil
		}
		for _, list := range s.lists {
			for _, e := range list {
				refs = append(refs, e.ref)
				assoc = append(assoc, e.assoc)
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
	}
	return j.markers.snapshot(w)
}

// RestoreState implements vectorized.Stateful. It is called after Open.
func (j *StreamJoin) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	if j.disk != nil {
		return j.diskRestore(r) // state_join_disk.go
	}
	if err := refuseStoreFiles("Join", r); err != nil {
		return err
	}
	for side, s := range j.sides {
		schema, err := j.joinStateSchema(side)
		if err != nil {
			return err
		}
		rowSchema := arrow.NewSchema(schema.Fields()[2:], nil)
		part := joinSideParts[side]
		err = r.Read(part, func(rec arrow.RecordBatch) error {
			if err := checkStateSchema(part, rec, schema); err != nil {
				return err
			}
			kg := rec.Column(0).(*array.Int32)
			as := rec.Column(1).(*array.Int32)
			var idx []int32
			for i := 0; i < kg.Len(); i++ {
				if r.Owns(int(kg.Value(i))) {
					idx = append(idx, int32(i))
				}
			}
			if len(idx) == 0 {
				return nil
			}
			cols := make([]arrow.Array, len(s.schema))
			for c := range cols {
				a, err := GatherArray(rec.Column(2+c), idx)
				if err != nil {
					return err
				}
				cols[c] = a
			}
			rows, err := NewRecord(rowSchema, cols, int64(len(idx)))
			if err != nil {
				return err
			}
			return j.restoreRows(side, rows, func(i int) int32 { return as.Value(int(idx[i])) })
		})
		if err != nil {
			return err
		}
	}
	return j.markers.restore(r)
}

// restoreRows adds the rows of rec to side's state with their association
// counts.
func (j *StreamJoin) restoreRows(side int, rec arrow.RecordBatch, assoc func(i int) int32) error {
	me, other := j.sides[side], j.sides[1-side]
	if me.lists == nil && j.table == nil {
		return fmt.Errorf("internal: join state restored before Open")
	}
	n := int(rec.NumRows())
	ids := make([]uint32, n)
	if j.table != nil {
		keys := make([]arrow.Array, len(me.keys))
		for i, k := range me.keys {
			keys[i] = rec.Column(k)
		}
		for lo := 0; lo < n; lo += stateRowsPerBatch {
			hi := min(lo+stateRowsPerBatch, n)
			part := make([]arrow.Array, len(keys))
			for i, k := range keys {
				part[i] = array.NewSlice(k, int64(lo), int64(hi))
			}
			if err := j.table.Insert(part, hi-lo, ids[lo:hi]); err != nil {
				return err
			}
		}
		growLists(j.table.Len(), &me.lists, &other.lists)
	}
	if len(me.batches) >= math.MaxInt32 {
		return fmt.Errorf("internal: too many join state batches")
	}
	batchNo := int32(len(me.batches))
	me.batches = append(me.batches, rec)
	for i, g := range ids {
		me.lists[g] = append(me.lists[g], joinEntry{ref: rowRef{batch: batchNo, row: int32(i)}, assoc: assoc(i)})
	}
	return nil
}

// SnapshotState implements vectorized.Stateful: the union's watermarks.
func (u *StreamUnion) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	return u.markers.snapshot(w)
}

// RestoreState implements vectorized.Stateful.
func (u *StreamUnion) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	return u.markers.restore(r)
}

// snapshot writes the watermarks of the inputs and the last forwarded
// one into the non-keyed part "markers". Ended inputs are not recorded:
// a restored input that has already ended ends again.
func (im *inputMarkers) snapshot(w vectorized.StateWriter) error {
	names := make([]string, 0, len(im.wm)+1)
	vals := make([]int64, 0, len(im.wm)+1)
	for i, v := range im.wm {
		names = append(names, fmt.Sprintf("wm_%d", i))
		vals = append(vals, v)
	}
	names = append(names, "last")
	vals = append(vals, im.last)
	return writeInt64s(w, "markers", names, vals)
}

// restore takes, per input, the minimum watermark of all former
// instances.
func (im *inputMarkers) restore(r vectorized.StateReader) error {
	mins, ok, err := minInt64s(r, "markers", len(im.wm)+1)
	if err != nil || !ok {
		return err
	}
	copy(im.wm, mins)
	im.last = mins[len(im.wm)]
	return nil
}
