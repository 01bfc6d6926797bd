package ops

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// matchAggregate computes an aggregate of a MATCH_RECOGNIZE expression
// over the non-NULL values of one variable's rows, with Flink's result
// types (function.AggregateResultType): integer SUM and AVG keep the
// argument's type (AVG truncates), DECIMAL AVG has scale max(s, 6).
func matchAggregate(a logical.MatchAccess, vals []any) (any, error) {
	if a.Agg == "COUNT" {
		return int64(len(vals)), nil
	}
	if len(vals) == 0 {
		return nil, nil
	}
	argT := a.Arg.Type()
	switch a.Agg {
	case "MIN", "MAX":
		best := vals[0]
		for _, v := range vals[1:] {
			c := function.CompareValues(v, best, argT)
			if (a.Agg == "MIN" && c < 0) || (a.Agg == "MAX" && c > 0) {
				best = v
			}
		}
		return best, nil
	case "SUM", "AVG":
	default:
		return nil, fmt.Errorf("not supported yet: aggregate function %s in MATCH_RECOGNIZE", a.Agg)
	}
	n := int64(len(vals))
	switch {
	case argT.IsInteger():
		var s int64
		for _, v := range vals {
			s += toInt64(v)
		}
		if a.Agg == "AVG" {
			s /= n
		}
		return fromInt64(s, a.T), nil
	case argT.IsApprox():
		var s float64
		for _, v := range vals {
			switch x := v.(type) {
			case float32:
				s += float64(x)
			case float64:
				s += x
			}
		}
		if a.Agg == "AVG" {
			s /= float64(n)
		}
		if a.T.Kind == types.Float {
			return float32(s), nil
		}
		return s, nil
	case argT.Kind == types.Decimal:
		sum := new(big.Int)
		for _, v := range vals {
			d := v.(decimal128.Num)
			sum.Add(sum, d.BigInt())
		}
		if a.Agg == "SUM" {
			return decimal128.FromBigInt(sum), nil
		}
		// rescale to the result's scale, then divide rounding half up
		num := new(big.Int).Mul(sum, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.T.Scale-argT.Scale)), nil))
		den := big.NewInt(n)
		q, r := new(big.Int).QuoRem(num, den, new(big.Int))
		if new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2)).Cmp(den) >= 0 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		return decimal128.FromBigInt(q), nil
	}
	return nil, fmt.Errorf("not supported yet: %s of %s in MATCH_RECOGNIZE", a.Agg, argT)
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return 0
}

// fromInt64 converts to the canonical value of integer type t (wrapping
// as Java's arithmetic does).
func fromInt64(x int64, t types.Type) any {
	switch t.Kind {
	case types.TinyInt:
		return int8(x)
	case types.SmallInt:
		return int16(x)
	case types.Int:
		return int32(x)
	}
	return x
}
