package function

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

// javaFormat formats args as java.util.Formatter.format(Locale.US, f,
// args) does, for the conversions b, s, c, d, o, x, e, f, g, % and n with
// the flags '-', '#', '+', ' ', '0', ',', '(' , a width, a precision and
// argument indexes ("2$", "<"). ok is false where Java throws (an unknown
// conversion, a missing argument, an argument of the wrong type).
func javaFormat(ctx *EvalContext, f string, args []any, ts []types.Type) (string, bool) {
	var b strings.Builder
	next, last := 0, -1
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		// argument index: digits followed by '$', or '<'
		argIdx := -2
		if j < len(f) && f[j] == '<' {
			argIdx = last
			j++
		} else {
			k := j
			for k < len(f) && f[k] >= '0' && f[k] <= '9' {
				k++
			}
			if k > j && k < len(f) && f[k] == '$' {
				n, _ := strconv.Atoi(f[j:k])
				argIdx = n - 1
				j = k + 1
			}
		}
		flagStart := j
		for j < len(f) && strings.IndexByte("-#+ 0,(", f[j]) >= 0 {
			j++
		}
		flags := f[flagStart:j]
		ws := j
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		width := -1
		if j > ws {
			width, _ = strconv.Atoi(f[ws:j])
		}
		prec := -1
		if j < len(f) && f[j] == '.' {
			ps := j + 1
			j++
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			if j == ps {
				return "", false
			}
			prec, _ = strconv.Atoi(f[ps:j])
		}
		if j >= len(f) {
			return "", false
		}
		conv := f[j]
		i = j
		switch conv {
		case '%':
			b.WriteString(fmtPad("%", width, strings.Contains(flags, "-"), false))
			continue
		case 'n':
			b.WriteByte('\n')
			continue
		}
		if argIdx == -2 {
			argIdx = next
			next++
		}
		if argIdx < 0 || argIdx >= len(args) || argIdx >= len(ts) {
			return "", false // MissingFormatArgumentException
		}
		last = argIdx
		s, ok := formatOne(ctx, conv, flags, width, prec, args[argIdx], ts[argIdx])
		if !ok {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

func fmtPad(s string, width int, left, zero bool) string {
	n := len([]rune(s))
	if width <= n {
		return s
	}
	fill := strings.Repeat(" ", width-n)
	if left {
		return s + fill
	}
	if zero {
		sign := ""
		if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '(') {
			sign, s = s[:1], s[1:]
		}
		return sign + strings.Repeat("0", width-n) + s
	}
	return fill + s
}

// groupDigits inserts ',' every three digits of the integer part of s.
func groupDigits(s string) string {
	intEnd := strings.IndexAny(s, ".eE")
	if intEnd < 0 {
		intEnd = len(s)
	}
	ip := s[:intEnd]
	var b strings.Builder
	for k, d := range ip {
		if k > 0 && (len(ip)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String() + s[intEnd:]
}

// signed applies the '+', ' ' and '(' flags to a non-negative magnitude.
func signed(mag string, neg bool, flags string) string {
	switch {
	case neg && strings.Contains(flags, "("):
		return "(" + mag + ")"
	case neg:
		return "-" + mag
	case strings.Contains(flags, "+"):
		return "+" + mag
	case strings.Contains(flags, " "):
		return " " + mag
	}
	return mag
}

func formatOne(ctx *EvalContext, conv byte, flags string, width, prec int, v any, t types.Type) (string, bool) {
	left := strings.Contains(flags, "-")
	zero := strings.Contains(flags, "0")
	upper := conv >= 'A' && conv <= 'Z'
	lc := conv | 0x20
	out := ""
	switch lc {
	case 'b':
		switch x := v.(type) {
		case nil:
			out = "false"
		case bool:
			out = strconv.FormatBool(x)
		default:
			out = "true"
		}
		if prec >= 0 && prec < len(out) {
			out = out[:prec]
		}
	case 's':
		if v == nil {
			out = "null"
		} else {
			sv, err := CastValue(ctx, v, t, types.StringT)
			if err != nil {
				return "", false
			}
			out = sv.(string)
		}
		if prec >= 0 {
			out = runeSub(out, 0, int64(prec))
		}
	case 'c':
		if v == nil {
			out = "null"
			break
		}
		cp, ok := toInt64(v)
		if !ok || cp < 0 || cp > 0x10FFFF {
			return "", false
		}
		out = string(rune(cp))
	case 'd', 'o', 'x':
		if v == nil {
			out = "null"
			break
		}
		var n *big.Int
		if i, ok := toInt64(v); ok {
			n = big.NewInt(i)
		} else {
			return "", false // IllegalFormatConversionException
		}
		if lc == 'd' {
			mag := new(big.Int).Abs(n).String()
			if strings.Contains(flags, ",") {
				mag = groupDigits(mag)
			}
			out = signed(mag, n.Sign() < 0, flags)
			break
		}
		// o and x print the two's complement of the Java type's width
		u := n
		if n.Sign() < 0 {
			bits := map[types.Kind]uint{types.TinyInt: 8, types.SmallInt: 16, types.Int: 32}[t.Kind]
			if bits == 0 {
				bits = 64
			}
			u = new(big.Int).Add(n, new(big.Int).Lsh(big.NewInt(1), bits))
		}
		base := map[byte]int{'o': 8, 'x': 16}[lc]
		out = u.Text(base)
		if strings.Contains(flags, "#") {
			out = map[byte]string{'o': "0", 'x': "0x"}[lc] + out
		}
	case 'e', 'f', 'g':
		if v == nil {
			out = "null"
			break
		}
		var fv float64
		switch x := v.(type) {
		case float64:
			fv = x
		case float32:
			fv = float64(x)
		case decimal128.Num:
			fv = decToFloat(x, t.Scale)
		default:
			return "", false
		}
		if math.IsNaN(fv) || math.IsInf(fv, 0) {
			switch {
			case math.IsNaN(fv):
				out = "NaN"
			case fv > 0:
				out = signed("Infinity", false, flags)
			default:
				out = signed("Infinity", true, flags)
			}
			break
		}
		if prec < 0 {
			prec = 6
		}
		mag := math.Abs(fv)
		var s string
		switch lc {
		case 'e':
			s = strconv.FormatFloat(mag, 'e', prec, 64)
		case 'f':
			s = strconv.FormatFloat(mag, 'f', prec, 64)
		case 'g':
			if prec == 0 {
				prec = 1
			}
			r, _ := strconv.ParseFloat(strconv.FormatFloat(mag, 'e', prec-1, 64), 64)
			if r != 0 && (r < 1e-4 || r >= math.Pow10(prec)) {
				s = strconv.FormatFloat(mag, 'e', prec-1, 64)
			} else {
				exp := 0
				if r != 0 {
					exp = int(math.Floor(math.Log10(r)))
				}
				s = strconv.FormatFloat(mag, 'f', max(prec-exp-1, 0), 64)
			}
		}
		if strings.Contains(flags, ",") && lc != 'e' {
			s = groupDigits(s)
		}
		out = signed(s, math.Signbit(fv) && fv != 0 || fv < 0, flags)
	default:
		return "", false // UnknownFormatConversionException
	}
	if upper {
		out = strings.ToUpper(out)
	}
	numeric := strings.IndexByte("doxefg", lc) >= 0 && v != nil
	return fmtPad(out, width, left, zero && numeric), true
}
