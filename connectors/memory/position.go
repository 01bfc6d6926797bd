package memory

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position of the memory source
// (vectorized.CheckpointedSource): the non-keyed part "position" holds
// the number of stored batches emitted ("batches"). The source runs as a
// single instance.

var _ vectorized.CheckpointedSource = (*source)(nil)

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *source) SnapshotPosition(w vectorized.StateWriter) error {
	b := array.NewInt64Builder(vectorized.Mem)
	defer b.Release()
	b.Append(int64(s.next))
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "batches", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 1)
	defer rec.Release()
	if err := w.Write("position", rec); err != nil {
		return fmt.Errorf("memory source: snapshot position: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource.
func (s *source) RestorePosition(r vectorized.StateReader) error {
	var pos []int64
	err := r.Read("position", func(rec arrow.RecordBatch) error {
		a, ok := rec.Column(0).(*array.Int64)
		if rec.NumCols() != 1 || !ok {
			return fmt.Errorf("memory source: restoring the position: unexpected state schema %s", rec.Schema())
		}
		for i := 0; i < a.Len(); i++ {
			pos = append(pos, a.Value(i))
		}
		return nil
	})
	if err != nil || len(pos) == 0 {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("not supported yet: restoring a memory source written by %d instances", len(pos))
	}
	if pos[0] < 0 || pos[0] > int64(len(s.batches)) {
		return fmt.Errorf("memory source: restoring the position: batch %d out of range for %d batches (the data changed?)", pos[0], len(s.batches))
	}
	s.start, s.next = int(pos[0]), int(pos[0])
	return nil
}
