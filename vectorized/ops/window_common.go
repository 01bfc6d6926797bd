package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"

	"github.com/tablerun/tablerun/core/types"
)

// eventMillis returns the event time of row i of a TIMESTAMP or
// TIMESTAMP_LTZ array in milliseconds since the epoch (floored); ok is
// false for NULL.
func eventMillis(a arrow.Array, i int) (ms int64, ok bool, err error) {
	ts, isTS := a.(*array.Timestamp)
	if !isTS {
		return 0, false, fmt.Errorf("event time column must be a timestamp, got %s", a.DataType())
	}
	if ts.IsNull(i) {
		return 0, false, nil
	}
	return types.UnitMillis(int64(ts.Value(i)), ts.DataType().(*arrow.TimestampType).Unit), true, nil
}

// timestampArray builds an array of the timestamp type dt whose every
// element is ms (milliseconds since the epoch).
func timestampArray(dt arrow.DataType, ms []int64) (arrow.Array, error) {
	tt, ok := dt.(*arrow.TimestampType)
	if !ok {
		return nil, fmt.Errorf("window column must be a timestamp, got %s", dt)
	}
	var mul int64
	switch tt.Unit {
	case arrow.Second:
		return nil, fmt.Errorf("window column: second timestamps are not supported")
	case arrow.Millisecond:
		mul = 1
	case arrow.Microsecond:
		mul = 1000
	default:
		mul = 1_000_000
	}
	b := array.NewTimestampBuilder(vectorized.Mem, tt)
	defer b.Release()
	b.Reserve(len(ms))
	for _, v := range ms {
		b.UnsafeAppend(arrow.Timestamp(v * mul))
	}
	return b.NewArray(), nil
}

// batchCapture is a Collector that keeps the batches emitted into it and
// ignores markers.
type batchCapture struct{ batches []vectorized.Batch }

// Emit implements vectorized.Collector.
func (c *batchCapture) Emit(_ context.Context, b vectorized.Batch) error {
	c.batches = append(c.batches, b)
	return nil
}

// EmitMarker implements vectorized.Collector.
func (c *batchCapture) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// OpStats implements StatsReporter: the late rows dropped.
func (w *WindowAggregate) OpStats() OpStats { return OpStats{LateRows: w.LateRows()} }

// OpStats implements StatsReporter: the late rows dropped.
func (s *SessionWindowAggregate) OpStats() OpStats { return OpStats{LateRows: s.LateRows()} }

// zoneClock converts between instants and the wall clock of a time zone,
// for windows over a TIMESTAMP_LTZ time column (aligned in the session
// time zone). A nil zoneClock (TIMESTAMP time columns) is the identity.
type zoneClock struct{ loc *time.Location }

// newZoneClock returns the clock of loc for a time column of type dt, or
// nil when dt is not a TIMESTAMP_LTZ (or loc is UTC or nil).
func newZoneClock(dt arrow.DataType, loc *time.Location) *zoneClock {
	tt, ok := dt.(*arrow.TimestampType)
	if !ok || tt.TimeZone == "" || loc == nil || loc == time.UTC {
		return nil
	}
	return &zoneClock{loc: loc}
}

// local returns the wall-clock milliseconds of the instant ms.
func (z *zoneClock) local(ms int64) int64 {
	if z == nil {
		return ms
	}
	_, off := time.UnixMilli(ms).In(z.loc).Zone()
	return ms + int64(off)*1000
}

// instant returns the instant (epoch milliseconds) of the wall-clock
// milliseconds ms.
func (z *zoneClock) instant(ms int64) int64 {
	if z == nil {
		return ms
	}
	w := time.UnixMilli(ms).UTC()
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), z.loc).UnixMilli()
}
