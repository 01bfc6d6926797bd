package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of the watermark operators, Limit and the VALUES
// source.
//
// WatermarkAssigner writes the non-keyed part "watermark" ("wm": the
// largest watermark so far); WatermarkCalc (CURRENT_WATERMARK) writes
// "wm" and "seen" (0 or 1). Restored at another parallelism, an instance
// takes the minimum over the former instances. Values writes the
// non-keyed part "position": the number of rows emitted ("offset").
// Limit (streaming LIMIT over an insert-only input, a singleton) writes
// the non-keyed part "limit": the rows it has skipped ("skipped") and
// passed ("passed"); restored from several former instances it adds them
// up.

var (
	_ vectorized.Stateful           = (*WatermarkAssigner)(nil)
	_ vectorized.Stateful           = (*WatermarkCalc)(nil)
	_ vectorized.CheckpointedSource = (*Values)(nil)
	_ vectorized.Stateful           = (*Limit)(nil)
)

// SnapshotState implements vectorized.Stateful.
func (l *Limit) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	return writeInt64s(w, "limit", []string{"skipped", "passed"}, []int64{l.skipped, l.passed})
}

// RestoreState implements vectorized.Stateful.
func (l *Limit) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	var skipped, passed int64
	err := r.Read("limit", func(rec arrow.RecordBatch) error {
		s, ok1 := rec.Column(0).(*array.Int64)
		p, ok2 := rec.Column(1).(*array.Int64)
		if rec.NumCols() != 2 || !ok1 || !ok2 {
			return fmt.Errorf("restoring limit: unexpected state schema %s", rec.Schema())
		}
		for i := 0; i < s.Len(); i++ {
			skipped += s.Value(i)
			passed += p.Value(i)
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.skipped, l.passed = min(skipped, l.offset), passed
	return nil
}

// SnapshotState implements vectorized.Stateful.
func (w *WatermarkAssigner) SnapshotState(ctx context.Context, sw vectorized.StateWriter) error {
	return writeInt64s(sw, "watermark", []string{"wm"}, []int64{w.wm})
}

// RestoreState implements vectorized.Stateful.
func (w *WatermarkAssigner) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	mins, ok, err := minInt64s(r, "watermark", 1)
	if err != nil || !ok {
		return err
	}
	w.wm = mins[0]
	return nil
}

// SnapshotState implements vectorized.Stateful.
func (w *WatermarkCalc) SnapshotState(ctx context.Context, sw vectorized.StateWriter) error {
	seen := int64(0)
	if w.seen {
		seen = 1
	}
	return writeInt64s(sw, "watermark", []string{"wm", "seen"}, []int64{w.wm, seen})
}

// RestoreState implements vectorized.Stateful.
func (w *WatermarkCalc) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	mins, ok, err := minInt64s(r, "watermark", 2)
	if err != nil || !ok {
		return err
	}
	w.wm, w.seen = mins[0], mins[1] == 1
	return nil
}

// SnapshotPosition implements vectorized.CheckpointedSource.
func (v *Values) SnapshotPosition(w vectorized.StateWriter) error {
	return writeInt64s(w, "position", []string{"offset"}, []int64{int64(v.next)})
}

// RestorePosition implements vectorized.CheckpointedSource. VALUES runs as
// a single instance; a position written by several instances is an
// error.
func (v *Values) RestorePosition(r vectorized.StateReader) error {
	var offs []int64
	err := r.Read("position", func(rec arrow.RecordBatch) error {
		a, ok := rec.Column(0).(*array.Int64)
		if rec.NumCols() != 1 || !ok {
			return fmt.Errorf("restoring the VALUES position: unexpected state schema %s", rec.Schema())
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
		return fmt.Errorf("not supported yet: restoring a VALUES source written by %d instances", len(offs))
	}
	if offs[0] < 0 || offs[0] > int64(len(v.rows)) {
		return fmt.Errorf("restoring the VALUES position: offset %d out of range for %d rows (the query changed?)", offs[0], len(v.rows))
	}
	v.start, v.next = int(offs[0]), int(offs[0])
	return nil
}
