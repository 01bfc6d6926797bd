// Package textconv converts between text and canonical SQL values the way
// Flink's csv and json formats do: Java's number parsing (trimmed), ISO
// dates and times, SQL timestamps `yyyy-MM-dd HH:mm:ss[.fffffffff]`,
// BigDecimal text fitted to a DECIMAL(p, s) with HALF_UP rounding.
// The integer parsers work on []byte without allocating: they are the hot
// path of the CSV reader.
package textconv

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// ParseError is a value that does not parse; its message follows Java's
// exception texts (e.g. `For input string: "abc"`).
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

func inputErr(b []byte) error {
	return &ParseError{Msg: fmt.Sprintf("For input string: %q", b)}
}

// ParseInt64 parses an ASCII decimal integer with an optional sign, as
// Long.parseLong does, after trimming spaces. ok is false on any other text
// or on overflow.
func ParseInt64(b []byte) (v int64, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	i := 0
	neg := false
	switch b[0] {
	case '-':
		neg = true
		i = 1
	case '+':
		i = 1
	case ' ', '\t':
		return ParseInt64(trim(b))
	}
	if i == len(b) {
		return 0, false
	}
	var u uint64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			if b[i] == ' ' || b[i] == '\t' {
				t := trim(b)
				if len(t) == len(b) {
					return 0, false
				}
				return ParseInt64(t)
			}
			return 0, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c)
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// ParseIntRange parses an integer that must lie in [lo, hi].
func ParseIntRange(b []byte, lo, hi int64) (int64, error) {
	v, ok := ParseInt64(b)
	if !ok || v < lo || v > hi {
		if ok {
			return 0, &ParseError{Msg: fmt.Sprintf("Value out of range. Value:%q Radix:10", b)}
		}
		return 0, inputErr(b)
	}
	return v, nil
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// ParseBool is Java's Boolean.parseBoolean of the trimmed text: "true" in
// any case is true, everything else false.
func ParseBool(b []byte) bool {
	return strings.EqualFold(string(trim(b)), "true")
}

// ParseFloat parses a Java double literal ("1.5", "1e3", "NaN",
// "Infinity", "-Infinity", optional d/f suffix), trimmed.
func ParseFloat(b []byte, bits int) (float64, error) {
	s := string(trim(b))
	switch s {
	case "NaN", "+NaN", "-NaN":
		return math.NaN(), nil
	case "Infinity", "+Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	t := s
	if n := len(t); n > 1 {
		switch t[n-1] {
		case 'd', 'D', 'f', 'F':
			t = t[:n-1]
		}
	}
	// Go also accepts "inf", "nan", hex and underscores: Java does not.
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, &ParseError{Msg: fmt.Sprintf("For input string: %q", s)}
		}
	}
	f, err := strconv.ParseFloat(t, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, nil
		}
		if s == "" {
			return 0, &ParseError{Msg: "empty String"}
		}
		return 0, &ParseError{Msg: fmt.Sprintf("For input string: %q", s)}
	}
	return f, nil
}

var bigTen = big.NewInt(10)

// ParseDecimal parses BigDecimal text ("1.5", "-3", "1E-2") and fits it to
// DECIMAL(precision, scale) with HALF_UP rounding. ok is false (a NULL, as
// Flink's DecimalData.fromBigDecimal) when the value needs more digits than
// the precision allows.
func ParseDecimal(b []byte, precision, scale int) (n decimal128.Num, ok bool, err error) {
	s := string(trim(b))
	if s == "" {
		return n, false, &ParseError{Msg: "Character array is missing \"exponent\" mark 'e' or 'E'."}
	}
	bad := &ParseError{Msg: fmt.Sprintf("Character %s is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.", s)}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, perr := strconv.Atoi(s[i+1:])
		if perr != nil {
			return n, false, bad
		}
		mant, exp = s[:i], e
	}
	neg := false
	if mant != "" && (mant[0] == '-' || mant[0] == '+') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	frac := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		frac = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	if mant == "" {
		return n, false, bad
	}
	for i := 0; i < len(mant); i++ {
		if mant[i] < '0' || mant[i] > '9' {
			return n, false, bad
		}
	}
	// value = mant * 10^(-frac + exp); srcScale = frac - exp.
	u, _ := new(big.Int).SetString(mant, 10)
	srcScale := frac - exp
	switch {
	case srcScale < scale:
		u.Mul(u, new(big.Int).Exp(bigTen, big.NewInt(int64(scale-srcScale)), nil))
	case srcScale > scale:
		div := new(big.Int).Exp(bigTen, big.NewInt(int64(srcScale-scale)), nil)
		q, r := new(big.Int).QuoRem(u, div, new(big.Int))
		// HALF_UP on the magnitude.
		if r.Lsh(r, 1).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		u = q
	}
	if len(u.String()) > precision && u.Sign() != 0 {
		return n, false, nil
	}
	if neg {
		u.Neg(u)
	}
	return decimal128.FromBigInt(u), true, nil
}

// Epoch day arithmetic (proleptic Gregorian).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// digits reads n..max ASCII digits at s[i:], returning the value and the
// new index; ok is false with fewer than min digits.
func digits(s string, i, min, max int) (v int64, j int, ok bool) {
	j = i
	for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
		v = v*10 + int64(s[j]-'0')
		j++
	}
	return v, j, j-i >= min
}

// parseDate reads yyyy-MM-dd (strict) or, when lenient, yyyy-M-d as
// java.sql.Date.valueOf accepts, at s[i:].
func parseDate(s string, i int, lenient bool) (days int64, j int, ok bool) {
	y, j, ok := digits(s, i, 4, 4)
	if !ok || j >= len(s) || s[j] != '-' {
		return 0, 0, false
	}
	minD := 2
	if lenient {
		minD = 1
	}
	m, j, ok := digits(s, j+1, minD, 2)
	if !ok || j >= len(s) || s[j] != '-' {
		return 0, 0, false
	}
	d, j, ok := digits(s, j+1, minD, 2)
	if !ok || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, false
	}
	return daysFromCivil(y, m, d), j, true
}

// ParseDate parses an ISO date yyyy-MM-dd (Date.valueOf also accepts one
// digit months and days) to days since the epoch.
func ParseDate(b []byte) (int32, error) {
	s := string(trim(b))
	days, j, ok := parseDate(s, 0, true)
	if !ok || j != len(s) {
		return 0, &ParseError{Msg: fmt.Sprintf("Text '%s' could not be parsed as a DATE", s)}
	}
	return int32(days), nil
}

// parseTime reads HH:mm[:ss[.fffffffff]] (ISO_LOCAL_TIME) at s[i:],
// returning nanoseconds of the day. requireSeconds demands the seconds.
func parseTime(s string, i int, requireSeconds bool) (nanos int64, j int, ok bool) {
	h, j, ok := digits(s, i, 2, 2)
	if !ok || j >= len(s) || s[j] != ':' || h > 23 {
		return 0, 0, false
	}
	m, j, ok := digits(s, j+1, 2, 2)
	if !ok || m > 59 {
		return 0, 0, false
	}
	nanos = (h*3600 + m*60) * 1e9
	if j < len(s) && s[j] == ':' {
		sec, k, ok := digits(s, j+1, 2, 2)
		if !ok || sec > 59 {
			return 0, 0, false
		}
		nanos += sec * 1e9
		j = k
		if j < len(s) && s[j] == '.' {
			f, k, ok := digits(s, j+1, 1, 9)
			if !ok {
				return 0, 0, false
			}
			for n := k - j - 1; n < 9; n++ {
				f *= 10
			}
			nanos += f
			j = k
		}
	} else if requireSeconds {
		return 0, 0, false
	}
	return nanos, j, true
}

// ParseTime parses HH:mm[:ss[.fff]] to milliseconds of the day, truncated
// to precision digits as Flink's csv format does.
func ParseTime(b []byte, precision int) (int32, error) {
	s := string(trim(b))
	nanos, j, ok := parseTime(s, 0, false)
	if !ok || j != len(s) {
		return 0, &ParseError{Msg: fmt.Sprintf("Text '%s' could not be parsed at index 0", s)}
	}
	ms := nanos / 1e6
	switch precision {
	case 0:
		ms = ms / 1000 * 1000
	case 1:
		ms = ms / 100 * 100
	case 2:
		ms = ms / 10 * 10
	}
	return int32(ms), nil
}

// TimestampStyle selects the date/time separator and zone suffix accepted
// by ParseTimestamp.
type TimestampStyle uint8

// Timestamp text styles.
const (
	// SQL is `yyyy-MM-dd HH:mm:ss[.f]` (java.sql.Timestamp.valueOf, csv).
	SQL TimestampStyle = iota
	// SQLMinutes is `yyyy-MM-dd HH:mm[:ss[.f]]` (json 'SQL').
	SQLMinutes
	// ISO is `yyyy-MM-ddTHH:mm[:ss[.f]]` (json 'ISO-8601').
	ISO
	// Lenient accepts ' ' or 'T' and optional seconds (the values
	// connector's inline data).
	Lenient
)

// ParseTimestamp parses a timestamp to microseconds since the epoch (wall
// clock). With zoned, a trailing 'Z' is required (TIMESTAMP_LTZ in json).
func ParseTimestamp(b []byte, style TimestampStyle, zoned bool) (int64, error) {
	days, nanos, err := parseTimestampParts(b, style, zoned)
	if err != nil {
		return 0, err
	}
	return days*86_400_000_000 + nanos/1000, nil
}

// parseTimestampParts parses a timestamp into days since the epoch and
// nanoseconds of the day.
func parseTimestampParts(b []byte, style TimestampStyle, zoned bool) (int64, int64, error) {
	s := string(trim(b))
	fail := func() (int64, int64, error) {
		return 0, 0, &ParseError{Msg: fmt.Sprintf("Text '%s' could not be parsed as a TIMESTAMP", s)}
	}
	days, j, ok := parseDate(s, 0, style == SQL || style == Lenient)
	if !ok || j >= len(s) {
		return fail()
	}
	switch {
	case s[j] == ' ' && style != ISO:
	case s[j] == 'T' && (style == ISO || style == Lenient):
	default:
		return fail()
	}
	nanos, k, ok := parseTime(s, j+1, style == SQL)
	if !ok {
		return fail()
	}
	if zoned || (style == Lenient && k < len(s) && s[k] == 'Z') {
		if k >= len(s) || s[k] != 'Z' {
			return fail()
		}
		k++
	}
	if k != len(s) {
		return fail()
	}
	return days, nanos, nil
}

// ParseDateISO is the fast path of ParseDate for exactly yyyy-MM-dd (ten
// bytes, no spaces); ok is false for any other text, which the caller
// hands to ParseDate for the lenient forms and the message.
func ParseDateISO(b []byte) (int32, bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	var v [8]int64
	for k, i := range [8]int{0, 1, 2, 3, 5, 6, 8, 9} {
		d := b[i] - '0'
		if d > 9 {
			return 0, false
		}
		v[k] = int64(d)
	}
	y := v[0]*1000 + v[1]*100 + v[2]*10 + v[3]
	m := v[4]*10 + v[5]
	d := v[6]*10 + v[7]
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return int32(daysFromCivil(y, m, d)), true
}

var pow10 = [19]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// ParseDecimalInt64 is the fast path of ParseDecimal for plain text
// ([sign] digits [. digits], at most 18 digits, no spaces or exponent)
// whose value at the scale fits 18 digits: the unscaled value, rounded
// HALF_UP as ParseDecimal does. fits is false (a NULL) when the value
// needs more than precision digits; ok is false for any other text, which
// the caller hands to ParseDecimal.
func ParseDecimalInt64(b []byte, precision, scale int) (v int64, fits, ok bool) {
	i := 0
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var u int64
	nd, frac, dot := 0, 0, false
	for ; i < len(b); i++ {
		c := b[i]
		if d := c - '0'; d <= 9 {
			u = u*10 + int64(d)
			nd++
			if dot {
				frac++
			}
			continue
		}
		if c == '.' && !dot {
			dot = true
			continue
		}
		return 0, false, false
	}
	if nd == 0 || nd > 18 || scale < 0 || scale > 18 {
		return 0, false, false
	}
	switch {
	case frac < scale:
		if nd-frac+scale > 18 {
			return 0, false, false
		}
		u *= pow10[scale-frac]
	case frac > scale:
		div := pow10[frac-scale]
		q, r := u/div, u%div
		if 2*r >= div {
			q++
		}
		u = q
	}
	if precision <= 18 && u >= pow10[precision] {
		return 0, false, true
	}
	if neg {
		u = -u
	}
	return u, true, true
}
