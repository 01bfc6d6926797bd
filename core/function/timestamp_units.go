package function

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

// Timestamp values are int64 microseconds for TIMESTAMP(0..6) and
// TIMESTAMP_LTZ(0..6) and nanoseconds for precision 7..9 (see
// types.IsNanoTimestamp). The helpers below convert between those values and
// time.Time so that every temporal function respects the unit of its type.

// tsTime converts a TIMESTAMP value of type t to a UTC time carrying its
// wall clock.
func tsTime(v int64, t types.Type) time.Time { return types.TimestampToTime(v, t) }

// ltzTime converts a TIMESTAMP_LTZ value of type t to the instant in the
// session zone.
func ltzTime(ctx *EvalContext, v int64, t types.Type) time.Time {
	return types.TimestampToTime(v, t).In(loc(ctx))
}

// wallOf returns the wall clock of tm (in its own zone) as a UTC time.
func wallOf(tm time.Time) time.Time {
	y, m, d := tm.Date()
	return time.Date(y, m, d, tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC)
}

// tsValue converts a UTC time (a wall clock for TIMESTAMP, an instant for
// TIMESTAMP_LTZ) to a value of timestamp type t truncated to t's precision.
func tsValue(tm time.Time, t types.Type) (int64, error) {
	v, err := types.TimestampFromTime(tm, t)
	if err != nil {
		return 0, err
	}
	return types.TruncateTimestamp(v, t), nil
}

// ParseTimestampAs parses 'yyyy-MM-dd[ HH:mm[:ss[.fffffffff]]]' (a 'T'
// separator and a trailing 'Z' are accepted) into a wall-clock value of
// timestamp type t (micros or nanos by precision, truncated to t's
// precision). Values outside the range of a nanosecond type fail.
func ParseTimestampAs(s string, t types.Type) (int64, error) {
	tm, err := parseTimestampTime(s)
	if err != nil {
		return 0, err
	}
	return tsValue(tm, t)
}

// parseTimestampTime parses a timestamp string with up to nine fractional
// digits into a UTC time carrying its wall clock.
func parseTimestampTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("Cannot parse '%s' as TIMESTAMP", s)
	y, m, d, rest, ok := parseYMD(s)
	if !ok {
		return time.Time{}, bad
	}
	day := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if rest == "" {
		return day, nil
	}
	if rest[0] != ' ' && rest[0] != 'T' {
		return time.Time{}, bad
	}
	rest = strings.TrimSpace(rest[1:])
	rest = strings.TrimSuffix(rest, "Z")
	us, ok := parseHMS(rest)
	if !ok {
		return time.Time{}, bad
	}
	nanos := (us / microsPerSecond) * int64(time.Second)
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		fs := rest[i+1:]
		for len(fs) < 9 {
			fs += "0"
		}
		f, err := strconv.ParseInt(fs[:9], 10, 64)
		if err != nil {
			return time.Time{}, bad
		}
		nanos += f
	}
	return day.Add(time.Duration(nanos)), nil
}

// addTimestampUnits adds n·scale microseconds to a value x of timestamp
// type t, failing instead of wrapping when the result does not fit.
func addTimestampUnits(x, n, scale int64, t types.Type) (int64, error) {
	if types.IsNanoTimestamp(t) {
		scale *= 1000
	}
	d, ok := mulChecked(n, scale)
	if ok {
		if r := x + d; (d >= 0) == (r >= x) {
			return r, nil
		}
	}
	if types.IsNanoTimestamp(t) {
		return 0, types.TimestampRangeError(t)
	}
	return 0, fmt.Errorf("timestamp out of range for %s", t.SummaryString())
}

func mulChecked(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	return r, r/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
}
