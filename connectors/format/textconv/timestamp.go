package textconv

import (
	"github.com/tablerun/tablerun/core/types"
)

// ParseTimestampOf parses a timestamp as ParseTimestamp does and returns
// it in the unit of timestamp type t: microseconds for precision ≤ 6,
// nanoseconds for 7..9 (see types.IsNanoTimestamp). A value outside the
// nanosecond range fails with a ParseError naming the type.
func ParseTimestampOf(b []byte, style TimestampStyle, zoned bool, t types.Type) (int64, error) {
	days, nanos, err := parseTimestampParts(b, style, zoned)
	if err != nil {
		return 0, err
	}
	v, err := types.JoinTimestamp(days*86_400+nanos/1_000_000_000, nanos%1_000_000_000, t)
	if err != nil {
		return 0, &ParseError{Msg: err.Error()}
	}
	return v, nil
}

// AppendTimestampOf appends a value of timestamp type t (micros or nanos
// by precision) as AppendTimestamp does: `yyyy-MM-dd HH:mm:ss[.fraction]`
// ('T' when iso), the fraction without trailing zeros, 'Z' when zoned.
func AppendTimestampOf(dst []byte, v int64, t types.Type, iso, zoned bool) []byte {
	secs, nanos := types.SplitTimestamp(v, t)
	days, sod := secs/86_400, secs%86_400
	if sod < 0 {
		days--
		sod += 86_400
	}
	dst = types.AppendDate(dst, int32(days))
	if iso {
		dst = append(dst, 'T')
	} else {
		dst = append(dst, ' ')
	}
	dst = appendClock(dst, sod)
	dst = types.AppendTrimmedFraction(dst, nanos)
	if zoned {
		dst = append(dst, 'Z')
	}
	return dst
}
