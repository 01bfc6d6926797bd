package memory

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position of the memory source
// (vectorized.CheckpointedSource): the non-keyed part "position" holds one
// row per instance: the next stored batch it would emit ("batches"), its
// split and the number of splits. A restore needs the same parallelism
// (the stored batches live in this process; rescaling them is not
// supported yet). A position of one column ("batches") is a single
// instance's.

var _ vectorized.CheckpointedSource = (*source)(nil)

var positionSchema = arrow.NewSchema([]arrow.Field{
	{Name: "batches", Type: arrow.PrimitiveTypes.Int64},
	{Name: "split", Type: arrow.PrimitiveTypes.Int32},
	{Name: "splits", Type: arrow.PrimitiveTypes.Int32},
}, nil)

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *source) SnapshotPosition(w vectorized.StateWriter) error {
	next := array.NewInt64Builder(vectorized.Mem)
	defer next.Release()
	next.Append(int64(s.next))
	split := array.NewInt32Builder(vectorized.Mem)
	defer split.Release()
	split.Append(int32(s.split))
	splits := array.NewInt32Builder(vectorized.Mem)
	defer splits.Release()
	splits.Append(int32(max(s.splits, 1)))
	cols := []arrow.Array{next.NewArray(), split.NewArray(), splits.NewArray()}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	rec := array.NewRecordBatch(positionSchema, cols, 1)
	defer rec.Release()
	if err := w.Write("position", rec); err != nil {
		return fmt.Errorf("memory source: snapshot position: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource.
func (s *source) RestorePosition(r vectorized.StateReader) error {
	type pos struct{ next, split, splits int64 }
	var rows []pos
	err := r.Read("position", func(rec arrow.RecordBatch) error {
		next, ok := rec.Column(0).(*array.Int64)
		if !ok || (rec.NumCols() != 1 && rec.NumCols() != 3) {
			return fmt.Errorf("memory source: restoring the position: unexpected state schema %s", rec.Schema())
		}
		if rec.NumCols() == 3 {
			split, ok := rec.Column(1).(*array.Int32)
			splits, ok2 := rec.Column(2).(*array.Int32)
			if !ok || !ok2 {
				return fmt.Errorf("memory source: restoring the position: unexpected state schema %s", rec.Schema())
			}
			for i := 0; i < next.Len(); i++ {
				rows = append(rows, pos{next.Value(i), int64(split.Value(i)), int64(splits.Value(i))})
			}
			return nil
		}
		for i := 0; i < next.Len(); i++ {
			rows = append(rows, pos{next.Value(i), 0, 1})
		}
		return nil
	})
	if err != nil || len(rows) == 0 {
		return err
	}
	mySplits := int64(max(s.splits, 1))
	found := false
	for _, p := range rows {
		if p.splits != mySplits || int64(len(rows)) != mySplits {
			return fmt.Errorf("not supported yet: restoring a memory source read by %d instances at parallelism %d", len(rows), mySplits)
		}
		if p.split != int64(s.split) {
			continue
		}
		if p.next < 0 || p.next%mySplits != int64(s.split) || p.next > int64(len(s.batches))+mySplits {
			return fmt.Errorf("memory source: restoring the position: batch %d out of range for %d batches (the data changed?)", p.next, len(s.batches))
		}
		s.start, s.next = int(p.next), int(p.next)
		found = true
	}
	if !found {
		return fmt.Errorf("memory source: restoring the position: no position of split %d", s.split)
	}
	return nil
}
