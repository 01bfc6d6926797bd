package types

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Timestamp units. TIMESTAMP(p) and TIMESTAMP_LTZ(p) values are int64
// counts since 1970-01-01T00:00: microseconds for p ≤ 6 (Arrow
// timestamp[us]) and nanoseconds for p in 7..9 (Arrow timestamp[ns]). The
// nanosecond unit only covers the years 1677..2262; values outside the
// supported years 1678..2261 are rejected with TimestampRangeError instead
// of wrapping around.
const (
	// MicrosPerSecond is the unit count per second of TIMESTAMP(0..6).
	MicrosPerSecond = int64(1_000_000)
	// NanosPerSecond is the unit count per second of TIMESTAMP(7..9).
	NanosPerSecond = int64(1_000_000_000)
	// MinNanoTimestampYear is the first fully supported year of TIMESTAMP(7..9).
	MinNanoTimestampYear = 1678
	// MaxNanoTimestampYear is the last fully supported year of TIMESTAMP(7..9).
	MaxNanoTimestampYear = 2261
)

// minNanoMicros / maxNanoMicros bound (in microseconds) the instants that a
// nanosecond timestamp can hold without overflow.
const (
	minNanoMicros = math.MinInt64/1000 + 1
	maxNanoMicros = math.MaxInt64/1000 - 1
)

// IsTimestamp reports whether t is TIMESTAMP(p) or TIMESTAMP_LTZ(p).
func IsTimestamp(t Type) bool { return t.Kind == Timestamp || t.Kind == TimestampLTZ }

// IsNanoTimestamp reports whether t is a TIMESTAMP(p) or TIMESTAMP_LTZ(p)
// with p in 7..9, whose values are nanoseconds since the epoch.
func IsNanoTimestamp(t Type) bool { return IsTimestamp(t) && t.Precision > 6 }

// TimestampUnitsPerSecond returns the number of value units per second of a
// timestamp type: 1e9 for p in 7..9, 1e6 otherwise.
func TimestampUnitsPerSecond(t Type) int64 {
	if IsNanoTimestamp(t) {
		return NanosPerSecond
	}
	return MicrosPerSecond
}

// TimestampRangeError is the error for a value that does not fit the
// nanosecond representation of t.
func TimestampRangeError(t Type) error {
	return fmt.Errorf("timestamp out of range for %s (supported years %d-%d)", t.SummaryString(), MinNanoTimestampYear, MaxNanoTimestampYear)
}

// ToMicros converts a value of timestamp type t to microseconds (rounding
// towards negative infinity for nanosecond values).
func ToMicros(v int64, t Type) int64 {
	if IsNanoTimestamp(t) {
		return floorDivTS(v, 1000)
	}
	return v
}

// FromMicros converts microseconds to a value of timestamp type t. It fails
// when t counts nanoseconds and us is outside the supported range.
func FromMicros(us int64, t Type) (int64, error) {
	if !IsNanoTimestamp(t) {
		return us, nil
	}
	if us < minNanoMicros || us > maxNanoMicros {
		return 0, TimestampRangeError(t)
	}
	return us * 1000, nil
}

// SplitTimestamp splits a value of timestamp type t into whole seconds
// since the epoch and a non-negative nanosecond-of-second.
func SplitTimestamp(v int64, t Type) (secs, nanos int64) {
	u := TimestampUnitsPerSecond(t)
	secs, rem := floorDivModTS(v, u)
	return secs, rem * (NanosPerSecond / u)
}

// JoinTimestamp builds a value of timestamp type t from whole seconds since
// the epoch and a nanosecond-of-second (0..999,999,999; nanoseconds below
// the unit are truncated). It fails when the value does not fit.
func JoinTimestamp(secs, nanos int64, t Type) (int64, error) {
	u := TimestampUnitsPerSecond(t)
	if secs > math.MaxInt64/u-1 || secs < math.MinInt64/u+1 {
		return 0, rangeErr(t)
	}
	return secs*u + nanos/(NanosPerSecond/u), nil
}

func rangeErr(t Type) error {
	if IsNanoTimestamp(t) {
		return TimestampRangeError(t)
	}
	return fmt.Errorf("timestamp out of range for %s", t.SummaryString())
}

// TimestampToTime converts a value of timestamp type t to a UTC time.Time
// (for TIMESTAMP the wall clock, for TIMESTAMP_LTZ the instant).
func TimestampToTime(v int64, t Type) time.Time {
	secs, nanos := SplitTimestamp(v, t)
	return time.Unix(secs, nanos).UTC()
}

// TimestampFromTime converts the instant of tm (for TIMESTAMP: its UTC
// reading) to a value of timestamp type t, truncated to t's unit (not to its
// precision). It fails when the value does not fit.
func TimestampFromTime(tm time.Time, t Type) (int64, error) {
	return JoinTimestamp(tm.Unix(), int64(tm.Nanosecond()), t)
}

// TruncateTimestamp truncates (towards negative infinity) a value of
// timestamp type t to t's fractional-second precision.
func TruncateTimestamp(v int64, t Type) int64 {
	digits := 6
	if IsNanoTimestamp(t) {
		digits = 9
	}
	p := t.Precision
	if p < 0 {
		p = 0
	}
	if p >= digits {
		return v
	}
	f := int64(1)
	for i := p; i < digits; i++ {
		f *= 10
	}
	return floorDivTS(v, f) * f
}

// ConvertTimestamp converts a value of timestamp type from to the unit of
// timestamp type to and truncates it to to's precision. It does not change
// the meaning of the value (wall clock stays wall clock); it fails when the
// value does not fit the nanosecond unit.
func ConvertTimestamp(v int64, from, to Type) (int64, error) {
	fn, tn := IsNanoTimestamp(from), IsNanoTimestamp(to)
	switch {
	case fn && !tn:
		v = floorDivTS(v, 1000)
	case !fn && tn:
		var err error
		if v, err = FromMicros(v, to); err != nil {
			return 0, err
		}
	}
	return TruncateTimestamp(v, to), nil
}

func floorDivTS(a, b int64) int64 {
	q, _ := floorDivModTS(a, b)
	return q
}

func floorDivModTS(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// UnitMillis converts v, a timestamp in Arrow unit unit, to milliseconds
// since the epoch, rounded down (event time is counted in milliseconds).
func UnitMillis(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1000
	case arrow.Millisecond:
		return v
	case arrow.Microsecond:
		return floorDivTS(v, 1000)
	}
	return floorDivTS(v, 1_000_000)
}
