package function

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

func registerOperators(r *Registry) {
	for _, op := range []string{"+", "-", "*", "/", "MOD"} {
		op := op
		r.Register(&Definition{
			Name:  op,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) { return inferArith(op, args) },
			Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
				return evalArith(op, ct, args[0], args[1])
			},
			NullOnNull: true,
			Doc:        arithDocs[op],
		})
	}
	r.Register(&Definition{
		Name: "NEGATE",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 1 {
				return types.Type{}, nil, arityError("-", len(args))
			}
			a := args[0]
			if a.Kind == types.Null {
				return types.IntT, []types.Type{types.IntT}, nil
			}
			if !a.IsNumeric() && !a.IsInterval() {
				return types.Type{}, nil, CallError("-", args)
			}
			return a, nil, nil
		},
		Eval:       func(ctx *EvalContext, ct CallTypes, args []any) (any, error) { return negate(args[0]) },
		NullOnNull: true,
		Doc:        Doc{Summary: "Returns the negated number or interval.", Args: "-numeric", Example: "-(1) → -1"},
	})
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		op := op
		r.Register(&Definition{
			Name:  op,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) { return inferCompare(op, args) },
			Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
				return evalCompare(op, ct.Args[0], args[0], args[1]), nil
			},
			NullOnNull: true,
			Doc:        Doc{Summary: "Compares two values of comparable types (coerced to their common type).", Args: "value1 " + op + " value2", Example: "1 " + op + " 2"},
		})
	}
	boolN := func(name string, minArgs int) func([]types.Type) (types.Type, []types.Type, error) {
		return func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) < minArgs {
				return types.Type{}, nil, arityError(name, len(args))
			}
			cast := make([]types.Type, len(args))
			for i, a := range args {
				c, ok := aBool(a)
				if !ok {
					return types.Type{}, nil, CallError(name, args)
				}
				cast[i] = c.WithNullable(a.Nullable())
			}
			return types.BooleanT.WithNullable(anyNullable(args)), cast, nil
		}
	}
	r.Register(&Definition{Name: "AND", Infer: boolN("AND", 2), Eval: evalAnd,
		Doc: Doc{Summary: "Three-valued logical AND.", Args: "boolean1 AND boolean2", Example: "TRUE AND NULL → NULL; FALSE AND NULL → FALSE"}})
	r.Register(&Definition{Name: "OR", Infer: boolN("OR", 2), Eval: evalOr,
		Doc: Doc{Summary: "Three-valued logical OR.", Args: "boolean1 OR boolean2", Example: "TRUE OR NULL → TRUE"}})
	r.Register(&Definition{Name: "NOT", Infer: func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) != 1 {
			return types.Type{}, nil, arityError("NOT", len(args))
		}
		return boolN("NOT", 1)(args)
	}, Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) { return !args[0].(bool), nil }, NullOnNull: true,
		Doc: Doc{Summary: "Logical NOT; NULL stays NULL.", Args: "NOT boolean", Example: "NOT TRUE → FALSE"}})

	isFn := func(name string, needBool bool, f func(v any) bool) {
		r.Register(&Definition{Name: name,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) != 1 {
					return types.Type{}, nil, arityError(name, len(args))
				}
				if needBool {
					if _, ok := aBool(args[0]); !ok {
						return types.Type{}, nil, CallError(name, args)
					}
				}
				return types.BooleanT.WithNullable(false), nil, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) { return f(args[0]), nil },
			Doc:  Doc{Summary: "Tests a value; never NULL.", Args: "value " + name, Example: "NULL " + name},
		})
	}
	isFn("IS NULL", false, func(v any) bool { return v == nil })
	isFn("IS NOT NULL", false, func(v any) bool { return v != nil })
	isFn("IS TRUE", true, func(v any) bool { return v == true })
	isFn("IS NOT TRUE", true, func(v any) bool { return v != true })
	isFn("IS FALSE", true, func(v any) bool { return v == false })
	isFn("IS NOT FALSE", true, func(v any) bool { return v != false })

	distinct := func(name string, not bool) {
		r.Register(&Definition{Name: name,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				t, casts, err := inferCompare(name, args)
				if err != nil {
					return t, nil, err
				}
				return types.BooleanT.WithNullable(false), casts, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
				var d bool
				switch {
				case args[0] == nil && args[1] == nil:
					d = false
				case args[0] == nil || args[1] == nil:
					d = true
				default:
					d = CompareValues(args[0], args[1], ct.Args[0]) != 0
				}
				return d != not, nil
			},
			Doc: Doc{Summary: "NULL-safe comparison; never NULL.", Args: "value1 " + name + " value2", Example: "NULL " + name + " NULL"},
		})
	}
	distinct("IS DISTINCT FROM", false)
	distinct("IS NOT DISTINCT FROM", true)

	r.Register(spec{name: "LIKE", minArgs: 2, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.BooleanT),
		nullOnNull: true, eval: evalLike,
		doc: Doc{Summary: "SQL pattern match: % any sequence, _ one character; optional one-character escape.", Args: "string LIKE pattern [ESCAPE char]", Example: "'abc' LIKE 'a%' → TRUE"}}.def())

	r.Register(&Definition{Name: "IN", Infer: inferIn, Eval: evalIn,
		Doc: Doc{Summary: "TRUE if the value equals an item; NULL if not found but an item or the value is NULL.", Args: "value IN (item1, item2, …)", Example: "2 IN (1, 2) → TRUE"}})

	r.Register(&Definition{Name: "CONCAT", Infer: inferConcat, NullOnNull: true,
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			if ct.Result.IsBinary() {
				var out []byte
				for _, a := range args {
					out = append(out, a.([]byte)...)
				}
				return out, nil
			}
			n := 0
			for _, a := range args {
				n += len(a.(string))
			}
			if n > maxStringLen {
				return nil, lengthError("CONCAT")
			}
			var b strings.Builder
			b.Grow(n)
			for _, a := range args {
				b.WriteString(a.(string))
			}
			return b.String(), nil
		},
		Doc: Doc{Summary: "Concatenates strings; NULL if any argument is NULL.", Args: "string1, string2, …", Example: "CONCAT('a', 'b') → 'ab'"}})

	r.Register(&Definition{Name: "COALESCE",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) < 1 {
				return types.Type{}, nil, arityError("COALESCE", 0)
			}
			t, ok := CommonType(args...)
			if !ok {
				return types.Type{}, nil, CallError("COALESCE", args)
			}
			nullable := true
			for _, a := range args {
				if !a.Nullable() {
					nullable = false
				}
			}
			return t.WithNullable(nullable), castsTo(t, args), nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			for _, a := range args {
				if a != nil {
					return a, nil
				}
			}
			return nil, nil
		},
		Doc: Doc{Summary: "Returns the first argument that is not NULL.", Args: "value1, value2, …", Example: "COALESCE(NULL, 1) → 1"}})

	r.Register(&Definition{Name: "NULLIF",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 {
				return types.Type{}, nil, arityError("NULLIF", len(args))
			}
			t, ok := CommonType(args...)
			if !ok {
				return types.Type{}, nil, CallError("NULLIF", args)
			}
			return t.WithNullable(true), castsTo(t, args), nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			if args[0] == nil {
				return nil, nil
			}
			if args[1] != nil && CompareValues(args[0], args[1], ct.Args[0]) == 0 {
				return nil, nil
			}
			return args[0], nil
		},
		Doc: Doc{Summary: "Returns NULL if value1 equals value2, else value1.", Args: "value1, value2", Example: "NULLIF(1, 1) → NULL"}})

	registerConstructors(r)
}

// castsTo asks every argument to be cast to t (keeping its nullability).
func castsTo(t types.Type, args []types.Type) []types.Type {
	out := make([]types.Type, len(args))
	for i, a := range args {
		out[i] = t.WithNullable(a.Nullable())
	}
	return out
}

var arithDocs = map[string]Doc{
	"+":   {Summary: "Adds numbers, or an interval to a date/time.", Args: "numeric1 + numeric2", Example: "1 + 2 → 3"},
	"-":   {Summary: "Subtracts numbers, or an interval from a date/time.", Args: "numeric1 - numeric2", Example: "3 - 1 → 2"},
	"*":   {Summary: "Multiplies numbers, or an interval by a number.", Args: "numeric1 * numeric2", Example: "2 * 3 → 6"},
	"/":   {Summary: "Divides numbers; integer division truncates; an integer division by zero fails.", Args: "numeric1 / numeric2", Example: "7 / 2 → 3"},
	"MOD": {Summary: "Remainder of numeric1 divided by numeric2, with the sign of numeric1.", Args: "numeric1, numeric2", Example: "MOD(7, 3) → 1"},
}

// adjustDecimal caps precision at 38 keeping at least min(scale, 6) digits
// of scale (Flink's LogicalTypeMerging.adjustPrecisionScale).
func adjustDecimal(p, s int) types.Type {
	if p <= types.MaxDecimalPrecision {
		return types.DecimalOf(max(p, 1), s)
	}
	intDigits := p - s
	minScale := min(s, 6)
	s = max(types.MaxDecimalPrecision-intDigits, minScale)
	return types.DecimalOf(types.MaxDecimalPrecision, s)
}

// DecimalArithType returns Flink's result type of op ("+", "-", "*", "/",
// "MOD") over two DECIMAL types.
func DecimalArithType(op string, a, b types.Type) types.Type {
	p1, s1, p2, s2 := a.Precision, a.Scale, b.Precision, b.Scale
	switch op {
	case "+", "-":
		s := max(s1, s2)
		return adjustDecimal(max(p1-s1, p2-s2)+s+1, s)
	case "*":
		// LogicalTypeMerging.findMultiplicationDecimalType: one digit more
		// than the operands' (found against a real Flink 2.3)
		return adjustDecimal(p1+p2+1, s1+s2)
	case "/":
		s := max(6, s1+p2+1)
		return adjustDecimal(p1-s1+s2+s, s)
	}
	s := max(s1, s2)
	return adjustDecimal(min(p1-s1, p2-s2)+s, s)
}

func inferArith(op string, args []types.Type) (types.Type, []types.Type, error) {
	name := op
	if len(args) != 2 {
		return types.Type{}, nil, arityError(name, len(args))
	}
	a, b := args[0], args[1]
	nullable := a.Nullable() || b.Nullable()
	if a.Kind == types.Null && b.Kind == types.Null {
		return types.IntT, []types.Type{types.IntT, types.IntT}, nil
	}
	if a.Kind == types.Null {
		a = b.WithNullable(true)
	}
	if b.Kind == types.Null {
		b = a.WithNullable(true)
	}
	keep := func(t, orig types.Type) types.Type { return t.WithNullable(orig.Nullable()) }
	if a.IsNumeric() && b.IsNumeric() {
		switch {
		case a.IsApprox() || b.IsApprox() || (a.IsInteger() && b.IsInteger()):
			r := mergeNumeric(a, b)
			return r.WithNullable(nullable), []types.Type{keep(r, args[0]), keep(r, args[1])}, nil
		default:
			da, db := intDecimal(a), intDecimal(b)
			r := DecimalArithType(op, da, db)
			// As in Flink the type is NOT NULL for NOT NULL operands even
			// though an overflowing DECIMAL result becomes NULL.
			return r.WithNullable(nullable), []types.Type{keep(da, args[0]), keep(db, args[1])}, nil
		}
	}
	// Date/time and interval arithmetic.
	switch op {
	case "+", "-":
		if a.IsInterval() && (b.IsTemporal()) && op == "+" {
			return b.WithNullable(nullable), nil, nil
		}
		if a.IsTemporal() && b.IsInterval() {
			if a.Kind == types.Time && b.Kind != types.IntervalDayTime {
				break
			}
			return a.WithNullable(nullable), nil, nil
		}
		if a.IsInterval() && b.Kind == a.Kind {
			r, _ := merge2(a, b)
			return r.WithNullable(nullable), nil, nil
		}
	case "*":
		if a.IsInterval() && b.IsNumeric() {
			return a.WithNullable(nullable), nil, nil
		}
		if b.IsInterval() && a.IsNumeric() {
			return b.WithNullable(nullable), nil, nil
		}
	case "/":
		if a.IsInterval() && b.IsNumeric() {
			return a.WithNullable(nullable), nil, nil
		}
	}
	return types.Type{}, nil, CallError(name, args)
}

func evalArith(op string, ct CallTypes, a, b any) (any, error) {
	ta, tb, r := ct.Args[0], ct.Args[1], ct.Result
	if ta.IsInterval() || tb.IsInterval() {
		return evalTemporalArith(op, ta, tb, r, a, b)
	}
	switch r.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		x, ok1 := toInt64(a)
		y, ok2 := toInt64(b)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("internal: %s on %T and %T", op, a, b)
		}
		var z int64
		switch op {
		case "+":
			z = x + y
		case "-":
			z = x - y
		case "*":
			z = x * y
		case "/":
			if y == 0 {
				return nil, ErrDivideByZero
			}
			if y == -1 {
				z = -x // avoids the MinInt64 / -1 trap; wraps like Java
			} else {
				z = x / y
			}
		case "MOD":
			if y == 0 {
				return nil, ErrDivideByZero
			}
			if y == -1 {
				z = 0
			} else {
				z = x % y
			}
		}
		return fromInt64(z, r.Kind), nil
	case types.Float, types.Double:
		x, _ := toFloat64(a, ta)
		y, _ := toFloat64(b, tb)
		var z float64
		if r.Kind == types.Float {
			xf, yf := float32(x), float32(y)
			var zf float32
			switch op {
			case "+":
				zf = xf + yf
			case "-":
				zf = xf - yf
			case "*":
				zf = xf * yf
			case "/":
				zf = xf / yf
			case "MOD":
				zf = float32(math.Mod(float64(xf), float64(yf)))
			}
			return zf, nil
		}
		switch op {
		case "+":
			z = x + y
		case "-":
			z = x - y
		case "*":
			z = x * y
		case "/":
			z = x / y
		case "MOD":
			z = math.Mod(x, y)
		}
		return z, nil
	case types.Decimal:
		return evalDecimalArith(op, ta, tb, r, a, b)
	}
	return nil, fmt.Errorf("internal: %s with result type %s", op, r)
}

func evalDecimalArith(op string, ta, tb, r types.Type, a, b any) (any, error) {
	x, ok1 := toBigDec(a, ta, ta.Scale)
	y, ok2 := toBigDec(b, tb, tb.Scale)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("internal: %s on %T and %T", op, a, b)
	}
	sa, sb := ta.Scale, tb.Scale
	var z *big.Int
	switch op {
	case "+", "-":
		m := max(sa, sb)
		x, y = rescaleBig(x, sa, m), rescaleBig(y, sb, m)
		if op == "+" {
			z = new(big.Int).Add(x, y)
		} else {
			z = new(big.Int).Sub(x, y)
		}
		z = rescaleBig(z, m, r.Scale)
	case "*":
		z = rescaleBig(new(big.Int).Mul(x, y), sa+sb, r.Scale)
	case "/":
		if y.Sign() == 0 {
			return nil, errDecimalDivZero
		}
		num := new(big.Int).Mul(x, pow10(r.Scale+sb))
		den := new(big.Int).Mul(y, pow10(sa))
		z = divHalfUp(num, den)
	case "MOD":
		if y.Sign() == 0 {
			return nil, errDecimalDivZero
		}
		m := max(sa, sb)
		x, y = rescaleBig(x, sa, m), rescaleBig(y, sb, m)
		z = rescaleBig(new(big.Int).Rem(x, y), m, r.Scale)
	}
	d, ok := bigToDec(z, r.Precision)
	if !ok {
		return nil, nil // Flink: decimal overflow yields NULL
	}
	return d, nil
}

func negate(v any) (any, error) {
	switch x := v.(type) {
	case int8:
		return -x, nil
	case int16:
		return -x, nil
	case int32:
		return -x, nil
	case int64:
		return -x, nil
	case float32:
		return -x, nil
	case float64:
		return -x, nil
	case decimal128.Num:
		return x.Negate(), nil
	}
	return nil, fmt.Errorf("internal: cannot negate %T", v)
}

// ---- comparison ----

func inferCompare(op string, args []types.Type) (types.Type, []types.Type, error) {
	if len(args) != 2 {
		return types.Type{}, nil, arityError(op, len(args))
	}
	a, b := args[0], args[1]
	nullable := a.Nullable() || b.Nullable()
	t, ok := CommonType(a, b)
	if !ok {
		// A string compares with a date/time by casting the string to the
		// other side's type (dt > '2024-01-01'); a string and a number do
		// not compare, as in Flink (no implicit coercion).
		switch {
		case a.IsString() && b.IsTemporal():
			t, ok = b, true
		case b.IsString() && a.IsTemporal():
			t, ok = a, true
		}
	}
	if !ok {
		return types.Type{}, nil, CallError(op, args)
	}
	if t.Kind == types.Null {
		t = types.BooleanT
	}
	if op != "=" && op != "<>" && !strings.Contains(op, "DISTINCT") && (t.Kind == types.Map || t.Kind == types.Row) {
		return types.Type{}, nil, CallError(op, args)
	}
	return types.BooleanT.WithNullable(nullable), castsTo(t, args), nil
}

// evalCompare compares two non-NULL values of type t (floats with IEEE
// semantics: NaN compares false except with <>).
func evalCompare(op string, t types.Type, a, b any) bool {
	if t.IsApprox() {
		x, _ := toFloat64(a, t)
		y, _ := toFloat64(b, t)
		switch op {
		case "=":
			return x == y
		case "<>":
			return x != y
		case "<":
			return x < y
		case "<=":
			return x <= y
		case ">":
			return x > y
		case ">=":
			return x >= y
		}
	}
	c := CompareValues(a, b, t)
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

func evalAnd(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
	sawNull := false
	for _, a := range args {
		if a == nil {
			sawNull = true
			continue
		}
		if !a.(bool) {
			return false, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return true, nil
}

func evalOr(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
	sawNull := false
	for _, a := range args {
		if a == nil {
			sawNull = true
			continue
		}
		if a.(bool) {
			return true, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return false, nil
}

func inferIn(args []types.Type) (types.Type, []types.Type, error) {
	if len(args) < 2 {
		return types.Type{}, nil, arityError("IN", len(args))
	}
	t, ok := CommonType(args...)
	if !ok {
		return types.Type{}, nil, CallError("IN", args)
	}
	return types.BooleanT.WithNullable(anyNullable(args)), castsTo(t, args), nil
}

func evalIn(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
	if args[0] == nil {
		return nil, nil
	}
	sawNull := false
	for _, it := range args[1:] {
		if it == nil {
			sawNull = true
			continue
		}
		if evalCompare("=", ct.Args[0], args[0], it) {
			return true, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return false, nil
}

func inferConcat(args []types.Type) (types.Type, []types.Type, error) {
	if len(args) < 1 {
		return types.Type{}, nil, arityError("CONCAT", 0)
	}
	allBin := true
	for _, a := range args {
		if !a.IsBinary() {
			allBin = false
		}
	}
	if allBin {
		return types.BytesT.WithNullable(anyNullable(args)), nil, nil
	}
	total := 0
	allChar := true
	cast := make([]types.Type, len(args))
	for i, a := range args {
		switch {
		case a.IsString():
			cast[i] = a
			total += a.Precision
			allChar = allChar && a.Kind == types.Char
		case a.Kind == types.Null:
			cast[i] = types.StringT
			total = types.MaxLength
		case a.Kind == types.Array || a.Kind == types.Map || a.Kind == types.Row || a.IsBinary():
			return types.Type{}, nil, CallError("CONCAT", args)
		default:
			cast[i] = types.StringT.WithNullable(a.Nullable())
			total = types.MaxLength
		}
		if total > types.MaxLength {
			total = types.MaxLength
		}
	}
	if allChar && total < types.MaxLength {
		// 'ab' || 'c' is CHAR(3), as in Flink (Calcite's DYADIC_STRING_SUM)
		return types.CharOf(total).WithNullable(anyNullable(args)), cast, nil
	}
	return types.VarCharOf(total).WithNullable(anyNullable(args)), cast, nil
}

// ---- LIKE ----

// LikeMatcher matches strings against a compiled SQL LIKE pattern.
type LikeMatcher struct {
	kind   int // 0 exact, 1 prefix, 2 suffix, 3 contains, 4 general
	lit    string
	tokens []likeToken
}

type likeToken struct {
	kind int // 0 literal, 1 any one char (_), 2 any sequence (%)
	lit  string
}

// CompileLike compiles a LIKE pattern with an optional escape character
// (empty for none). It fails like Flink for an escape that is not one
// character or an escape not followed by %, _ or itself.
func CompileLike(pattern, escape string) (*LikeMatcher, error) {
	var esc rune = -1
	if escape != "" {
		rs := []rune(escape)
		if len(rs) != 1 {
			return nil, fmt.Errorf("Invalid escape character '%s'", escape)
		}
		esc = rs[0]
	}
	var toks []likeToken
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, likeToken{kind: 0, lit: lit.String()})
			lit.Reset()
		}
	}
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == esc:
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("Invalid escape sequence '%s', %d", pattern, i)
			}
			n := rs[i+1]
			if n != '%' && n != '_' && n != esc {
				return nil, fmt.Errorf("Invalid escape sequence '%s', %d", pattern, i)
			}
			lit.WriteRune(n)
			i++
		case c == '%':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != 2 {
				toks = append(toks, likeToken{kind: 2})
			}
		case c == '_':
			flush()
			toks = append(toks, likeToken{kind: 1})
		default:
			lit.WriteRune(c)
		}
	}
	flush()
	m := &LikeMatcher{kind: 4, tokens: toks}
	switch {
	case len(toks) == 0:
		m.kind, m.lit = 0, ""
	case len(toks) == 1 && toks[0].kind == 0:
		m.kind, m.lit = 0, toks[0].lit
	case len(toks) == 1 && toks[0].kind == 2:
		m.kind, m.lit = 1, ""
	case len(toks) == 2 && toks[0].kind == 0 && toks[1].kind == 2:
		m.kind, m.lit = 1, toks[0].lit
	case len(toks) == 2 && toks[0].kind == 2 && toks[1].kind == 0:
		m.kind, m.lit = 2, toks[1].lit
	case len(toks) == 3 && toks[0].kind == 2 && toks[1].kind == 0 && toks[2].kind == 2:
		m.kind, m.lit = 3, toks[1].lit
	}
	return m, nil
}

// Match reports whether s matches the pattern.
func (m *LikeMatcher) Match(s string) bool {
	switch m.kind {
	case 0:
		return s == m.lit
	case 1:
		return strings.HasPrefix(s, m.lit)
	case 2:
		return strings.HasSuffix(s, m.lit)
	case 3:
		return strings.Contains(s, m.lit)
	}
	return likeMatch(m.tokens, s)
}

// likeMatch backtracks over the tokens; % tokens are collapsed, so the
// worst case is polynomial.
func likeMatch(toks []likeToken, s string) bool {
	for len(toks) > 0 {
		t := toks[0]
		switch t.kind {
		case 0:
			if !strings.HasPrefix(s, t.lit) {
				return false
			}
			s = s[len(t.lit):]
		case 1:
			if s == "" {
				return false
			}
			_, size := decodeRune(s)
			s = s[size:]
		case 2:
			rest := toks[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(s); {
				if likeMatch(rest, s[i:]) {
					return true
				}
				if i == len(s) {
					break
				}
				_, size := decodeRune(s[i:])
				i += size
			}
			return false
		}
		toks = toks[1:]
	}
	return s == ""
}

var likeCache = newLRU[string, *LikeMatcher](256)

func evalLike(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
	s, p := args[0].(string), args[1].(string)
	esc := ""
	if len(args) > 2 {
		esc = args[2].(string)
	}
	key := esc + "\x00" + p
	m, ok := likeCache.get(key)
	if !ok {
		var err error
		m, err = CompileLike(p, esc)
		if err != nil {
			return nil, err
		}
		likeCache.put(key, m)
	}
	return m.Match(s), nil
}

// ---- constructors and access ----

func registerConstructors(r *Registry) {
	r.Register(&Definition{Name: "$FIELD",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 || args[0].Kind != types.Row || len(args[0].Fields) == 0 {
				return types.Type{}, nil, CallError("$FIELD", args)
			}
			f := args[0].Fields[0].Type
			return f.WithNullable(f.Nullable() || args[0].Nullable()), nil, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			if args[0] == nil || args[1] == nil {
				return nil, nil
			}
			row := args[0].([]any)
			i, _ := toInt64(args[1])
			if i < 0 || int(i) >= len(row) {
				return nil, fmt.Errorf("internal: field index %d out of range", i)
			}
			return row[i], nil
		},
		Doc: Doc{Summary: "Accesses a field of a ROW value.", Args: "row.field", Example: "ROW(1, 'a').EXPR$1 → 'a'"}})

	r.Register(&Definition{Name: "$ITEM",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 {
				return types.Type{}, nil, arityError("ITEM", len(args))
			}
			switch args[0].Kind {
			case types.Array:
				if !args[1].IsInteger() && args[1].Kind != types.Null {
					return types.Type{}, nil, CallError("ITEM", args)
				}
				return args[0].Elem.WithNullable(true), []types.Type{args[0], types.IntT.WithNullable(args[1].Nullable())}, nil
			case types.Map:
				k, ok := CommonType(*args[0].Elem, args[1])
				if !ok {
					return types.Type{}, nil, CallError("ITEM", args)
				}
				_ = k
				return args[0].Value.WithNullable(true), []types.Type{args[0], args[0].Elem.WithNullable(args[1].Nullable())}, nil
			}
			return types.Type{}, nil, CallError("ITEM", args)
		},
		NullOnNull: true,
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			switch c := args[0].(type) {
			case []any:
				i, _ := toInt64(args[1])
				if i < 1 || i > int64(len(c)) {
					return nil, nil
				}
				return c[i-1], nil
			case *types.MapValue:
				for j, k := range c.Keys {
					if k != nil && CompareValues(k, args[1], *ct.Args[0].Elem) == 0 {
						return c.Values[j], nil
					}
				}
				return nil, nil
			}
			return nil, fmt.Errorf("internal: $ITEM on %T", args[0])
		},
		Doc: Doc{Summary: "Element of an array (1-based) or value of a map key; NULL if absent.", Args: "array[index] / map[key]", Example: "ARRAY[1, 2][2] → 2"}})

	r.Register(&Definition{Name: "$ROW",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			fs := make([]types.Field, len(args))
			for i, a := range args {
				fs[i] = types.Field{Name: "EXPR$" + strconv.Itoa(i), Type: a}
			}
			return types.RowOf(fs...).WithNullable(false), nil, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			return append([]any(nil), args...), nil
		},
		Doc: Doc{Summary: "Builds a ROW value.", Args: "ROW(value1, value2, …)", Example: "ROW(1, 'a')"}})

	r.Register(&Definition{Name: "$ARRAY",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) == 0 {
				return types.Type{}, nil, fmt.Errorf("Require at least 1 argument for ARRAY")
			}
			t, ok := CommonType(args...)
			if !ok {
				return types.Type{}, nil, fmt.Errorf("Parameters must be of the same type")
			}
			return types.ArrayOf(t).WithNullable(false), castsTo(t, args), nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			return append([]any(nil), args...), nil
		},
		Doc: Doc{Summary: "Builds an ARRAY value.", Args: "ARRAY[value1, value2, …]", Example: "ARRAY[1, 2]"}})

	r.Register(&Definition{Name: "$MAP",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) == 0 || len(args)%2 != 0 {
				return types.Type{}, nil, fmt.Errorf("Invalid number of arguments to function 'MAP'. Was expecting an even number of arguments")
			}
			var ks, vs []types.Type
			for i := 0; i < len(args); i += 2 {
				ks = append(ks, args[i])
				vs = append(vs, args[i+1])
			}
			kt, ok1 := CommonType(ks...)
			vt, ok2 := CommonType(vs...)
			if !ok1 || !ok2 {
				return types.Type{}, nil, fmt.Errorf("Parameters must be of the same type")
			}
			cast := make([]types.Type, len(args))
			for i := range args {
				if i%2 == 0 {
					cast[i] = kt.WithNullable(args[i].Nullable())
				} else {
					cast[i] = vt.WithNullable(args[i].Nullable())
				}
			}
			return types.MapOf(kt, vt).WithNullable(false), cast, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) {
			m := &types.MapValue{}
			for i := 0; i+1 < len(args); i += 2 {
				replaced := false
				for j, k := range m.Keys {
					if CompareValues(k, args[i], *ct.Result.Elem) == 0 {
						m.Values[j] = args[i+1]
						replaced = true
					}
				}
				if !replaced {
					m.Keys = append(m.Keys, args[i])
					m.Values = append(m.Values, args[i+1])
				}
			}
			return m, nil
		},
		Doc: Doc{Summary: "Builds a MAP value; a repeated key keeps the last value.", Args: "MAP[key1, value1, …]", Example: "MAP['a', 1]"}})
}
