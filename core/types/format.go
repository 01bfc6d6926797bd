package types

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// FormatValue renders a canonical value of type t as Flink's SQL client
// prints it (the "printing" flavour of CAST(x AS STRING)): TRUE/FALSE,
// doubles as Java's Double.toString, decimals with exactly their scale,
// timestamps `yyyy-MM-dd HH:mm:ss` plus the type's fractional digits,
// TIMESTAMP_LTZ in loc, intervals `+1 00:00:00.000` / `+1-00`, binary
// strings `x'0a1b'`, arrays `[1, NULL]`, maps `{k=v}`, rows `(1, abc)`.
// A nested NULL prints as NULL; a top-level nil also returns "NULL" (the
// tableau printer shows `<NULL>` itself). A nil loc means UTC.
func FormatValue(v any, t Type, loc *time.Location) string {
	if v == nil {
		return "NULL"
	}
	return string(AppendValueText(nil, v, t, loc))
}

// AppendValueText appends FormatValue's text to dst.
func AppendValueText(dst []byte, v any, t Type, loc *time.Location) []byte {
	if v == nil {
		return append(dst, "NULL"...)
	}
	switch t.Kind {
	case Boolean:
		if b, ok := v.(bool); ok {
			if b {
				return append(dst, "TRUE"...)
			}
			return append(dst, "FALSE"...)
		}
	case TinyInt, SmallInt, Int, BigInt:
		if x, ok := asInt64(v); ok {
			return strconv.AppendInt(dst, x, 10)
		}
	case Float:
		switch x := v.(type) {
		case float32:
			return AppendJavaFloat(dst, float64(x), 32)
		case float64:
			return AppendJavaFloat(dst, x, 32)
		}
	case Double:
		switch x := v.(type) {
		case float64:
			return AppendJavaFloat(dst, x, 64)
		case float32:
			return AppendJavaFloat(dst, float64(x), 64)
		}
	case Decimal:
		if n, ok := v.(decimal128.Num); ok {
			return AppendDecimalPlain(dst, n, t.Scale)
		}
	case Char, VarChar:
		if s, ok := v.(string); ok {
			return append(dst, s...)
		}
	case Binary, VarBinary:
		if b, ok := v.([]byte); ok {
			dst = append(dst, "x'"...)
			const hexDigits = "0123456789abcdef"
			for _, c := range b {
				dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
			}
			return append(dst, '\'')
		}
	case Date:
		if d, ok := asInt64(v); ok {
			return AppendDate(dst, int32(d))
		}
	case Time:
		if ms, ok := asInt64(v); ok {
			return appendSQLTime(dst, int64(ms)*1000, t.Precision)
		}
	case Timestamp:
		if x, ok := asInt64(v); ok {
			return appendSQLTimestampOf(dst, x, t, nil)
		}
	case TimestampLTZ:
		if x, ok := asInt64(v); ok {
			return appendSQLTimestampOf(dst, x, t, loc)
		}
	case IntervalDayTime:
		if ms, ok := asInt64(v); ok {
			return appendIntervalDayTime(dst, ms)
		}
	case IntervalYearMonth:
		if m, ok := asInt64(v); ok {
			return appendIntervalYearMonth(dst, m)
		}
	case Array:
		if xs, ok := v.([]any); ok {
			dst = append(dst, '[')
			for i, x := range xs {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = AppendValueText(dst, x, *t.Elem, loc)
			}
			return append(dst, ']')
		}
	case Map:
		if m, ok := v.(*MapValue); ok {
			dst = append(dst, '{')
			for i := range m.Keys {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = AppendValueText(dst, m.Keys[i], *t.Elem, loc)
				dst = append(dst, '=')
				dst = AppendValueText(dst, m.Values[i], *t.Value, loc)
			}
			return append(dst, '}')
		}
	case Row:
		if xs, ok := v.([]any); ok && len(xs) == len(t.Fields) {
			dst = append(dst, '(')
			for i, x := range xs {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = AppendValueText(dst, x, t.Fields[i].Type, loc)
			}
			return append(dst, ')')
		}
	case Null:
		return append(dst, "NULL"...)
	}
	return append(dst, badText(v, t)...)
}

// FormatJava renders a canonical value of type t as the Java toString of
// Flink's default external class, as the print connector shows row fields:
// null, true/false, Java doubles, BigDecimal.toString, LocalDate
// `2021-04-13`, LocalTime `20:12` / `20:12:11.123`, LocalDateTime
// `2021-04-13T20:12:11.123`, Instant `2021-04-13T12:12:11.123Z`, Duration
// `PT1H`, Period `P1Y2M`, byte[] `[1, -2]`, arrays `[1, 2]`, maps `{a=1}`
// (in java.util.HashMap iteration order where the key's Java hashCode is
// a function of its value, else in insertion order), rows `+I[1, a]`.
func FormatJava(v any, t Type) string {
	return string(AppendJava(nil, v, t))
}

// AppendJava appends FormatJava's text to dst.
func AppendJava(dst []byte, v any, t Type) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch t.Kind {
	case Boolean:
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(dst, b)
		}
	case Decimal:
		if n, ok := v.(decimal128.Num); ok {
			return AppendBigDecimal(dst, n, t.Scale)
		}
	case Binary, VarBinary:
		if b, ok := v.([]byte); ok {
			dst = append(dst, '[')
			for i, c := range b {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = strconv.AppendInt(dst, int64(int8(c)), 10)
			}
			return append(dst, ']')
		}
	case Time:
		if ms, ok := asInt64(v); ok {
			return appendLocalTime(dst, ms*1_000_000)
		}
	case Timestamp:
		if x, ok := asInt64(v); ok {
			secs, nanos := SplitTimestamp(x, t)
			days, sod := floorDivMod(secs, 86400)
			dst = AppendDate(dst, int32(days))
			dst = append(dst, 'T')
			return appendLocalTime(dst, sod*NanosPerSecond+nanos)
		}
	case TimestampLTZ:
		if x, ok := asInt64(v); ok {
			secs, nanos := SplitTimestamp(x, t)
			days, sod := floorDivMod(secs, 86400)
			dst = AppendDate(dst, int32(days))
			dst = append(dst, 'T')
			dst = appendClock(dst, sod)
			dst = appendFraction369(dst, nanos)
			return append(dst, 'Z')
		}
	case IntervalDayTime:
		if ms, ok := asInt64(v); ok {
			return appendJavaDuration(dst, ms)
		}
	case IntervalYearMonth:
		if m, ok := asInt64(v); ok {
			return appendJavaPeriod(dst, m, t.Unit)
		}
	case Array:
		if xs, ok := v.([]any); ok {
			dst = append(dst, '[')
			for i, x := range xs {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = AppendJava(dst, x, *t.Elem)
			}
			return append(dst, ']')
		}
	case Map:
		if m, ok := v.(*MapValue); ok {
			order, vals := javaMapOrder(m, *t.Elem)
			if order == nil {
				order = make([]int, len(m.Keys))
				for i := range order {
					order[i] = i
				}
				vals = m.Values
			}
			dst = append(dst, '{')
			for i, k := range order {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = AppendJava(dst, m.Keys[k], *t.Elem)
				dst = append(dst, '=')
				dst = AppendJava(dst, vals[i], *t.Value)
			}
			return append(dst, '}')
		}
	case Row:
		if xs, ok := v.([]any); ok && len(xs) == len(t.Fields) {
			dst = append(dst, "+I["...)
			for i, x := range xs {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = AppendJava(dst, x, t.Fields[i].Type)
			}
			return append(dst, ']')
		}
	case Null:
		return append(dst, "null"...)
	default:
		// Numbers, strings and dates print as in SQL.
		return AppendValueText(dst, v, t, time.UTC)
	}
	return append(dst, badText(v, t)...)
}

func badText(v any, t Type) string {
	return fmt.Sprintf("<bad value %T for %s>", v, t)
}

const microsPerDay = 86_400_000_000

func floorDivMod(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// JavaDouble formats f as Java's Double.toString does: "1.0", "0.1",
// "1.0E10", "1.23E-5", "NaN", "Infinity", "-0.0".
func JavaDouble(f float64) string { return string(AppendJavaFloat(nil, f, 64)) }

// JavaFloat formats f as Java's Float.toString does.
func JavaFloat(f float32) string { return string(AppendJavaFloat(nil, float64(f), 32)) }

// AppendJavaFloat appends f in Java's Double.toString (bits 64) or
// Float.toString (bits 32) format: the shortest digits that round-trip,
// plain notation for 1e-3 <= |f| < 1e7, otherwise d.dddE±n.
func AppendJavaFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, bits)
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	e := 0
	for i := range s {
		if s[i] == 'e' {
			exp, _ := strconv.Atoi(string(s[i+1:]))
			e = exp
			s = s[:i]
			break
		}
	}
	// Mantissa digits without the point.
	var digs [24]byte
	d := digs[:0]
	for _, c := range s {
		if c != '.' {
			d = append(d, c)
		}
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		pos := e + 1
		switch {
		case pos <= 0:
			dst = append(dst, "0."...)
			for i := 0; i < -pos; i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, d...)
		case pos >= len(d):
			dst = append(dst, d...)
			for i := len(d); i < pos; i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, ".0"...)
		default:
			dst = append(dst, d[:pos]...)
			dst = append(dst, '.')
			dst = append(dst, d[pos:]...)
		}
		return dst
	}
	dst = append(dst, d[0], '.')
	if len(d) > 1 {
		dst = append(dst, d[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(e), 10)
}

// decimalDigits returns the sign and the absolute unscaled digits of n.
func decimalDigits(n decimal128.Num) (neg bool, digits string) {
	if n.HighBits() == 0 {
		return false, strconv.FormatUint(n.LowBits(), 10)
	}
	b := n.BigInt()
	neg = b.Sign() < 0
	return neg, b.Abs(b).String()
}

// DecimalString formats an unscaled decimal with exactly scale fractional
// digits, as Flink's DecimalData.toString ("1.50", "-0.05").
func DecimalString(n decimal128.Num, scale int) string {
	return string(AppendDecimalPlain(nil, n, scale))
}

// AppendDecimalPlain appends DecimalString's text to dst.
func AppendDecimalPlain(dst []byte, n decimal128.Num, scale int) []byte {
	neg, ds := decimalDigits(n)
	if neg {
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, ds...)
		for i := 0; i < -scale; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	if len(ds) <= scale {
		dst = append(dst, "0."...)
		for i := len(ds); i < scale; i++ {
			dst = append(dst, '0')
		}
		return append(dst, ds...)
	}
	dst = append(dst, ds[:len(ds)-scale]...)
	dst = append(dst, '.')
	return append(dst, ds[len(ds)-scale:]...)
}

// AppendBigDecimal appends Java's BigDecimal.toString of the decimal:
// plain while the adjusted exponent is >= -6, otherwise scientific
// ("1E-7", "1.5E-8", "0E-8").
func AppendBigDecimal(dst []byte, n decimal128.Num, scale int) []byte {
	neg, ds := decimalDigits(n)
	adjusted := -scale + (len(ds) - 1)
	if scale >= 0 && adjusted >= -6 {
		return AppendDecimalPlain(dst, n, scale)
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, ds[0])
	if len(ds) > 1 {
		dst = append(dst, '.')
		dst = append(dst, ds[1:]...)
	}
	dst = append(dst, 'E')
	if adjusted > 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(adjusted), 10)
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date.
func civil(days int64) (y int64, m, d int) {
	// Howard Hinnant's days_from_civil inverse.
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func appendPad(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// FormatDate formats days since the epoch as yyyy-MM-dd.
func FormatDate(days int32) string { return string(AppendDate(nil, days)) }

// AppendDate appends days since the epoch as yyyy-MM-dd.
func AppendDate(dst []byte, days int32) []byte {
	y, m, d := civil(int64(days))
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	dst = appendPad(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPad(dst, int64(m), 2)
	dst = append(dst, '-')
	return appendPad(dst, int64(d), 2)
}

// appendClock appends HH:mm:ss for secs seconds of the day.
func appendClock(dst []byte, secs int64) []byte {
	dst = appendPad(dst, secs/3600, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, secs/60%60, 2)
	dst = append(dst, ':')
	return appendPad(dst, secs%60, 2)
}

// appendFixedFraction appends '.' and precision digits of nanos (0..1e9).
func appendFixedFraction(dst []byte, nanos int64, precision int) []byte {
	if precision <= 0 {
		return dst
	}
	if precision > 9 {
		precision = 9
	}
	var buf [9]byte
	for i := 8; i >= 0; i-- {
		buf[i] = byte('0' + nanos%10)
		nanos /= 10
	}
	dst = append(dst, '.')
	return append(dst, buf[:precision]...)
}

// appendFraction369 appends '.' and 3, 6 or 9 digits as needed (nothing
// for zero), as java.time's toString methods do.
func appendFraction369(dst []byte, nanos int64) []byte {
	switch {
	case nanos == 0:
		return dst
	case nanos%1_000_000 == 0:
		return appendFixedFraction(dst, nanos, 3)
	case nanos%1000 == 0:
		return appendFixedFraction(dst, nanos, 6)
	}
	return appendFixedFraction(dst, nanos, 9)
}

// AppendTrimmedFraction appends '.' and the fraction without trailing
// zeros (nothing for zero), as DateTimeFormatter.ISO_LOCAL_TIME does.
func AppendTrimmedFraction(dst []byte, nanos int64) []byte {
	if nanos == 0 {
		return dst
	}
	n := 9
	for nanos%10 == 0 && n > 0 {
		nanos /= 10
		n--
	}
	dst = append(dst, '.')
	return appendPad(dst, nanos, n)
}

func appendSQLTime(dst []byte, micros int64, precision int) []byte {
	micros = ((micros % microsPerDay) + microsPerDay) % microsPerDay
	dst = appendClock(dst, micros/1_000_000)
	return appendFixedFraction(dst, (micros%1_000_000)*1000, precision)
}

// AppendSQLTimestamp appends a wall-clock timestamp (microseconds since
// 1970-01-01T00:00) as `yyyy-MM-dd HH:mm:ss` plus precision fractional
// digits.
func AppendSQLTimestamp(dst []byte, micros int64, precision int) []byte {
	days, rem := floorDivMod(micros, microsPerDay)
	dst = AppendDate(dst, int32(days))
	dst = append(dst, ' ')
	dst = appendClock(dst, rem/1_000_000)
	return appendFixedFraction(dst, (rem%1_000_000)*1000, precision)
}

// appendSQLTimestampOf appends a value of timestamp type t (micros or nanos
// by precision) as `yyyy-MM-dd HH:mm:ss` plus t.Precision fractional digits;
// a non-nil loc shifts the instant to that zone's wall clock first.
func appendSQLTimestampOf(dst []byte, v int64, t Type, loc *time.Location) []byte {
	secs, nanos := SplitTimestamp(v, t)
	if loc != nil && loc != time.UTC {
		_, off := time.Unix(secs, 0).In(loc).Zone()
		secs += int64(off)
	}
	days, sod := floorDivMod(secs, 86400)
	dst = AppendDate(dst, int32(days))
	dst = append(dst, ' ')
	dst = appendClock(dst, sod)
	return appendFixedFraction(dst, nanos, t.Precision)
}

// FormatSQLTimestamp formats a wall-clock timestamp as AppendSQLTimestamp.
func FormatSQLTimestamp(micros int64, precision int) string {
	return string(AppendSQLTimestamp(nil, micros, precision))
}

// LocalMicros converts an instant (microseconds since the epoch) to the
// wall-clock microseconds of loc (nil means UTC).
func LocalMicros(instant int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return instant
	}
	secs, _ := floorDivMod(instant, 1_000_000)
	_, off := time.Unix(secs, 0).In(loc).Zone()
	return instant + int64(off)*1_000_000
}

// appendLocalTime appends java.time.LocalTime.toString for nanos of the
// day: HH:mm, then :ss if seconds or nanos are non-zero, then a 3/6/9
// digit fraction if nanos are non-zero.
func appendLocalTime(dst []byte, nanos int64) []byte {
	secs := nanos / 1_000_000_000
	frac := nanos % 1_000_000_000
	dst = appendPad(dst, secs/3600, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, secs/60%60, 2)
	if secs%60 != 0 || frac != 0 {
		dst = append(dst, ':')
		dst = appendPad(dst, secs%60, 2)
		dst = appendFraction369(dst, frac)
	}
	return dst
}

// appendIntervalDayTime appends Calcite's DAY TO SECOND(3) interval text:
// +d hh:mm:ss.fff.
func appendIntervalDayTime(dst []byte, ms int64) []byte {
	u := uint64(ms)
	if ms < 0 {
		dst = append(dst, '-')
		u = uint64(-ms)
	} else {
		dst = append(dst, '+')
	}
	frac := u % 1000
	u /= 1000
	s := u % 60
	u /= 60
	m := u % 60
	u /= 60
	h := u % 24
	d := u / 24
	dst = strconv.AppendUint(dst, d, 10)
	dst = append(dst, ' ')
	dst = appendPad(dst, int64(h), 2)
	dst = append(dst, ':')
	dst = appendPad(dst, int64(m), 2)
	dst = append(dst, ':')
	dst = appendPad(dst, int64(s), 2)
	dst = append(dst, '.')
	return appendPad(dst, int64(frac), 3)
}

// appendIntervalYearMonth appends Calcite's YEAR TO MONTH text: +y-mm.
func appendIntervalYearMonth(dst []byte, months int64) []byte {
	if months < 0 {
		dst = append(dst, '-')
		months = -months
	} else {
		dst = append(dst, '+')
	}
	dst = strconv.AppendInt(dst, months/12, 10)
	dst = append(dst, '-')
	return appendPad(dst, months%12, 2)
}

// appendJavaDuration appends java.time.Duration.toString for ms
// milliseconds: PT0S, PT1H30M, PT-0.5S, PT48H.
func appendJavaDuration(dst []byte, ms int64) []byte {
	if ms == 0 {
		return append(dst, "PT0S"...)
	}
	seconds, milli := floorDivMod(ms, 1000)
	nanos := milli * 1_000_000
	eff := seconds
	if seconds < 0 && nanos > 0 {
		eff++
	}
	hours := eff / 3600
	minutes := (eff % 3600) / 60
	secs := eff % 60
	dst = append(dst, "PT"...)
	start := len(dst)
	if hours != 0 {
		dst = strconv.AppendInt(dst, hours, 10)
		dst = append(dst, 'H')
	}
	if minutes != 0 {
		dst = strconv.AppendInt(dst, minutes, 10)
		dst = append(dst, 'M')
	}
	if secs == 0 && nanos == 0 && len(dst) > start {
		return dst
	}
	if seconds < 0 && nanos > 0 && secs == 0 {
		dst = append(dst, "-0"...)
	} else {
		dst = strconv.AppendInt(dst, secs, 10)
	}
	if nanos > 0 {
		f := nanos
		if seconds < 0 {
			f = 1_000_000_000 - nanos
		}
		dst = AppendTrimmedFraction(dst, f)
	}
	return append(dst, 'S')
}

// appendJavaPeriod appends java.time.Period.toString of a year-month
// interval, split into years and months as Flink's converter does.
func appendJavaPeriod(dst []byte, months int64, unit string) []byte {
	var y, m int64
	switch unit {
	case "MONTH":
		m = months
	case "YEAR":
		y = months / 12
	default:
		y, m = months/12, months%12
	}
	if y == 0 && m == 0 {
		return append(dst, "P0D"...)
	}
	dst = append(dst, 'P')
	if y != 0 {
		dst = strconv.AppendInt(dst, y, 10)
		dst = append(dst, 'Y')
	}
	if m != 0 {
		dst = strconv.AppendInt(dst, m, 10)
		dst = append(dst, 'M')
	}
	return dst
}
