package function

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

func registerMath(r *Registry) {
	dbl1 := func(name, summary, example string, f func(float64) float64) {
		r.Register(spec{name: name, minArgs: 1, maxArgs: 1, args: []argClass{aDouble}, result: fixedT(types.DoubleT), nullOnNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) { return f(a[0].(float64)), nil },
			doc:  Doc{Summary: summary, Args: "numeric", Example: example}}.def())
	}
	dbl1("SQRT", "Square root.", "SQRT(4) → 2.0", math.Sqrt)
	dbl1("EXP", "e raised to the power of the argument.", "EXP(0) → 1.0", math.Exp)
	dbl1("LN", "Natural logarithm.", "LN(1) → 0.0", math.Log)
	dbl1("LOG10", "Base-10 logarithm.", "LOG10(100) → 2.0", math.Log10)
	dbl1("LOG2", "Base-2 logarithm.", "LOG2(8) → 3.0", math.Log2)
	dbl1("SIN", "Sine.", "SIN(0) → 0.0", math.Sin)
	dbl1("COS", "Cosine.", "COS(0) → 1.0", math.Cos)
	dbl1("TAN", "Tangent.", "TAN(0) → 0.0", math.Tan)
	dbl1("COT", "Cotangent.", "COT(1)", func(x float64) float64 { return 1 / math.Tan(x) })
	dbl1("ASIN", "Arc sine.", "ASIN(0) → 0.0", math.Asin)
	dbl1("ACOS", "Arc cosine.", "ACOS(1) → 0.0", math.Acos)
	dbl1("ATAN", "Arc tangent.", "ATAN(0) → 0.0", math.Atan)
	dbl1("SINH", "Hyperbolic sine.", "SINH(0) → 0.0", math.Sinh)
	dbl1("COSH", "Hyperbolic cosine.", "COSH(0) → 1.0", math.Cosh)
	dbl1("TANH", "Hyperbolic tangent.", "TANH(0) → 0.0", math.Tanh)
	dbl1("DEGREES", "Converts radians to degrees.", "DEGREES(PI())", func(x float64) float64 { return x * 180 / math.Pi })
	dbl1("RADIANS", "Converts degrees to radians.", "RADIANS(180)", func(x float64) float64 { return x * math.Pi / 180 })
	r.Register(spec{name: "ATAN2", minArgs: 2, maxArgs: 2, args: []argClass{aDouble}, result: fixedT(types.DoubleT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return math.Atan2(a[0].(float64), a[1].(float64)), nil
		},
		doc: Doc{Summary: "Arc tangent of y/x.", Args: "y, x", Example: "ATAN2(1, 1)"}}.def())
	for _, name := range []string{"POWER", "POW"} {
		r.Register(spec{name: name, minArgs: 2, maxArgs: 2, args: []argClass{aDouble}, result: fixedT(types.DoubleT), nullOnNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				return math.Pow(a[0].(float64), a[1].(float64)), nil
			},
			doc: Doc{Summary: "x raised to the power of y.", Args: "x, y", Example: name + "(2, 3) → 8.0"}}.def())
	}
	r.Register(spec{name: "LOG", minArgs: 1, maxArgs: 2, args: []argClass{aDouble}, result: fixedT(types.DoubleT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if len(a) == 1 {
				return math.Log(a[0].(float64)), nil
			}
			return math.Log(a[1].(float64)) / math.Log(a[0].(float64)), nil
		},
		doc: Doc{Summary: "LOG(x) is the natural logarithm; LOG(base, x) the logarithm to a base.", Args: "[base,] x", Example: "LOG(2, 8) → 3.0"}}.def())
	constFn := func(name, summary string, v float64) {
		r.Register(spec{name: name, minArgs: 0, maxArgs: 0, result: fixedT(types.DoubleT), notNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) { return v, nil },
			doc:  Doc{Summary: summary, Example: name + "()"}}.def())
	}
	constFn("PI", "The constant π.", math.Pi)
	constFn("E", "The constant e.", math.E)
	r.Register(spec{name: "RAND", minArgs: 0, maxArgs: 1, args: []argClass{aInt}, result: fixedT(types.DoubleT), notNull: true, nondet: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if len(a) == 1 && a[0] != nil {
				return seededRand(argInt(a[0])).Float64(), nil
			}
			return rand.Float64(), nil
		},
		doc: Doc{Summary: "A pseudo-random DOUBLE in [0, 1); with a seed the value is repeatable.", Args: "[seed]", Example: "RAND()"}}.def())
	r.Register(spec{name: "RAND_INTEGER", minArgs: 1, maxArgs: 2, args: []argClass{aInt}, result: fixedT(types.IntT), nullOnNull: true, nondet: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			bound := argInt(a[len(a)-1])
			if bound <= 0 {
				return nil, fmt.Errorf("bound must be positive")
			}
			if len(a) == 2 {
				return int32(seededRand(argInt(a[0])).Int64N(bound)), nil
			}
			return int32(rand.Int64N(bound)), nil
		},
		doc: Doc{Summary: "A pseudo-random INT in [0, bound).", Args: "[seed,] bound", Example: "RAND_INTEGER(10)"}}.def())

	r.Register(spec{name: "ABS", minArgs: 1, maxArgs: 1, args: []argClass{aNum}, result: firstT, nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			switch x := a[0].(type) {
			case int8:
				if x < 0 {
					return -x, nil
				}
				return x, nil
			case int16:
				if x < 0 {
					return -x, nil
				}
				return x, nil
			case int32:
				if x < 0 {
					return -x, nil
				}
				return x, nil
			case int64:
				if x < 0 {
					return -x, nil
				}
				return x, nil
			case float32:
				return float32(math.Abs(float64(x))), nil
			case float64:
				return math.Abs(x), nil
			case decimal128.Num:
				return x.Abs(), nil
			}
			return nil, fmt.Errorf("internal: ABS of %T", a[0])
		},
		doc: Doc{Summary: "Absolute value.", Args: "numeric", Example: "ABS(-2) → 2"}}.def())
	r.Register(spec{name: "SIGN", minArgs: 1, maxArgs: 1, args: []argClass{aNum}, result: firstT, nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			t := ct.Args[0]
			switch x := a[0].(type) {
			case float32:
				return float32(signF(float64(x))), nil
			case float64:
				return signF(x), nil
			case decimal128.Num:
				return decimal128.FromBigInt(new(big.Int).Mul(big.NewInt(int64(x.Sign())), pow10(t.Scale))), nil
			}
			i, _ := toInt64(a[0])
			return fromInt64(int64(cmpInt(i, 0)), t.Kind), nil
		},
		doc: Doc{Summary: "-1, 0 or 1 according to the sign.", Args: "numeric", Example: "SIGN(-5) → -1"}}.def())

	roundLike := func(name string, truncate bool) {
		r.Register(&Definition{Name: name, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) < 1 || len(args) > 2 {
					return types.Type{}, nil, arityError(name, len(args))
				}
				t := args[0]
				if t.Kind == types.Null {
					t = types.DoubleT
				}
				if !t.IsNumeric() || (len(args) == 2 && !args[1].IsInteger() && args[1].Kind != types.Null) {
					return types.Type{}, nil, CallError(name, args)
				}
				cast := []types.Type{t.WithNullable(args[0].Nullable())}
				if len(args) == 2 {
					cast = append(cast, types.IntT.WithNullable(args[1].Nullable()))
				}
				res := t
				if t.Kind == types.Decimal && len(args) == 1 {
					res = RoundDecimalType(t, 0)
				}
				return res.WithNullable(anyNullable(args)), cast, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				d := int64(0)
				if len(a) > 1 {
					d = argInt(a[1])
				}
				return roundValue(a[0], ct.Args[0], ct.Result, d, truncate)
			},
			Doc: Doc{Summary: map[bool]string{false: "Rounds to d decimal places (default 0), half up.", true: "Truncates to d decimal places (default 0)."}[truncate], Args: "numeric [, d]", Example: name + "(1.25, 1)"}})
	}
	roundLike("ROUND", false)
	roundLike("TRUNCATE", true)

	floorCeil := func(name string, ceil bool) {
		r.Register(&Definition{Name: name, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) == 2 {
					return inferFloorTime(name, args)
				}
				if len(args) != 1 {
					return types.Type{}, nil, arityError(name, len(args))
				}
				t := args[0]
				if t.Kind == types.Null {
					t = types.DoubleT
				}
				if !t.IsNumeric() {
					return types.Type{}, nil, CallError(name, args)
				}
				res := t
				if t.Kind == types.Decimal && t.Scale > 0 {
					res = types.DecimalOf(min(types.MaxDecimalPrecision, t.Precision-t.Scale+1), 0)
				}
				return res.WithNullable(args[0].Nullable()), []types.Type{t.WithNullable(args[0].Nullable())}, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				if len(a) == 2 {
					return floorTime(ctx, a[0], ct.Args[0], a[1], ceil)
				}
				switch x := a[0].(type) {
				case float64:
					if ceil {
						return math.Ceil(x), nil
					}
					return math.Floor(x), nil
				case float32:
					if ceil {
						return float32(math.Ceil(float64(x))), nil
					}
					return float32(math.Floor(float64(x))), nil
				case decimal128.Num:
					s := ct.Args[0].Scale
					b := x.BigInt()
					q, m := new(big.Int).DivMod(b, pow10(s), new(big.Int)) // floor division (m >= 0)
					if ceil && m.Sign() != 0 {
						q.Add(q, big.NewInt(1))
					}
					q = rescaleBig(q, 0, ct.Result.Scale)
					d, ok := bigToDec(q, ct.Result.Precision)
					if !ok {
						return nil, nil
					}
					return d, nil
				}
				return a[0], nil
			},
			Doc: Doc{Summary: map[bool]string{false: "Rounds down to an integral value.", true: "Rounds up to an integral value."}[ceil], Args: "numeric", Example: name + "(1.5)"}})
	}
	floorCeil("FLOOR", false)
	floorCeil("CEIL", true)
	floorCeil("CEILING", true)
}

// RoundDecimalType is Flink's result type of ROUND/TRUNCATE(DECIMAL(p, s),
// r) for a literal r: unchanged when r >= s, DECIMAL(1+p-s, 0) when r < 0,
// else DECIMAL(1+p-s+r, r). Infer sees only types, so for a DECIMAL first
// argument and an INT literal second argument the validator sets Call.T
// with this function (Eval rounds to the call's result scale).
func RoundDecimalType(t types.Type, r int) types.Type {
	p, s := t.Precision, t.Scale
	var out types.Type
	switch {
	case r >= s:
		out = types.DecimalOf(p, s)
	case r < 0:
		out = types.DecimalOf(min(types.MaxDecimalPrecision, 1+p-s), 0)
	default:
		out = types.DecimalOf(min(types.MaxDecimalPrecision, 1+p-s+r), r)
	}
	return out.WithNullable(t.Nullable())
}

func seededRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
}

func signF(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// roundValue rounds (or truncates) v of type t to d decimal places and
// returns it as type res.
func roundValue(v any, t, res types.Type, d int64, truncate bool) (any, error) {
	if d > 38 {
		d = 38
	}
	if d < -38 {
		d = -38
	}
	switch x := v.(type) {
	case float64, float32:
		f, _ := toFloat64(x, t)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v, nil
		}
		bits := 64
		if _, ok := x.(float32); ok {
			bits = 32
		}
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, bits))
		if !ok {
			return v, nil
		}
		out := roundRat(r, int(d), truncate)
		g, _ := out.Float64()
		if bits == 32 {
			return float32(g), nil
		}
		return g, nil
	case decimal128.Num:
		b := x.BigInt()
		s := t.Scale
		if int(d) < s {
			div := pow10(s - int(d))
			var q *big.Int
			if truncate {
				q = new(big.Int).Quo(b, div)
			} else {
				q = divHalfUp(b, div)
			}
			b = new(big.Int).Mul(q, pow10(s-int(d)))
			// b is at scale s again.
		}
		b = rescaleBig(b, s, res.Scale)
		out, ok := bigToDec(b, res.Precision)
		if !ok {
			return nil, nil
		}
		return out, nil
	}
	i, ok := toInt64(v)
	if !ok {
		return nil, fmt.Errorf("internal: ROUND of %T", v)
	}
	if d >= 0 {
		return v, nil
	}
	if -d >= 19 {
		return fromInt64(0, t.Kind), nil
	}
	div := int64(1)
	for k := int64(0); k < -d; k++ {
		div *= 10
	}
	q := i / div
	if !truncate {
		rem := i % div
		if rem*2 >= div {
			q++
		} else if rem*2 <= -div {
			q--
		}
	}
	return fromInt64(q*div, t.Kind), nil
}

func roundRat(r *big.Rat, d int, truncate bool) *big.Rat {
	scale := new(big.Rat).SetInt(pow10(abs(d)))
	x := new(big.Rat).Set(r)
	if d >= 0 {
		x.Mul(x, scale)
	} else {
		x.Quo(x, scale)
	}
	num, den := x.Num(), x.Denom()
	var q *big.Int
	if truncate {
		q = new(big.Int).Quo(num, den)
	} else {
		q = divHalfUp(num, den)
	}
	out := new(big.Rat).SetInt(q)
	if d >= 0 {
		out.Quo(out, scale)
	} else {
		out.Mul(out, scale)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
