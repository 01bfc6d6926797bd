package values

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position (vectorized.CheckpointedSource): the non-keyed
// part "position" holds the number of rows emitted ("offset"). The source
// runs as a single instance.

var _ vectorized.CheckpointedSource = (*Source)(nil)

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *Source) SnapshotPosition(w vectorized.StateWriter) error {
	b := array.NewInt64Builder(vectorized.Mem)
	defer b.Release()
	b.Append(int64(s.next))
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "offset", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 1)
	defer rec.Release()
	if err := w.Write("position", rec); err != nil {
		return fmt.Errorf("values source: snapshot position: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource.
func (s *Source) RestorePosition(r vectorized.StateReader) error {
	var offs []int64
	err := r.Read("position", func(rec arrow.RecordBatch) error {
		a, ok := rec.Column(0).(*array.Int64)
		if rec.NumCols() != 1 || !ok {
			return fmt.Errorf("values source: restoring the position: unexpected state schema %s", rec.Schema())
		}
		for i := 0; i < a.Len(); i++ {
			offs = append(offs, a.Value(i))
		}
		return nil
	})
	if err != nil || len(offs) == 0 {
		return err
	}
	if len(offs) > 1 {
		return fmt.Errorf("not supported yet: restoring a values source written by %d instances", len(offs))
	}
	if offs[0] < 0 || offs[0] > int64(len(s.rows)) {
		return fmt.Errorf("values source: restoring the position: offset %d out of range for %d rows (the table changed?)", offs[0], len(s.rows))
	}
	s.start, s.next = int(offs[0]), int(offs[0])
	return nil
}
