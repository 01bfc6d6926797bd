package validate

import (
	"math"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// refineCallType fixes result types a function's Infer cannot (or does not)
// give as Flink does:
//
//   - ROUND/TRUNCATE(DECIMAL(p, s), r) with a literal r is Flink's
//     LogicalTypeMerging.findRoundDecimalType(p, s, r) (Infer sees only
//     types, not the value of r).
//   - MOD(a, b) (and %) of two integers, or of two DECIMALs of scale 0, has
//     the type of b (Calcite's NULLABLE_MOD with FlinkTypeSystem): the call
//     computes in the common type and is cast to b's type, which is
//     lossless because |MOD(a, b)| < |b|.
//
// orig are the argument types before the implicit casts Infer asked for.
func refineCallType(c *logical.Call, orig []types.Type) logical.Expr {
	switch c.Name {
	case "MOD":
		if len(c.Args) != 2 || len(orig) != 2 {
			return c
		}
		a, b := orig[0], orig[1]
		exact0 := func(t types.Type) bool { return t.IsInteger() || (t.Kind == types.Decimal && t.Scale == 0) }
		if !exact0(a) || !exact0(b) || (a.IsInteger() && b.IsInteger() && b.Kind == c.T.Kind) || b.Equal(c.T.WithNullable(b.Nullable())) {
			return c
		}
		return &logical.Cast{Arg: c, T: b.WithNullable(c.T.Nullable())}
	case "ROUND", "TRUNCATE":
		if len(c.Args) != 2 || c.Args[0].Type().Kind != types.Decimal || c.T.Kind != types.Decimal {
			return c
		}
		r, ok := literalInt(c.Args[1])
		if !ok {
			return c
		}
		c.T = function.RoundDecimalType(c.Args[0].Type(), r).WithNullable(c.T.Nullable())
	}
	return c
}

// literalInt returns the value of an integer literal (possibly under an
// implicit cast).
func literalInt(e logical.Expr) (int, bool) {
	if c, ok := e.(*logical.Cast); ok && !c.Try && c.T.IsInteger() {
		e = c.Arg
	}
	l, ok := e.(*logical.Literal)
	if !ok || l.Value == nil || !l.T.IsInteger() {
		return 0, false
	}
	var v int64
	switch x := l.Value.(type) {
	case int8:
		v = int64(x)
	case int16:
		v = int64(x)
	case int32:
		v = int64(x)
	case int64:
		v = x
	default:
		return 0, false
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}
