package function

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// This file holds Flink's collection functions over ARRAY and MAP values
// (ARRAY_CONTAINS, MAP_KEYS, …). Arrays are []any and maps *types.MapValue
// (see core/types); elements compare with Flink's equality, under which
// NULL equals NULL (ARRAY_CONTAINS(ARRAY[1, NULL], NULL) is TRUE).

func registerCollections(r *Registry) {
	for _, d := range collectionDefs() {
		r.Register(d)
	}
}

// isArrayArg accepts an ARRAY argument (or an untyped NULL).
func isArrayArg(t types.Type) bool { return t.Kind == types.Array || t.Kind == types.Null }

// elemOf is the element type of an ARRAY type (NULL for an untyped NULL).
func elemOf(t types.Type) types.Type {
	if t.Kind == types.Array && t.Elem != nil {
		return *t.Elem
	}
	return types.Type{Kind: types.Null}
}

// collEqual is Flink's element equality (NULL equals NULL).
func collEqual(a, b any) bool { return reflect.DeepEqual(a, b) }

// collIndex returns the 0-based index of v in xs, or -1.
func collIndex(xs []any, v any) int {
	for i, x := range xs {
		if collEqual(x, v) {
			return i
		}
	}
	return -1
}

// arrayNeedleInfer types (array, element) calls: the element is cast to
// the array's element type.
func arrayNeedleInfer(name string, result func(arr, needle types.Type) types.Type) InferFunc {
	return func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) != 2 {
			return types.Type{}, nil, arityError(name, len(args))
		}
		arr, needle := args[0], args[1]
		if arr.Kind != types.Array {
			return types.Type{}, nil, CallError(name, args)
		}
		elem := elemOf(arr)
		if needle.Kind != types.Null && !CanImplicitCast(needle, elem.WithNullable(needle.Nullable())) {
			if _, ok := CommonType(elem, needle); !ok {
				return types.Type{}, nil, CallError(name, args)
			}
		}
		return result(arr, needle), []types.Type{arr, elem.WithNullable(needle.Nullable())}, nil
	}
}

// arraysInfer types calls over n or more arrays of a common type.
func arraysInfer(name string, min, max int) InferFunc {
	return func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return types.Type{}, nil, arityError(name, len(args))
		}
		var common types.Type
		for i, a := range args {
			if a.Kind != types.Array && a.Kind != types.Null {
				return types.Type{}, nil, CallError(name, args)
			}
			if i == 0 {
				common = a
				continue
			}
			c, ok := CommonType(common, a)
			if !ok {
				return types.Type{}, nil, CallError(name, args)
			}
			common = c
		}
		if common.Kind != types.Array {
			return types.Type{}, nil, CallError(name, args)
		}
		nullable := anyNullable(args)
		casts := make([]types.Type, len(args))
		for i, a := range args {
			casts[i] = common.WithNullable(a.Nullable())
		}
		return common.WithNullable(nullable), casts, nil
	}
}

// unaryArrayInfer types f(array) whose result is derived from the array
// type.
func unaryArrayInfer(name string, result func(arr types.Type) types.Type) InferFunc {
	return func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) != 1 {
			return types.Type{}, nil, arityError(name, len(args))
		}
		if args[0].Kind != types.Array {
			return types.Type{}, nil, CallError(name, args)
		}
		return result(args[0]), nil, nil
	}
}

// unaryMapInfer types f(map).
func unaryMapInfer(name string, result func(m types.Type) types.Type) InferFunc {
	return func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) != 1 {
			return types.Type{}, nil, arityError(name, len(args))
		}
		m := args[0]
		if m.Kind != types.Map || m.Elem == nil || m.Value == nil {
			return types.Type{}, nil, CallError(name, args)
		}
		return result(m).WithNullable(m.Nullable()), nil, nil
	}
}

func asArray(name string, v any) ([]any, error) {
	xs, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("internal: %s of %T", name, v)
	}
	return xs, nil
}

func asMap(name string, v any) (*types.MapValue, error) {
	m, ok := v.(*types.MapValue)
	if !ok || m == nil {
		return nil, fmt.Errorf("internal: %s of %T", name, v)
	}
	return m, nil
}

// distinctAppend appends the elements of xs not yet in out.
func distinctAppend(out, xs []any) []any {
	for _, x := range xs {
		if collIndex(out, x) < 0 {
			out = append(out, x)
		}
	}
	return out
}

// sliceBounds resolves ARRAY_SLICE offsets (1-based, 0 = start, negative
// from the end) to a 0-based half-open range; ok is false for an empty
// result.
func sliceBounds(n int, start, end int64) (int, int, bool) {
	norm := func(o int64) int64 {
		switch {
		case o < 0:
			return int64(n) + o + 1
		case o == 0:
			return 1
		}
		return o
	}
	s, e := norm(start), norm(end)
	if s < 1 {
		s = 1
	}
	if e > int64(n) {
		e = int64(n)
	}
	if s > e || s > int64(n) || e < 1 {
		return 0, 0, false
	}
	return int(s - 1), int(e), true
}

func collectionDefs() []*Definition {
	arrType := func(arr types.Type) types.Type { return arr }
	arrOf := func(arr, _ types.Type) types.Type { return arr }
	boolOf := func(arr, _ types.Type) types.Type { return types.BooleanT.WithNullable(arr.Nullable()) }
	return []*Definition{
		{
			Name: "ELEMENT", Kind: Scalar, NullOnNull: true,
			Infer: unaryArrayInfer("ELEMENT", func(arr types.Type) types.Type { return elemOf(arr).WithNullable(true) }),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ELEMENT", a[0])
				if err != nil {
					return nil, err
				}
				switch len(xs) {
				case 0:
					return nil, nil
				case 1:
					return xs[0], nil
				}
				return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "Array has more than one element."}
			},
			Doc: Doc{Summary: "Returns the sole element of an array; NULL when the array is empty or NULL; an error when it has more than one element.",
				Args: "array", Example: "ELEMENT(ARRAY[7]) → 7"},
		},
		{
			Name: "ARRAY_CONTAINS", Kind: Scalar,
			Infer: arrayNeedleInfer("ARRAY_CONTAINS", boolOf),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				xs, err := asArray("ARRAY_CONTAINS", a[0])
				if err != nil {
					return nil, err
				}
				return collIndex(xs, a[1]) >= 0, nil
			},
			Doc: Doc{Summary: "Returns whether the array contains the element (a NULL element is found too); NULL when the array is NULL.",
				Args: "array, element", Example: "ARRAY_CONTAINS(ARRAY[1, NULL], NULL) → TRUE"},
		},
		{
			Name: "ARRAY_DISTINCT", Kind: Scalar, NullOnNull: true,
			Infer: unaryArrayInfer("ARRAY_DISTINCT", arrType),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ARRAY_DISTINCT", a[0])
				if err != nil {
					return nil, err
				}
				return distinctAppend([]any{}, xs), nil
			},
			Doc: Doc{Summary: "Returns the array without duplicate elements, keeping the first occurrence of each, in order; NULL when the array is NULL.",
				Args: "array", Example: "ARRAY_DISTINCT(ARRAY[1, 2, 1]) → [1, 2]"},
		},
		{
			Name: "ARRAY_POSITION", Kind: Scalar, NullOnNull: true,
			Infer: arrayNeedleInfer("ARRAY_POSITION", func(arr, needle types.Type) types.Type {
				return types.IntT.WithNullable(arr.Nullable() || needle.Nullable())
			}),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ARRAY_POSITION", a[0])
				if err != nil {
					return nil, err
				}
				return int32(collIndex(xs, a[1]) + 1), nil
			},
			Doc: Doc{Summary: "Returns the 1-based position of the first occurrence of the element in the array, 0 when absent; NULL when either argument is NULL.",
				Args: "array, element", Example: "ARRAY_POSITION(ARRAY[5, 6, 5], 6) → 2"},
		},
		{
			Name: "ARRAY_REMOVE", Kind: Scalar,
			Infer: arrayNeedleInfer("ARRAY_REMOVE", arrOf),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				xs, err := asArray("ARRAY_REMOVE", a[0])
				if err != nil {
					return nil, err
				}
				out := []any{}
				for _, x := range xs {
					if !collEqual(x, a[1]) {
						out = append(out, x)
					}
				}
				return out, nil
			},
			Doc: Doc{Summary: "Removes every element equal to the element (NULL removes the NULL elements), keeping the order; NULL when the array is NULL.",
				Args: "array, element", Example: "ARRAY_REMOVE(ARRAY[1, 2, 1], 1) → [2]"},
		},
		{
			Name: "ARRAY_REVERSE", Kind: Scalar, NullOnNull: true,
			Infer: unaryArrayInfer("ARRAY_REVERSE", arrType),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ARRAY_REVERSE", a[0])
				if err != nil {
					return nil, err
				}
				out := make([]any, len(xs))
				for i, x := range xs {
					out[len(xs)-1-i] = x
				}
				return out, nil
			},
			Doc: Doc{Summary: "Returns the elements of the array in reverse order; NULL when the array is NULL.",
				Args: "array", Example: "ARRAY_REVERSE(ARRAY[1, 2, 3]) → [3, 2, 1]"},
		},
		{
			Name: "ARRAY_SLICE", Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) < 2 || len(args) > 3 {
					return types.Type{}, nil, arityError("ARRAY_SLICE", len(args))
				}
				if args[0].Kind != types.Array {
					return types.Type{}, nil, CallError("ARRAY_SLICE", args)
				}
				casts := []types.Type{args[0]}
				for _, o := range args[1:] {
					if !o.IsInteger() && o.Kind != types.Null {
						return types.Type{}, nil, CallError("ARRAY_SLICE", args)
					}
					casts = append(casts, types.BigIntT.WithNullable(o.Nullable()))
				}
				return args[0].WithNullable(anyNullable(args)), casts, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ARRAY_SLICE", a[0])
				if err != nil {
					return nil, err
				}
				end := int64(len(xs))
				if len(a) > 2 {
					end = argInt(a[2])
				}
				s, e, ok := sliceBounds(len(xs), argInt(a[1]), end)
				if !ok {
					return []any{}, nil
				}
				return append([]any{}, xs[s:e]...), nil
			},
			Doc: Doc{Summary: "Returns the elements from start_offset to end_offset inclusive (1-based; 0 is the start; negative offsets count from the end; end_offset defaults to the length); an empty array when the range is empty; NULL when any argument is NULL.",
				Args: "array, start_offset [, end_offset]", Example: "ARRAY_SLICE(ARRAY[1, 2, 3, 4], 2, -2) → [2, 3]"},
		},
		{
			Name: "ARRAY_UNION", Kind: Scalar, NullOnNull: true,
			Infer: arraysInfer("ARRAY_UNION", 2, 2),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				out := []any{}
				for _, v := range a {
					xs, err := asArray("ARRAY_UNION", v)
					if err != nil {
						return nil, err
					}
					out = distinctAppend(out, xs)
				}
				return out, nil
			},
			Doc: Doc{Summary: "Returns the distinct elements of both arrays, in order of first occurrence; NULL when either array is NULL.",
				Args: "array1, array2", Example: "ARRAY_UNION(ARRAY[1, 2], ARRAY[2, 3]) → [1, 2, 3]"},
		},
		{
			Name: "ARRAY_CONCAT", Kind: Scalar, NullOnNull: true,
			Infer: arraysInfer("ARRAY_CONCAT", 1, -1),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				out := []any{}
				for _, v := range a {
					xs, err := asArray("ARRAY_CONCAT", v)
					if err != nil {
						return nil, err
					}
					out = append(out, xs...)
				}
				return out, nil
			},
			Doc: Doc{Summary: "Concatenates the arrays; NULL when any array is NULL.",
				Args: "array1 [, array2]*", Example: "ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3]) → [1, 2, 3]"},
		},
		{
			Name: "ARRAY_JOIN", Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) < 2 || len(args) > 3 {
					return types.Type{}, nil, arityError("ARRAY_JOIN", len(args))
				}
				if args[0].Kind != types.Array || !elemOf(args[0]).IsString() {
					return types.Type{}, nil, CallError("ARRAY_JOIN", args)
				}
				casts := []types.Type{args[0]}
				for _, s := range args[1:] {
					if !s.IsString() && s.Kind != types.Null {
						return types.Type{}, nil, CallError("ARRAY_JOIN", args)
					}
					casts = append(casts, types.StringT.WithNullable(s.Nullable()))
				}
				return types.StringT.WithNullable(anyNullable(args)), casts, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ARRAY_JOIN", a[0])
				if err != nil {
					return nil, err
				}
				sep, _ := a[1].(string)
				parts := make([]string, 0, len(xs))
				for _, x := range xs {
					switch s := x.(type) {
					case nil:
						if len(a) > 2 {
							r, _ := a[2].(string)
							parts = append(parts, r)
						}
					case string:
						parts = append(parts, s)
					default:
						return nil, fmt.Errorf("internal: ARRAY_JOIN element %T", x)
					}
				}
				return strings.Join(parts, sep), nil
			},
			Doc: Doc{Summary: "Joins the string elements of the array with the delimiter; NULL elements are skipped, or replaced by null_replacement when given; NULL when any argument is NULL.",
				Args: "array, delimiter [, null_replacement]", Example: "ARRAY_JOIN(ARRAY['a', NULL, 'b'], '-', '?') → 'a-?-b'"},
		},
		{
			Name: "MAP_KEYS", Kind: Scalar, NullOnNull: true,
			Infer: unaryMapInfer("MAP_KEYS", func(m types.Type) types.Type { return types.ArrayOf(*m.Elem) }),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				m, err := asMap("MAP_KEYS", a[0])
				if err != nil {
					return nil, err
				}
				return append([]any{}, m.Keys...), nil
			},
			Doc: Doc{Summary: "Returns the keys of the map as an array; NULL when the map is NULL.",
				Args: "map", Example: "MAP_KEYS(MAP['a', 1, 'b', 2]) → [a, b]"},
		},
		{
			Name: "MAP_VALUES", Kind: Scalar, NullOnNull: true,
			Infer: unaryMapInfer("MAP_VALUES", func(m types.Type) types.Type { return types.ArrayOf(*m.Value) }),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				m, err := asMap("MAP_VALUES", a[0])
				if err != nil {
					return nil, err
				}
				return append([]any{}, m.Values...), nil
			},
			Doc: Doc{Summary: "Returns the values of the map as an array; NULL when the map is NULL.",
				Args: "map", Example: "MAP_VALUES(MAP['a', 1, 'b', 2]) → [1, 2]"},
		},
		{
			Name: "MAP_ENTRIES", Kind: Scalar, NullOnNull: true,
			Infer: unaryMapInfer("MAP_ENTRIES", func(m types.Type) types.Type {
				return types.ArrayOf(types.RowOf(types.Field{Name: "key", Type: *m.Elem}, types.Field{Name: "value", Type: *m.Value}).WithNullable(false))
			}),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				m, err := asMap("MAP_ENTRIES", a[0])
				if err != nil {
					return nil, err
				}
				out := make([]any, len(m.Keys))
				for i := range m.Keys {
					out[i] = []any{m.Keys[i], m.Values[i]}
				}
				return out, nil
			},
			Doc: Doc{Summary: "Returns the entries of the map as an array of ROW(key, value); NULL when the map is NULL.",
				Args: "map", Example: "MAP_ENTRIES(MAP['a', 1]) → [(a, 1)]"},
		},
		{
			Name: "MAP_FROM_ARRAYS", Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) != 2 {
					return types.Type{}, nil, arityError("MAP_FROM_ARRAYS", len(args))
				}
				if args[0].Kind != types.Array || args[1].Kind != types.Array {
					return types.Type{}, nil, CallError("MAP_FROM_ARRAYS", args)
				}
				return types.MapOf(elemOf(args[0]), elemOf(args[1])).WithNullable(anyNullable(args)), nil, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				ks, err := asArray("MAP_FROM_ARRAYS", a[0])
				if err != nil {
					return nil, err
				}
				vs, err := asArray("MAP_FROM_ARRAYS", a[1])
				if err != nil {
					return nil, err
				}
				if len(ks) != len(vs) {
					return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException",
						Msg: "Invalid function MAP_FROM_ARRAYS call:\nThe length of the keys array " + fmt.Sprint(len(ks)) + " is not equal to the length of the values array " + fmt.Sprint(len(vs))}
				}
				m := &types.MapValue{}
				for i, k := range ks {
					if j := collIndex(m.Keys, k); j >= 0 {
						m.Values[j] = vs[i] // a later duplicate key wins
						continue
					}
					m.Keys = append(m.Keys, k)
					m.Values = append(m.Values, vs[i])
				}
				return m, nil
			},
			Doc: Doc{Summary: "Returns a map from an array of keys and an array of values of the same length (a repeated key keeps its last value); NULL when either array is NULL.",
				Args: "keys, values", Example: "MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1, 2]) → {a=1, b=2}"},
		},
	}
}
