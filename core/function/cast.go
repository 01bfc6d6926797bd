package function

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

// CastValue converts a canonical value v of type from to type to with
// Flink's CAST semantics (new cast behaviour, table.exec.legacy-cast-
// behaviour = DISABLED). A nil v gives nil. Failures (a string that is not
// a number, date or boolean) return an error; TRY_CAST callers turn it into
// NULL. Conversions:
//
//   - numeric → numeric: integers wrap like Java narrowing casts; FLOAT/
//     DOUBLE → integer truncates toward zero and saturates (NaN → 0);
//     → DECIMAL rounds HALF_UP and yields NULL (nil, nil) on overflow.
//   - numeric ↔ BOOLEAN: non-zero is TRUE; TRUE is 1.
//   - anything → CHAR/VARCHAR/STRING: the SQL text (TRUE/FALSE, DOUBLE as
//     Java's Double.toString, timestamps 'yyyy-MM-dd HH:mm:ss[.fff]' padded
//     to the precision, …); CHAR(n) pads with spaces, VARCHAR(n) truncates.
//   - CHAR/VARCHAR → numbers (trimmed), BOOLEAN ('true'/'t'/'yes'/'y'/'1'
//     and the false forms, case-insensitive), DATE, TIME, TIMESTAMP,
//     TIMESTAMP_LTZ (read in ctx.Loc), BINARY (UTF-8 bytes).
//   - DATE/TIME/TIMESTAMP/TIMESTAMP_LTZ among themselves; TIMESTAMP ↔
//     TIMESTAMP_LTZ through ctx.Loc; integers → TIMESTAMP_LTZ as epoch
//     seconds.
//   - ARRAY, MAP and ROW element-wise.
func CastValue(ctx *EvalContext, v any, from, to types.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch {
	case to.IsString():
		s, err := castToString(ctx, v, from)
		if err != nil {
			return nil, err
		}
		return fitString(s, to), nil
	case from.IsString():
		return castFromString(ctx, v.(string), to)
	}
	switch to.Kind {
	case types.Boolean:
		switch from.Kind {
		case types.Boolean:
			return v, nil
		}
		if from.IsNumeric() {
			if d, ok := v.(decimal128.Num); ok {
				return d.Sign() != 0, nil
			}
			f, _ := toFloat64(v, from)
			return f != 0, nil
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		switch {
		case from.Kind == types.Boolean:
			if v.(bool) {
				return fromInt64(1, to.Kind), nil
			}
			return fromInt64(0, to.Kind), nil
		case from.IsInteger():
			i, _ := toInt64(v)
			return fromInt64(i, to.Kind), nil
		case from.IsApprox():
			f, _ := toFloat64(v, from)
			if to.Kind == types.BigInt {
				return javaF2L(f), nil
			}
			return fromInt64(int64(javaF2I(f)), to.Kind), nil
		case from.Kind == types.Decimal:
			b := new(big.Int).Quo(v.(decimal128.Num).BigInt(), pow10(from.Scale))
			return fromInt64(b.Int64(), to.Kind), nil
		}
	case types.Float, types.Double:
		if from.Kind == types.Boolean {
			f := 0.0
			if v.(bool) {
				f = 1
			}
			if to.Kind == types.Float {
				return float32(f), nil
			}
			return f, nil
		}
		if from.IsNumeric() {
			f, _ := toFloat64(v, from)
			if to.Kind == types.Float {
				if x, ok := v.(float32); ok {
					return x, nil
				}
				return float32(f), nil
			}
			return f, nil
		}
	case types.Decimal:
		if from.Kind == types.Boolean {
			b := big.NewInt(0)
			if v.(bool) {
				b = new(big.Int).Set(pow10(to.Scale))
			}
			d, ok := bigToDec(b, to.Precision)
			if !ok {
				return nil, nil
			}
			return d, nil
		}
		if from.IsNumeric() {
			d, ok := decFromAny(v, from, to)
			if !ok {
				return nil, nil
			}
			return d, nil
		}
	case types.Binary, types.VarBinary:
		if from.IsBinary() {
			return fitBinary(v.([]byte), to), nil
		}
	case types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
		return castTemporal(ctx, v, from, to)
	case types.IntervalDayTime, types.IntervalYearMonth:
		if from.Kind == to.Kind {
			return v, nil
		}
	case types.Array:
		if from.Kind == types.Array {
			xs := v.([]any)
			out := make([]any, len(xs))
			for i, x := range xs {
				y, err := CastValue(ctx, x, *from.Elem, *to.Elem)
				if err != nil {
					return nil, err
				}
				out[i] = y
			}
			return out, nil
		}
	case types.Map:
		if from.Kind == types.Map {
			m := v.(*types.MapValue)
			out := &types.MapValue{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
			for i := range m.Keys {
				k, err := CastValue(ctx, m.Keys[i], *from.Elem, *to.Elem)
				if err != nil {
					return nil, err
				}
				x, err := CastValue(ctx, m.Values[i], *from.Value, *to.Value)
				if err != nil {
					return nil, err
				}
				out.Keys[i], out.Values[i] = k, x
			}
			return out, nil
		}
	case types.Row:
		if from.Kind == types.Row && len(from.Fields) == len(to.Fields) {
			xs := v.([]any)
			out := make([]any, len(xs))
			for i, x := range xs {
				y, err := CastValue(ctx, x, from.Fields[i].Type, to.Fields[i].Type)
				if err != nil {
					return nil, err
				}
				out[i] = y
			}
			return out, nil
		}
	case types.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("Cast function cannot convert value of type %s to type %s", from.SummaryString(), to.SummaryString())
}

func castTemporal(ctx *EvalContext, v any, from, to types.Type) (any, error) {
	z := loc(ctx)
	// TIMESTAMP values are micros (p ≤ 6) or nanos (p 7..9): see
	// types.IsNanoTimestamp; the conversions below respect both units.
	switch from.Kind {
	case types.Date:
		d := v.(int32)
		switch to.Kind {
		case types.Date:
			return d, nil
		case types.Timestamp:
			return types.FromMicros(int64(d)*microsPerDay, to)
		case types.TimestampLTZ:
			return tsValue(fromWall(dateOf(d), z), to)
		}
	case types.Time:
		ms := v.(int32)
		switch to.Kind {
		case types.Time:
			return truncMillis(ms, to.Precision), nil
		case types.Timestamp:
			return types.FromMicros(int64(ms)*1000, to)
		case types.TimestampLTZ:
			return tsValue(fromWall(time.UnixMilli(int64(ms)).UTC(), z), to)
		}
	case types.Timestamp:
		x := v.(int64)
		us := types.ToMicros(x, from)
		switch to.Kind {
		case types.Date:
			return int32(floorDiv(us, microsPerDay)), nil
		case types.Time:
			return truncMillis(int32(floorMod(us, microsPerDay)/1000), to.Precision), nil
		case types.Timestamp:
			return types.ConvertTimestamp(x, from, to)
		case types.TimestampLTZ:
			return tsValue(fromWall(tsTime(x, from), z), to)
		}
	case types.TimestampLTZ:
		x := v.(int64)
		wall := wallOf(ltzTime(ctx, x, from))
		us := wallMicros(wall)
		switch to.Kind {
		case types.Date:
			return int32(floorDiv(us, microsPerDay)), nil
		case types.Time:
			return truncMillis(int32(floorMod(us, microsPerDay)/1000), to.Precision), nil
		case types.Timestamp:
			return tsValue(wall, to)
		case types.TimestampLTZ:
			return types.ConvertTimestamp(x, from, to)
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if to.Kind == types.TimestampLTZ {
			i, _ := toInt64(v)
			u := types.TimestampUnitsPerSecond(to)
			if i > math.MaxInt64/u || i < math.MinInt64/u {
				if types.IsNanoTimestamp(to) {
					return nil, fmt.Errorf("Cannot cast %d to %s: %w", i, to, types.TimestampRangeError(to))
				}
				return nil, fmt.Errorf("Cannot cast %d to %s: out of range", i, to)
			}
			return i * u, nil
		}
	}
	return nil, fmt.Errorf("Cast function cannot convert value of type %s to type %s", from.SummaryString(), to.SummaryString())
}

func truncMillis(ms int32, p int) int32 {
	if p >= 3 {
		return ms
	}
	f := int32(math.Pow10(3 - p))
	return ms / f * f
}

// fitString applies CHAR(n) padding and VARCHAR(n) truncation.
func fitString(s string, to types.Type) string {
	n := to.Precision
	if n <= 0 || n >= types.MaxLength {
		return s
	}
	l := utf8.RuneCountInString(s)
	switch {
	case l > n:
		return runeSub(s, 0, int64(n))
	case l < n && to.Kind == types.Char:
		return s + strings.Repeat(" ", n-l)
	}
	return s
}

func fitBinary(b []byte, to types.Type) []byte {
	n := to.Precision
	if n <= 0 || n >= types.MaxLength {
		return b
	}
	switch {
	case len(b) > n:
		return append([]byte(nil), b[:n]...)
	case len(b) < n && to.Kind == types.Binary:
		out := make([]byte, n)
		copy(out, b)
		return out
	}
	return b
}

func castFromString(ctx *EvalContext, s string, to types.Type) (any, error) {
	t := strings.TrimSpace(s)
	fail := func() (any, error) {
		if to.IsNumeric() {
			return nil, &EvalError{Class: "java.lang.NumberFormatException", Msg: fmt.Sprintf("For input string: '%s'", s)}
		}
		return nil, &EvalError{Class: "org.apache.flink.table.api.TableException", Msg: fmt.Sprintf("Cannot cast '%s' to %s", s, to.SummaryString())}
	}
	switch to.Kind {
	case types.Boolean:
		switch strings.ToLower(t) {
		case "true", "t", "yes", "y", "1":
			return true, nil
		case "false", "f", "no", "n", "0":
			return false, nil
		}
		return fail()
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		i, ok := parseJavaInt(t, to.Kind)
		if !ok {
			return fail()
		}
		return fromInt64(i, to.Kind), nil
	case types.Float, types.Double:
		f, ok := parseJavaDouble(t)
		if !ok {
			return fail()
		}
		if to.Kind == types.Float {
			return float32(f), nil
		}
		return f, nil
	case types.Decimal:
		d, err := parseDecimalString(t, to.Precision, to.Scale)
		if err == errDecimalOverflow {
			return nil, nil
		}
		if err != nil {
			return fail()
		}
		return d, nil
	case types.Date:
		d, err := ParseDate(t)
		if err != nil {
			us, err2 := ParseTimestamp(t)
			if err2 != nil {
				return fail()
			}
			return int32(floorDiv(us, microsPerDay)), nil
		}
		return d, nil
	case types.Time:
		ms, err := ParseTime(t)
		if err != nil {
			return fail()
		}
		return truncMillis(ms, to.Precision), nil
	case types.Timestamp:
		wall, err := parseTimestampTime(t)
		if err != nil {
			return fail()
		}
		return tsValue(wall, to)
	case types.TimestampLTZ:
		wall, err := parseTimestampTime(t)
		if err != nil {
			return fail()
		}
		return tsValue(fromWall(wall, loc(ctx)), to)
	case types.Binary, types.VarBinary:
		return fitBinary([]byte(s), to), nil
	}
	return nil, fmt.Errorf("Cast function cannot convert value of type %s to type %s", "STRING", to.SummaryString())
}

// parseJavaInt parses an integer like Flink's string-to-integer cast:
// optional sign, digits, and an ignored fractional part; it fails on
// overflow of the target type.
func parseJavaInt(s string, k types.Kind) (int64, bool) {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac := s[i+1:]
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		s = s[:i]
		if s == "" || s == "-" || s == "+" {
			if frac == "" {
				return 0, false
			}
			return 0, true
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	var lo, hi int64
	switch k {
	case types.TinyInt:
		lo, hi = math.MinInt8, math.MaxInt8
	case types.SmallInt:
		lo, hi = math.MinInt16, math.MaxInt16
	case types.Int:
		lo, hi = math.MinInt32, math.MaxInt32
	default:
		return i, true
	}
	return i, i >= lo && i <= hi
}

// parseJavaDouble parses like Java's Double.parseDouble (NaN, Infinity,
// optional d/f suffix).
func parseJavaDouble(s string) (float64, bool) {
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	l := strings.ToLower(s)
	if strings.Contains(l, "inf") || strings.Contains(l, "nan") || strings.HasPrefix(l, "0x") || strings.Contains(l, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

var errDecimalOverflow = fmt.Errorf("decimal overflow")

// parseDecimalString parses a decimal number (optional exponent) into
// DECIMAL(p, s), rounding HALF_UP; errDecimalOverflow when it does not fit.
func parseDecimalString(s string, p, sc int) (decimal128.Num, error) {
	if s == "" || strings.ContainsAny(s, "_/ ") || strings.HasPrefix(strings.ToLower(strings.TrimLeft(s, "+-")), "0x") {
		return decimal128.Num{}, fmt.Errorf("bad decimal")
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return decimal128.Num{}, fmt.Errorf("bad decimal")
	}
	r.Mul(r, new(big.Rat).SetInt(pow10(sc)))
	b := divHalfUp(r.Num(), r.Denom())
	d, ok := bigToDec(b, p)
	if !ok {
		return decimal128.Num{}, errDecimalOverflow
	}
	return d, nil
}

// FormatDouble prints a FLOAT (bits 32) or DOUBLE (bits 64) like Java's
// Float.toString / Double.toString: "1.0", "0.1", "1.0E10", "1.0E-5",
// "NaN", "Infinity".
func FormatDouble(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.ContainsRune(s, '.') {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.ContainsRune(mant, '.') {
		mant += ".0"
	}
	if exp[0] == '+' {
		exp = exp[1:]
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// castToString renders a value as CAST(v AS STRING) does.
func castToString(ctx *EvalContext, v any, t types.Type) (string, error) {
	switch t.Kind {
	case types.Boolean:
		if v.(bool) {
			return "TRUE", nil
		}
		return "FALSE", nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		i, _ := toInt64(v)
		return strconv.FormatInt(i, 10), nil
	case types.Float:
		f, _ := toFloat64(v, t)
		return FormatDouble(f, 32), nil
	case types.Double:
		return FormatDouble(v.(float64), 64), nil
	case types.Decimal:
		return v.(decimal128.Num).ToString(int32(t.Scale)), nil
	case types.Char, types.VarChar:
		return v.(string), nil
	case types.Binary, types.VarBinary:
		return string(v.([]byte)), nil
	case types.Date:
		return dateOf(v.(int32)).Format("2006-01-02"), nil
	case types.Time:
		return formatTime(v.(int32), t.Precision), nil
	case types.Timestamp:
		return formatTimestamp(tsTime(v.(int64), t), t.Precision), nil
	case types.TimestampLTZ:
		return formatTimestamp(ltzTime(ctx, v.(int64), t), t.Precision), nil
	case types.IntervalDayTime:
		return formatIntervalDT(v.(int64)), nil
	case types.IntervalYearMonth:
		m := int64(v.(int32))
		sign := "+"
		if m < 0 {
			sign, m = "-", -m
		}
		return fmt.Sprintf("%s%d-%02d", sign, m/12, m%12), nil
	case types.Array:
		xs := v.([]any)
		parts := make([]string, len(xs))
		for i, x := range xs {
			s, err := nestedString(ctx, x, *t.Elem)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case types.Map:
		m := v.(*types.MapValue)
		parts := make([]string, len(m.Keys))
		for i := range m.Keys {
			k, err := nestedString(ctx, m.Keys[i], *t.Elem)
			if err != nil {
				return "", err
			}
			x, err := nestedString(ctx, m.Values[i], *t.Value)
			if err != nil {
				return "", err
			}
			parts[i] = k + "=" + x
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case types.Row:
		xs := v.([]any)
		parts := make([]string, len(xs))
		for i, x := range xs {
			ft := types.StringT
			if i < len(t.Fields) {
				ft = t.Fields[i].Type
			}
			s, err := nestedString(ctx, x, ft)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "(" + strings.Join(parts, ", ") + ")", nil
	}
	return "", fmt.Errorf("Cast function cannot convert value of type %s to type STRING", t.SummaryString())
}

func nestedString(ctx *EvalContext, v any, t types.Type) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	return castToString(ctx, v, t)
}

func formatTime(ms int32, p int) string {
	t := time.UnixMilli(int64(ms)).UTC()
	s := t.Format("15:04:05")
	if p > 0 {
		frac := padNum(int(ms%1000), 3) + "000000"
		s += "." + frac[:min(p, 9)]
	}
	return s
}

func formatTimestamp(t time.Time, p int) string {
	s := t.Format("2006-01-02 15:04:05")
	if p > 0 {
		frac := padNum(t.Nanosecond(), 9)
		s += "." + frac[:min(p, 9)]
	}
	return s
}

func formatIntervalDT(ms int64) string {
	sign := "+"
	if ms < 0 {
		sign = "-"
		if ms == math.MinInt64 {
			ms++
		}
		ms = -ms
	}
	d := ms / millisPerDay
	ms %= millisPerDay
	return fmt.Sprintf("%s%d %02d:%02d:%02d.%03d", sign, d, ms/3_600_000, (ms/60_000)%60, (ms/1000)%60, ms%1000)
}
