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

// EvalError is a runtime error of a function or cast that knows the Java
// exception class Flink reports for it (the facade prints
// "<class>: <message>").
type EvalError struct {
	Class string
	Msg   string
}

// Error returns the message.
func (e *EvalError) Error() string { return e.Msg }

// JavaClass returns the Java exception class.
func (e *EvalError) JavaClass() string { return e.Class }

// ErrDivideByZero is returned for an integer division or modulo by zero, as
// Java's ArithmeticException("/ by zero"). Test with errors.Is.
var ErrDivideByZero error = &EvalError{Class: "java.lang.ArithmeticException", Msg: "/ by zero"}

// argClass checks one argument type and returns the type it should be cast
// to (the same type for no cast).
type argClass func(t types.Type) (types.Type, bool)

func aAny(t types.Type) (types.Type, bool) { return t, true }

func aStr(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.StringT, true
	}
	return t, t.IsString()
}

func aBool(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.BooleanT, true
	}
	return t, t.Kind == types.Boolean
}

func aInt(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.IntT, true
	}
	return t, t.IsInteger()
}

func aNum(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.DoubleT, true
	}
	return t, t.IsNumeric()
}

// aDouble accepts any numeric argument and asks for a cast to DOUBLE.
func aDouble(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null || t.IsNumeric() {
		return types.DoubleT.WithNullable(t.Nullable()), true
	}
	return t, false
}

// aBigInt accepts any integer argument and asks for a cast to BIGINT.
func aBigInt(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null || t.IsInteger() {
		return types.BigIntT.WithNullable(t.Nullable()), true
	}
	return t, false
}

func aDateTime(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.TimestampOf(3), true
	}
	return t, t.Kind == types.Date || t.Kind == types.Timestamp || t.Kind == types.TimestampLTZ || t.Kind == types.Time
}

func aStrOrNum(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.StringT, true
	}
	return t, t.IsString() || t.IsNumeric()
}

// aStrLit is a STRING argument that must be a literal at the call site (a
// unit or a mode); Infer can only check its type.
var aStrLit = aStr

// spec describes a function signature for define.
type spec struct {
	name       string
	minArgs    int
	maxArgs    int // -1: variadic
	args       []argClass
	result     func(args []types.Type) types.Type
	mayBeNull  bool // the result can be NULL even with non-NULL arguments
	notNull    bool // the result is never NULL
	eval       EvalFunc
	nullOnNull bool
	nondet     bool
	doc        Doc
}

func (s spec) infer(args []types.Type) (types.Type, []types.Type, error) {
	if len(args) < s.minArgs || (s.maxArgs >= 0 && len(args) > s.maxArgs) {
		return types.Type{}, nil, arityError(s.name, len(args))
	}
	cast := make([]types.Type, len(args))
	nullable := s.mayBeNull
	for i, a := range args {
		c := aAny
		if len(s.args) > 0 {
			if i < len(s.args) {
				c = s.args[i]
			} else {
				c = s.args[len(s.args)-1]
			}
		}
		ct, ok := c(a)
		if !ok {
			return types.Type{}, nil, CallError(s.name, args)
		}
		cast[i] = ct.WithNullable(a.Nullable())
		if a.Nullable() {
			nullable = true
		}
	}
	r := s.result(cast)
	if s.notNull {
		nullable = false
	}
	return r.WithNullable(nullable), cast, nil
}

func arityError(name string, n int) error {
	return fmt.Errorf("Invalid number of arguments to function '%s'. Was expecting a different number of arguments, got %d", name, n)
}

func (s spec) def() *Definition {
	return &Definition{
		Name:             s.name,
		Kind:             Scalar,
		Infer:            s.infer,
		Eval:             s.eval,
		NullOnNull:       s.nullOnNull,
		Nondeterministic: s.nondet,
		Doc:              s.doc,
	}
}

func fixedT(t types.Type) func([]types.Type) types.Type {
	return func([]types.Type) types.Type { return t }
}

func firstT(args []types.Type) types.Type { return args[0] }

// anyNullable reports whether any type is nullable.
func anyNullable(ts []types.Type) bool {
	for _, t := range ts {
		if t.Nullable() {
			return true
		}
	}
	return false
}

// ---- value conversions ----

// toInt64 converts an integer value of any width.
func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

// toFloat64 converts a numeric value of type t.
func toFloat64(v any, t types.Type) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case decimal128.Num:
		return decToFloat(x, t.Scale), true
	}
	i, ok := toInt64(v)
	return float64(i), ok
}

func decToFloat(n decimal128.Num, scale int) float64 {
	f, _ := new(big.Float).SetPrec(128).Quo(new(big.Float).SetInt(n.BigInt()), new(big.Float).SetInt(pow10(scale))).Float64()
	return f
}

var pow10Cache = func() []*big.Int {
	out := make([]*big.Int, 80)
	v := big.NewInt(1)
	for i := range out {
		out[i] = new(big.Int).Set(v)
		v.Mul(v, big.NewInt(10))
	}
	return out
}()

func pow10(n int) *big.Int {
	if n >= 0 && n < len(pow10Cache) {
		return pow10Cache[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// toBigDec returns the unscaled big integer of a numeric value at the given
// scale (integers are scaled up; decimals rescaled HALF_UP).
func toBigDec(v any, t types.Type, scale int) (*big.Int, bool) {
	switch x := v.(type) {
	case decimal128.Num:
		return rescaleBig(x.BigInt(), t.Scale, scale), true
	case float64, float32:
		f, _ := toFloat64(v, t)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		// Like Java's BigDecimal.valueOf(double): start from the shortest
		// decimal representation, then round HALF_UP.
		bits := 64
		if _, ok := v.(float32); ok {
			bits = 32
		}
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, bits))
		if !ok {
			return nil, false
		}
		r.Mul(r, new(big.Rat).SetInt(pow10(scale)))
		return divHalfUp(r.Num(), r.Denom()), true
	}
	i, ok := toInt64(v)
	if !ok {
		return nil, false
	}
	return new(big.Int).Mul(big.NewInt(i), pow10(scale)), true
}

// rescaleBig changes the scale of an unscaled value, rounding HALF_UP.
func rescaleBig(b *big.Int, from, to int) *big.Int {
	switch {
	case from == to:
		return new(big.Int).Set(b)
	case to > from:
		return new(big.Int).Mul(b, pow10(to-from))
	}
	return divHalfUp(b, pow10(from-to))
}

// divHalfUp divides rounding HALF_UP (away from zero on ties).
func divHalfUp(a, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(a, d, new(big.Int))
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		if (a.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// bigToDec converts an unscaled value to a DECIMAL of precision p; ok is
// false on overflow (Flink yields NULL).
func bigToDec(b *big.Int, p int) (decimal128.Num, bool) {
	if new(big.Int).Abs(b).Cmp(pow10(p)) >= 0 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(b), true
}

// decFromAny converts any numeric value of type from to DECIMAL(to); ok
// false on overflow or NaN.
func decFromAny(v any, from, to types.Type) (decimal128.Num, bool) {
	b, ok := toBigDec(v, from, to.Scale)
	if !ok {
		return decimal128.Num{}, false
	}
	return bigToDec(b, to.Precision)
}

// fromInt64 returns x in the Go representation of integer kind k
// (wrapping like a Java narrowing cast).
func fromInt64(x int64, k types.Kind) any {
	switch k {
	case types.TinyInt:
		return int8(x)
	case types.SmallInt:
		return int16(x)
	case types.Int:
		return int32(x)
	}
	return x
}

// javaF2L converts a double to long like Java's (long) cast: NaN → 0,
// saturating at the bounds.
func javaF2L(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// javaF2I converts a double to int like Java's (int) cast.
func javaF2I(f float64) int32 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

// CompareValues orders two non-NULL canonical values of type t: -1, 0 or 1.
// A nil sorts before any value. Strings compare by bytes (code points),
// numbers numerically (NaN greatest, as Java's Double.compare), BOOLEAN
// false < true, ARRAY and ROW lexicographically. Mixed numeric Go types are
// compared numerically.
func CompareValues(a, b any, t types.Type) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return strings.Compare(string(x), string(y))
		}
	case decimal128.Num:
		if y, ok := b.(decimal128.Num); ok {
			return x.Cmp(y)
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				et := t
				if t.Kind == types.Array && t.Elem != nil {
					et = *t.Elem
				} else if t.Kind == types.Row && i < len(t.Fields) {
					et = t.Fields[i].Type
				}
				if c := CompareValues(x[i], y[i], et); c != 0 {
					return c
				}
			}
			return cmpInt(int64(len(x)), int64(len(y)))
		}
	case *types.MapValue:
		if y, ok := b.(*types.MapValue); ok {
			if mapEqual(x, y, t) {
				return 0
			}
			return cmpInt(int64(len(x.Keys)), int64(len(y.Keys))) | 1
		}
	case float64, float32:
		f, _ := toFloat64(a, t)
		g, _ := toFloat64(b, t)
		return cmpFloat(f, g)
	}
	if i, ok := toInt64(a); ok {
		if j, ok := toInt64(b); ok {
			return cmpInt(i, j)
		}
	}
	f, _ := toFloat64(a, t)
	g, _ := toFloat64(b, t)
	return cmpFloat(f, g)
}

func mapEqual(x, y *types.MapValue, t types.Type) bool {
	if len(x.Keys) != len(y.Keys) {
		return false
	}
	kt, vt := types.Type{}, types.Type{}
	if t.Elem != nil {
		kt = *t.Elem
	}
	if t.Value != nil {
		vt = *t.Value
	}
	for i, k := range x.Keys {
		found := false
		for j, k2 := range y.Keys {
			if CompareValues(k, k2, kt) == 0 {
				if CompareValues(x.Values[i], y.Values[j], vt) != 0 {
					return false
				}
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat is Java's Double.compare, except that -0.0 equals 0.0 as SQL
// requires.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// maxStringLen caps results built by REPEAT, LPAD, RPAD and friends.
const maxStringLen = 1 << 27

func lengthError(name string) error {
	return fmt.Errorf("%s: result string too long (more than %d bytes)", name, maxStringLen)
}

// errDecimalDivZero is Java's BigDecimal division by zero.
var errDecimalDivZero error = &EvalError{Class: "java.lang.ArithmeticException", Msg: "Division by zero"}
