package parquet

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// isUTC reports a zone that is UTC at all times (no shift needed).
func isUTC(loc *time.Location) bool {
	if loc == nil || loc == time.UTC {
		return true
	}
	for _, t := range []time.Time{time.Unix(0, 0), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 7, 1, 0, 0, 0, 0, time.UTC), time.Now()} {
		if name, off := t.In(loc).Zone(); off != 0 || (name != "UTC" && name != "GMT") {
			return false
		}
	}
	return true
}

// unitTime converts a timestamp value of unit to a time.Time (UTC).
func unitTime(v int64, unit arrow.TimeUnit) time.Time {
	switch unit {
	case arrow.Second:
		return time.Unix(v, 0).UTC()
	case arrow.Millisecond:
		return time.UnixMilli(v).UTC()
	case arrow.Microsecond:
		return time.UnixMicro(v).UTC()
	}
	return time.Unix(0, v).UTC()
}

func timeUnit(t time.Time, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return t.Unix()
	case arrow.Millisecond:
		return t.UnixMilli()
	case arrow.Microsecond:
		return t.UnixMicro()
	}
	return t.UnixNano()
}

// shiftTimestamps moves timestamp values between wall clock and instant in
// loc: toWall false reads each value as a wall-clock time in loc and
// returns its instant (writing INT96 with parquet.utc-timezone false);
// toWall true the other way (reading). A UTC zone returns col itself.
func shiftTimestamps(mem memory.Allocator, col arrow.Array, loc *time.Location, toWall bool) arrow.Array {
	if isUTC(loc) {
		col.Retain()
		return col
	}
	ts := col.(*array.Timestamp)
	unit := ts.DataType().(*arrow.TimestampType).Unit
	b := array.NewTimestampBuilder(mem, ts.DataType().(*arrow.TimestampType))
	defer b.Release()
	b.Reserve(ts.Len())
	for i := 0; i < ts.Len(); i++ {
		if ts.IsNull(i) {
			b.AppendNull()
			continue
		}
		t := unitTime(int64(ts.Value(i)), unit)
		var out time.Time
		if toWall {
			l := t.In(loc)
			out = time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
		} else {
			out = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		}
		b.UnsafeAppend(arrow.Timestamp(timeUnit(out, unit)))
	}
	return b.NewArray()
}

// Nanosecond timestamps (INT96 goes through them) hold these instants.
var (
	minNanoTime = time.Unix(0, math.MinInt64).UTC()
	maxNanoTime = time.Unix(0, math.MaxInt64).UTC()
)

// checkNanoRange reports a timestamp in arr (at any depth) that
// nanoseconds since the epoch cannot hold.
func checkNanoRange(arr arrow.Array) error {
	switch a := arr.(type) {
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		if unit == arrow.Nanosecond {
			return nil
		}
		lo, hi := timeUnit(minNanoTime, unit)+1, timeUnit(maxNanoTime, unit)-1
		for i, v := range a.TimestampValues() {
			if (int64(v) < lo || int64(v) > hi) && a.IsValid(i) {
				return fmt.Errorf("not supported yet: the timestamp %s as INT96 (which holds the years 1678 to 2261); set 'parquet.write.int64.timestamp' = 'true' to write it",
					unitTime(int64(v), unit).Format("2006-01-02 15:04:05.999999999"))
			}
		}
	case *array.Struct:
		for i := 0; i < a.NumField(); i++ {
			if err := checkNanoRange(a.Field(i)); err != nil {
				return err
			}
		}
	case *array.Map:
		if err := checkNanoRange(a.Keys()); err != nil {
			return err
		}
		return checkNanoRange(a.Items())
	case *array.List:
		return checkNanoRange(a.ListValues())
	}
	return nil
}
