package function

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

// Go functions as user-defined scalar functions, for programs that embed
// tablerun: FromGo derives the SQL signature of a plain Go function from
// its Go signature by reflection, and the result is registered with
// (*core.TableEnvironment).CreateTemporarySystemFunction.
//
// Go types and the SQL types they stand for (parameters and results):
//
//	bool                      BOOLEAN
//	int8, int16, int32        TINYINT, SMALLINT, INT
//	int64, int                BIGINT
//	float32, float64          FLOAT, DOUBLE
//	string                    STRING
//	[]byte                    BYTES
//	time.Time                 TIMESTAMP(6) (wall clock; results are read in their own location)
//	time.Duration             INTERVAL DAY TO SECOND (millisecond precision)
//	[]T                       ARRAY<T> (T any type of this table but []byte)
//	*T                        T, where nil is NULL
//
// Named types with these underlying kinds work too. NULLs: a parameter of
// a non-pointer type never sees NULL — when such an argument is NULL the
// function is not called and the result is NULL (Flink's "returns NULL on
// NULL input"). Declare a pointer parameter (*int64, *string, …) to
// receive NULLs as nil, and a pointer result to return NULL. The result
// is NOT NULL when it is not a pointer, no parameter is a pointer and
// every argument is NOT NULL.
//
// The function may return a second result of type error: a non-nil error
// fails the query with the function's name. A panic in the function is
// recovered and reported the same way. Arguments are implicitly cast to
// the parameter types, as for script functions with a SQL signature.
//
// Functions made by FromGo are deterministic (constant-folded when all
// arguments are constant); set the definition's Nondeterministic field for
// functions that read clocks, random sources or other state. Calls run
// row by row through reflection, except the signatures with a vectorized
// kernel in vectorized/expr (func(int64) int64, func(float64) float64 and
// their two-argument forms), which run as one loop over Arrow columns.

// goFuncs maps the definitions made by FromGo to their Go functions.
var goFuncs sync.Map // *Definition → any

// GoImpl returns the Go function behind a definition made by FromGo.
func GoImpl(def *Definition) (fn any, ok bool) {
	if def == nil {
		return nil, false
	}
	return goFuncs.Load(def)
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
	errorType    = reflect.TypeOf((*error)(nil)).Elem()
)

// goConv converts between one Go type and the canonical Go value of its
// SQL type (core/types).
type goConv struct {
	rt  reflect.Type
	t   types.Type
	ptr bool
	// in converts a non-nil canonical value to a Go value of type rt.
	in func(v any) (reflect.Value, error)
	// out converts a Go value of type rt to a canonical value (nil for a
	// nil pointer).
	out func(rv reflect.Value) (any, error)
}

func wrongValue(v any, t types.Type) error {
	return fmt.Errorf("internal: value %v of Go type %T for SQL type %s", v, v, t)
}

// convOf returns the conversion of Go type rt.
func convOf(rt reflect.Type) (*goConv, error) {
	if rt.Kind() == reflect.Pointer {
		base, err := convOf(rt.Elem())
		if err != nil {
			return nil, err
		}
		if base.ptr {
			return nil, fmt.Errorf("not supported yet: Go type %s (pointer to pointer)", rt)
		}
		return &goConv{rt: rt, t: base.t, ptr: true,
			in: func(v any) (reflect.Value, error) {
				x, err := base.in(v)
				if err != nil {
					return reflect.Value{}, err
				}
				p := reflect.New(rt.Elem())
				p.Elem().Set(x)
				return p, nil
			},
			out: func(rv reflect.Value) (any, error) {
				if rv.IsNil() {
					return nil, nil
				}
				return base.out(rv.Elem())
			},
		}, nil
	}
	switch {
	case rt == timeType:
		return &goConv{rt: rt, t: types.TimestampOf(6),
			in: func(v any) (reflect.Value, error) {
				m, ok := v.(int64)
				if !ok {
					return reflect.Value{}, wrongValue(v, types.TimestampOf(6))
				}
				return reflect.ValueOf(time.UnixMicro(m).UTC()), nil
			},
			out: func(rv reflect.Value) (any, error) {
				t := rv.Interface().(time.Time)
				y, mo, d := t.Date()
				h, mi, s := t.Clock()
				return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC).UnixMicro(), nil
			},
		}, nil
	case rt == durationType:
		return &goConv{rt: rt, t: types.IntervalDT,
			in: func(v any) (reflect.Value, error) {
				m, ok := v.(int64)
				if !ok {
					return reflect.Value{}, wrongValue(v, types.IntervalDT)
				}
				return reflect.ValueOf(time.Duration(m) * time.Millisecond), nil
			},
			out: func(rv reflect.Value) (any, error) {
				return int64(time.Duration(rv.Int()) / time.Millisecond), nil
			},
		}, nil
	}
	scalar := func(t types.Type, canon reflect.Type, out func(rv reflect.Value) any) (*goConv, error) {
		return &goConv{rt: rt, t: t,
			in: func(v any) (reflect.Value, error) {
				x := reflect.ValueOf(v)
				if x.Type() != canon {
					return reflect.Value{}, wrongValue(v, t)
				}
				return x.Convert(rt), nil
			},
			out: func(rv reflect.Value) (any, error) { return out(rv), nil },
		}, nil
	}
	switch rt.Kind() {
	case reflect.Bool:
		return scalar(types.BooleanT, reflect.TypeOf(false), func(rv reflect.Value) any { return rv.Bool() })
	case reflect.Int8:
		return scalar(types.TinyIntT, reflect.TypeOf(int8(0)), func(rv reflect.Value) any { return int8(rv.Int()) })
	case reflect.Int16:
		return scalar(types.SmallIntT, reflect.TypeOf(int16(0)), func(rv reflect.Value) any { return int16(rv.Int()) })
	case reflect.Int32:
		return scalar(types.IntT, reflect.TypeOf(int32(0)), func(rv reflect.Value) any { return int32(rv.Int()) })
	case reflect.Int64, reflect.Int:
		return scalar(types.BigIntT, reflect.TypeOf(int64(0)), func(rv reflect.Value) any { return rv.Int() })
	case reflect.Float32:
		return scalar(types.FloatT, reflect.TypeOf(float32(0)), func(rv reflect.Value) any { return float32(rv.Float()) })
	case reflect.Float64:
		return scalar(types.DoubleT, reflect.TypeOf(float64(0)), func(rv reflect.Value) any { return rv.Float() })
	case reflect.String:
		return scalar(types.StringT, reflect.TypeOf(""), func(rv reflect.Value) any { return rv.String() })
	case reflect.Slice:
		if rt.Elem().Kind() == reflect.Uint8 {
			return &goConv{rt: rt, t: types.BytesT,
				in: func(v any) (reflect.Value, error) {
					b, ok := v.([]byte)
					if !ok {
						return reflect.Value{}, wrongValue(v, types.BytesT)
					}
					return reflect.ValueOf(append([]byte(nil), b...)).Convert(rt), nil
				},
				out: func(rv reflect.Value) (any, error) {
					if rv.IsNil() {
						return nil, nil
					}
					return append([]byte(nil), rv.Bytes()...), nil
				},
			}, nil
		}
		elem, err := convOf(rt.Elem())
		if err != nil {
			return nil, err
		}
		et := elem.t
		t := types.ArrayOf(et)
		return &goConv{rt: rt, t: t,
			in: func(v any) (reflect.Value, error) {
				xs, ok := v.([]any)
				if !ok {
					return reflect.Value{}, wrongValue(v, t)
				}
				s := reflect.MakeSlice(rt, len(xs), len(xs))
				for i, x := range xs {
					if x == nil {
						continue // nil pointer, or the zero value of a non-pointer element
					}
					ev, err := elem.in(x)
					if err != nil {
						return reflect.Value{}, err
					}
					s.Index(i).Set(ev)
				}
				return s, nil
			},
			out: func(rv reflect.Value) (any, error) {
				if rv.IsNil() {
					return nil, nil
				}
				out := make([]any, rv.Len())
				for i := range out {
					v, err := elem.out(rv.Index(i))
					if err != nil {
						return nil, err
					}
					out[i] = v
				}
				return out, nil
			},
		}, nil
	}
	return nil, fmt.Errorf("not supported yet: Go type %s in a function signature", rt)
}

// FromGo returns the definition of a scalar function named name that
// calls the Go function fn (see the type table above). Register it with
// (*core.TableEnvironment).CreateTemporarySystemFunction or
// Registry.Register.
func FromGo(name string, fn any) (*Definition, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("a Go function needs a non-empty name")
	}
	fv := reflect.ValueOf(fn)
	if !fv.IsValid() || fv.Kind() != reflect.Func || fv.IsNil() {
		return nil, fmt.Errorf("Go function '%s': %T is not a function", name, fn)
	}
	ft := fv.Type()
	if ft.IsVariadic() {
		return nil, fmt.Errorf("not supported yet: variadic Go function '%s'", name)
	}
	hasErr := false
	switch {
	case ft.NumOut() == 2 && ft.Out(1) == errorType:
		hasErr = true
	case ft.NumOut() != 1:
		return nil, fmt.Errorf("Go function '%s' must return one value, or a value and an error", name)
	}
	if ft.Out(0) == errorType {
		return nil, fmt.Errorf("Go function '%s' must return a value before its error", name)
	}
	params := make([]*goConv, ft.NumIn())
	ptypes := make([]types.Type, ft.NumIn())
	nullOnNull := true
	names := make([]string, ft.NumIn())
	for i := range params {
		c, err := convOf(ft.In(i))
		if err != nil {
			return nil, fmt.Errorf("Go function '%s', parameter %d: %w", name, i+1, err)
		}
		params[i], ptypes[i] = c, c.t
		nullOnNull = nullOnNull && !c.ptr
		names[i] = fmt.Sprintf("arg%d %s", i, c.t)
	}
	res, err := convOf(ft.Out(0))
	if err != nil {
		return nil, fmt.Errorf("Go function '%s', result: %w", name, err)
	}
	def := &Definition{
		Name:       name,
		Kind:       Scalar,
		NullOnNull: nullOnNull,
		Doc: Doc{
			Summary: fmt.Sprintf("Go function %s", ft),
			Args:    strings.Join(names, ", "),
		},
	}
	def.Infer = func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) != len(ptypes) {
			return types.Type{}, nil, CallError(name, args)
		}
		notNull := nullOnNull && !res.ptr
		for i, a := range args {
			notNull = notNull && a.NotNull
			if a.Kind == types.Null || a.EqualIgnoringNull(ptypes[i]) {
				continue
			}
			if !CanImplicitCast(a, ptypes[i]) {
				return types.Type{}, nil, CallError(name, args)
			}
		}
		rt := res.t
		rt.NotNull = notNull
		return rt, append([]types.Type(nil), ptypes...), nil
	}
	def.Eval = func(_ *EvalContext, _ CallTypes, args []any) (out any, err error) {
		if len(args) != len(params) {
			return nil, fmt.Errorf("internal: Go function '%s' called with %d arguments, want %d", name, len(args), len(params))
		}
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			if a == nil {
				if !params[i].ptr {
					return nil, nil // NULL on NULL input
				}
				in[i] = reflect.Zero(params[i].rt)
				continue
			}
			v, err := params[i].in(a)
			if err != nil {
				return nil, err
			}
			in[i] = v
		}
		defer func() {
			if p := recover(); p != nil {
				out, err = nil, fmt.Errorf("Go function '%s' panicked: %v", name, p)
			}
		}()
		outs := fv.Call(in)
		if hasErr && !outs[1].IsNil() {
			return nil, fmt.Errorf("Go function '%s': %w", name, outs[1].Interface().(error))
		}
		return res.out(outs[0])
	}
	goFuncs.Store(def, fn)
	return def, nil
}

// GoConverter converts between a Go type of FromGo's type table and the
// canonical Go values of its SQL type; udf uses it for Go table and
// aggregate functions.
type GoConverter struct{ c *goConv }

// NewGoConverter returns the converter of Go type rt, or an error starting
// with "not supported yet: " for a type outside the table.
func NewGoConverter(rt reflect.Type) (*GoConverter, error) {
	c, err := convOf(rt)
	if err != nil {
		return nil, err
	}
	return &GoConverter{c: c}, nil
}

// Type is the SQL type (nullable).
func (g *GoConverter) Type() types.Type { return g.c.t }

// Pointer reports whether the Go type is a pointer (NULL is nil).
func (g *GoConverter) Pointer() bool { return g.c.ptr }

// ToGo converts a canonical value to a Go value; NULL becomes the zero
// value of the type (nil for a pointer).
func (g *GoConverter) ToGo(v any) (reflect.Value, error) {
	if v == nil {
		return reflect.Zero(g.c.rt), nil
	}
	return g.c.in(v)
}

// FromGo converts a Go value of the type to a canonical value (nil for a
// nil pointer).
func (g *GoConverter) FromGo(rv reflect.Value) (any, error) { return g.c.out(rv) }
