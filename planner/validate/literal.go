package validate

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

func notNull(t types.Type) types.Type { return t.WithNullable(false) }

// bindLiteral types a literal the way Flink (Calcite) does.
func (v *Validator) bindLiteral(l *ast.Literal, negate bool) (logical.Expr, error) {
	switch l.Kind {
	case ast.IntegerLit:
		text := l.Text
		if negate {
			text = "-" + text
		}
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			if n >= math.MinInt32 && n <= math.MaxInt32 {
				return &logical.Literal{Value: int32(n), T: notNull(types.IntT)}, nil
			}
			return &logical.Literal{Value: n, T: notNull(types.BigIntT)}, nil
		}
		return decimalLiteral(l, text)
	case ast.DecimalLit:
		text := l.Text
		if negate {
			text = "-" + text
		}
		return decimalLiteral(l, text)
	case ast.ApproxLit:
		f, err := strconv.ParseFloat(l.Text, 64)
		if err != nil {
			return nil, posErr(l.Pos, "Numeric literal '%s' out of range", l.Text)
		}
		if negate {
			f = -f
		}
		return &logical.Literal{Value: f, T: notNull(types.DoubleT)}, nil
	case ast.StringLit:
		return &logical.Literal{Value: l.Text, T: notNull(types.CharOf(utf8.RuneCountInString(l.Text)))}, nil
	case ast.BinaryLit:
		b, err := hex.DecodeString(l.Text)
		if err != nil {
			return nil, posErr(l.Pos, "Binary literal string must contain only characters '0' - '9', 'A' - 'F'")
		}
		return &logical.Literal{Value: b, T: notNull(types.Type{Kind: types.Binary, Precision: len(b)})}, nil
	case ast.BoolLit:
		return &logical.Literal{Value: strings.EqualFold(l.Text, "TRUE"), T: notNull(types.BooleanT)}, nil
	case ast.NullLit:
		return &logical.Literal{Value: nil, T: types.NullType}, nil
	case ast.DateLit:
		d, ok := parseDate(strings.TrimSpace(l.Text))
		if !ok {
			return nil, posErr(l.Pos, "Illegal DATE literal '%s': not in format 'yyyy-MM-dd'", l.Text)
		}
		return &logical.Literal{Value: d, T: notNull(types.DateT)}, nil
	case ast.TimeLit:
		ms, p, ok := parseTime(strings.TrimSpace(l.Text))
		if !ok {
			return nil, posErr(l.Pos, "Illegal TIME literal '%s': not in format 'HH:mm:ss'", l.Text)
		}
		if p > 3 {
			p = 3
		}
		return &logical.Literal{Value: int32(ms / 1000), T: notNull(types.TimeOf(p))}, nil
	case ast.TimestampLit, ast.TimestampLTZLit:
		return v.timestampLiteral(l)
	}
	return nil, posErr(l.Pos, "unknown literal %q", l.Text)
}

func decimalLiteral(l *ast.Literal, text string) (logical.Expr, error) {
	digits := strings.TrimLeft(text, "-+")
	scale := 0
	if i := strings.IndexByte(digits, '.'); i >= 0 {
		scale = len(digits) - i - 1
		digits = digits[:i] + digits[i+1:]
	}
	// Calcite's SqlLiteral.createExactNumeric counts every digit written,
	// leading zeros too: 0.908 is DECIMAL(4, 3), .5 DECIMAL(1, 1) (checked
	// against Flink 2.3 by internal/flinkdiff)
	prec := len(digits)
	if prec < scale {
		prec = scale
	}
	if prec == 0 {
		prec = 1
	}
	if prec > types.MaxDecimalPrecision {
		return nil, posErr(l.Pos, "Numeric literal '%s' out of range", l.Text)
	}
	n, err := decimal128.FromString(text, int32(prec), int32(scale))
	if err != nil {
		return nil, posErr(l.Pos, "Numeric literal '%s' out of range", l.Text)
	}
	return &logical.Literal{Value: n, T: notNull(types.DecimalOf(prec, scale))}, nil
}

func atoiN(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// parseDate parses yyyy-MM-dd into days since the epoch.
func parseDate(s string) (int32, bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return 0, false
	}
	y, ok1 := atoiN(parts[0])
	m, ok2 := atoiN(parts[1])
	d, ok3 := atoiN(parts[2])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return 0, false
	}
	return int32(t.Unix() / 86400), true
}

// parseTime parses HH:mm[:ss[.fff…]] into microseconds of the day and the
// number of fractional digits.
func parseTime(s string) (int64, int, bool) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, false
	}
	h, ok1 := atoiN(parts[0])
	m, ok2 := atoiN(parts[1])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, 0, false
	}
	var sec, micros int64
	p := 0
	if len(parts) == 3 {
		sp := parts[2]
		frac := ""
		if i := strings.IndexByte(sp, '.'); i >= 0 {
			frac = sp[i+1:]
			sp = sp[:i]
		}
		sv, ok := atoiN(sp)
		if !ok || sv > 59 {
			return 0, 0, false
		}
		sec = int64(sv)
		if frac != "" {
			if _, ok := atoiN(frac); !ok || len(frac) > 9 {
				return 0, 0, false
			}
			p = len(frac)
			f := (frac + "000000")[:6]
			fv, _ := strconv.Atoi(f)
			micros = int64(fv)
		}
	}
	return (int64(h)*3600+int64(m)*60+sec)*1e6 + micros, p, true
}

// parseTimestamp parses yyyy-MM-dd[ HH:mm[:ss[.f…]]] (also with 'T') into
// microseconds since the epoch and the fractional precision.
func parseTimestamp(s string) (int64, int, bool) {
	datePart, timePart := s, ""
	if i := strings.IndexAny(s, " T"); i >= 0 {
		datePart, timePart = s[:i], strings.TrimSpace(s[i+1:])
	}
	d, ok := parseDate(datePart)
	if !ok {
		return 0, 0, false
	}
	var tod int64
	p := 0
	if timePart != "" {
		tod, p, ok = parseTime(timePart)
		if !ok {
			return 0, 0, false
		}
	}
	return int64(d)*86400*1e6 + tod, p, true
}

// bindInterval types an interval literal: day-time intervals are int64
// milliseconds, year-month intervals int32 months.
func (v *Validator) bindInterval(l *ast.IntervalLit) (logical.Expr, error) {
	t, err := intervalType(l.Qualifier)
	if err != nil {
		return nil, posErr(l.Pos, "%s", err.Error())
	}
	if t.Kind == types.IntervalDayTime && l.Qualifier.EndFracPrecision < 0 && l.Qualifier.StartFracPrecision < 0 {
		t.Precision = 3
	}
	t.NotNull = true
	val := strings.TrimSpace(l.Value)
	neg := l.Negative
	if strings.HasPrefix(val, "-") {
		neg = !neg
		val = strings.TrimSpace(val[1:])
	} else if strings.HasPrefix(val, "+") {
		val = strings.TrimSpace(val[1:])
	}
	bad := func() error {
		return posErr(l.Pos, "Illegal interval literal format '%s' for INTERVAL %s", l.Value, l.Qualifier.String())
	}
	start, end := strings.ToUpper(l.Qualifier.Start), strings.ToUpper(l.Qualifier.End)
	if t.Kind == types.IntervalYearMonth {
		var months int64
		switch {
		case end == "":
			n, ok := atoiN(val)
			if !ok {
				return nil, bad()
			}
			months = int64(n)
			if start == "YEAR" {
				months *= 12
			} else if start == "QUARTER" {
				months *= 3
			}
		default:
			ps := strings.Split(val, "-")
			if len(ps) != 2 {
				return nil, bad()
			}
			y, ok1 := atoiN(ps[0])
			m, ok2 := atoiN(ps[1])
			if !ok1 || !ok2 || m > 11 {
				return nil, bad()
			}
			months = int64(y)*12 + int64(m)
		}
		if neg {
			months = -months
		}
		if months > math.MaxInt32 || months < math.MinInt32 {
			return nil, posErr(l.Pos, "Interval field value %s exceeds precision of %s field", l.Value, start)
		}
		return &logical.Literal{Value: int32(months), T: t}, nil
	}
	unitMs := map[string]*big.Rat{
		"WEEK": big.NewRat(7*86400000, 1), "DAY": big.NewRat(86400000, 1), "HOUR": big.NewRat(3600000, 1),
		"MINUTE": big.NewRat(60000, 1), "SECOND": big.NewRat(1000, 1), "MILLISECOND": big.NewRat(1, 1),
		"MICROSECOND": big.NewRat(1, 1000), "NANOSECOND": big.NewRat(1, 1000000),
	}
	order := []string{"DAY", "HOUR", "MINUTE", "SECOND"}
	var fields []string
	if end == "" {
		fields = []string{start}
	} else {
		in := false
		for _, u := range order {
			if u == start {
				in = true
			}
			if in {
				fields = append(fields, u)
			}
			if u == end {
				break
			}
		}
		if len(fields) == 0 {
			return nil, bad()
		}
	}
	// split val into numbers: DAY separated by space, others by ':'
	var nums []string
	rest := val
	for i, f := range fields {
		last := i == len(fields)-1
		if last {
			nums = append(nums, rest)
			break
		}
		sep := ":"
		if f == "DAY" {
			sep = " "
		}
		j := strings.Index(rest, sep)
		if j < 0 {
			return nil, bad()
		}
		nums = append(nums, strings.TrimSpace(rest[:j]))
		rest = strings.TrimSpace(rest[j+1:])
	}
	total := new(big.Rat)
	for i, f := range fields {
		r, ok := new(big.Rat).SetString(nums[i])
		if !ok || r.Sign() < 0 || (f != "SECOND" && !r.IsInt() && len(fields) > 1) {
			return nil, bad()
		}
		total.Add(total, new(big.Rat).Mul(r, unitMs[f]))
	}
	if neg {
		total.Neg(total)
	}
	ms := new(big.Int).Quo(total.Num(), total.Denom())
	if !ms.IsInt64() {
		return nil, posErr(l.Pos, "Interval field value %s exceeds precision of %s field", l.Value, start)
	}
	return &logical.Literal{Value: ms.Int64(), T: t}, nil
}

// nullOf returns a typed NULL literal.
func nullOf(t types.Type) logical.Expr {
	return &logical.Literal{Value: nil, T: t.WithNullable(true)}
}

var _ = fmt.Sprint
