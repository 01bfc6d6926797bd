package function

import (
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// The collection functions Flink added in 1.18–2.x: ARRAY_APPEND,
// ARRAY_PREPEND, ARRAY_EXCEPT, ARRAY_INTERSECT, ARRAY_MAX, ARRAY_MIN,
// ARRAY_SORT, SPLIT and MAP_UNION.

// orderable reports whether values of t have an order (MIN/MAX/SORT).
func orderable(t types.Type) bool {
	switch t.Kind {
	case types.Array, types.Map, types.Row, types.Null:
		return false
	}
	return true
}

// splitString implements SPLIT: every character for an empty delimiter.
func splitString(s, delim string) []any {
	if delim == "" {
		out := make([]any, 0, len(s))
		for _, r := range s {
			out = append(out, string(r))
		}
		return out
	}
	parts := strings.Split(s, delim)
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

func collectionDefs2() []*Definition {
	// ARRAY_APPEND/PREPEND: the element's NULLs make the element type
	// nullable.
	withElem := func(arr, needle types.Type) types.Type {
		e := elemOf(arr)
		if needle.Nullable() || needle.Kind == types.Null {
			e = e.WithNullable(true)
		}
		return types.ArrayOf(e).WithNullable(arr.Nullable())
	}
	addElem := func(name string, front bool, summary, example string) *Definition {
		return &Definition{Name: name, Kind: Scalar,
			Infer: arrayNeedleInfer(name, withElem),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				xs, err := asArray(name, a[0])
				if err != nil {
					return nil, err
				}
				out := make([]any, 0, len(xs)+1)
				if front {
					out = append(out, a[1])
				}
				out = append(out, xs...)
				if !front {
					out = append(out, a[1])
				}
				return out, nil
			},
			Doc: Doc{Summary: summary, Args: "array, element", Example: example}}
	}
	setOp := func(name string, keep bool, summary, example string) *Definition {
		return &Definition{Name: name, Kind: Scalar, NullOnNull: true,
			Infer: arraysInfer(name, 2, 2),
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray(name, a[0])
				if err != nil {
					return nil, err
				}
				ys, err := asArray(name, a[1])
				if err != nil {
					return nil, err
				}
				out := []any{}
				for _, x := range xs {
					if (collIndex(ys, x) >= 0) == keep && collIndex(out, x) < 0 {
						out = append(out, x)
					}
				}
				return out, nil
			},
			Doc: Doc{Summary: summary, Args: "array1, array2", Example: example}}
	}
	extreme := func(name string, sign int) *Definition {
		return &Definition{Name: name, Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) != 1 {
					return types.Type{}, nil, arityError(name, len(args))
				}
				if args[0].Kind != types.Array || !orderable(elemOf(args[0])) {
					return types.Type{}, nil, CallError(name, args)
				}
				return elemOf(args[0]).WithNullable(true), nil, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray(name, a[0])
				if err != nil {
					return nil, err
				}
				et := elemOf(ct.Args[0])
				var best any
				for _, x := range xs {
					if x != nil && (best == nil || sign*CompareValues(x, best, et) > 0) {
						best = x
					}
				}
				return best, nil
			},
			Doc: map[int]Doc{
				1:  {Summary: "Returns the largest element of the array, skipping NULL elements; NULL when the array is NULL, empty or only NULL.", Args: "array", Example: "ARRAY_MAX(ARRAY[1, 20, NULL, 3]) → 20"},
				-1: {Summary: "Returns the smallest element of the array, skipping NULL elements; NULL when the array is NULL, empty or only NULL.", Args: "array", Example: "ARRAY_MIN(ARRAY[1, 20, NULL, 3]) → 1"},
			}[sign]}
	}
	return []*Definition{
		addElem("ARRAY_APPEND", false, "Appends the element (NULL too) to the end of the array; NULL when the array is NULL.", "ARRAY_APPEND(ARRAY[1, 2], 3) → [1, 2, 3]"),
		addElem("ARRAY_PREPEND", true, "Prepends the element (NULL too) to the beginning of the array; NULL when the array is NULL.", "ARRAY_PREPEND(ARRAY[1, 2], 0) → [0, 1, 2]"),
		setOp("ARRAY_EXCEPT", false, "Returns the distinct elements of array1 that are not in array2, in array1's order (an empty array when none remain); NULL when either array is NULL.", "ARRAY_EXCEPT(ARRAY[1, 2, 2, 3], ARRAY[2]) → [1, 3]"),
		setOp("ARRAY_INTERSECT", true, "Returns the distinct elements of array1 that are also in array2, in array1's order (an empty array when there are none); NULL when either array is NULL.", "ARRAY_INTERSECT(ARRAY[1, 2, 2, 3], ARRAY[3, 2]) → [2, 3]"),
		extreme("ARRAY_MAX", 1),
		extreme("ARRAY_MIN", -1),
		{
			Name: "ARRAY_SORT", Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) < 1 || len(args) > 3 {
					return types.Type{}, nil, arityError("ARRAY_SORT", len(args))
				}
				if args[0].Kind != types.Array || !orderable(elemOf(args[0])) {
					return types.Type{}, nil, CallError("ARRAY_SORT", args)
				}
				for _, b := range args[1:] {
					if b.Kind != types.Boolean && b.Kind != types.Null {
						return types.Type{}, nil, CallError("ARRAY_SORT", args)
					}
				}
				casts := []types.Type{args[0]}
				for _, b := range args[1:] {
					casts = append(casts, types.BooleanT.WithNullable(b.Nullable()))
				}
				return args[0].WithNullable(anyNullable(args)), casts, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				xs, err := asArray("ARRAY_SORT", a[0])
				if err != nil {
					return nil, err
				}
				asc := true
				if len(a) > 1 {
					asc = a[1] == true
				}
				nullFirst := asc
				if len(a) > 2 {
					nullFirst = a[2] == true
				}
				et := elemOf(ct.Args[0])
				out := append([]any{}, xs...)
				sort.SliceStable(out, func(i, j int) bool {
					x, y := out[i], out[j]
					switch {
					case x == nil || y == nil:
						return y != nil && nullFirst || x != nil && !nullFirst
					case asc:
						return CompareValues(x, y, et) < 0
					}
					return CompareValues(x, y, et) > 0
				})
				return out, nil
			},
			Doc: Doc{Summary: "Returns the array sorted, ascending by default; ascending_order FALSE sorts descending. NULL elements come first when ascending and last when descending, unless null_first says otherwise. NULL when any argument is NULL.",
				Args: "array [, ascending_order [, null_first]]", Example: "ARRAY_SORT(ARRAY[3, NULL, 1]) → [NULL, 1, 3]"},
		},
		{
			Name: "SPLIT", Kind: Scalar, NullOnNull: true,
			Infer: spec{name: "SPLIT", minArgs: 2, maxArgs: 2, args: []argClass{aStr},
				result: fixedT(types.ArrayOf(types.StringT))}.infer,
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				return splitString(a[0].(string), a[1].(string)), nil
			},
			Doc: Doc{Summary: "Splits the string at every occurrence of the delimiter into an ARRAY<STRING> (empty strings where delimiters are adjacent or at an end; every character for an empty delimiter); NULL when an argument is NULL.",
				Args: "string, delimiter", Example: "SPLIT('a,b,,c', ',') → [a, b, , c]"},
		},
		{
			Name: "MAP_UNION", Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) < 1 {
					return types.Type{}, nil, arityError("MAP_UNION", len(args))
				}
				for _, m := range args {
					if m.Kind != types.Map && m.Kind != types.Null {
						return types.Type{}, nil, CallError("MAP_UNION", args)
					}
				}
				common, ok := CommonType(args...)
				if !ok || common.Kind != types.Map {
					return types.Type{}, nil, CallError("MAP_UNION", args)
				}
				casts := make([]types.Type, len(args))
				for i, m := range args {
					casts[i] = common.WithNullable(m.Nullable())
				}
				return common.WithNullable(anyNullable(args)), casts, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				out := &types.MapValue{Keys: []any{}, Values: []any{}}
				for _, v := range a {
					m, err := asMap("MAP_UNION", v)
					if err != nil {
						return nil, err
					}
					for i, k := range m.Keys {
						if j := collIndex(out.Keys, k); j >= 0 {
							out.Values[j] = m.Values[i]
							continue
						}
						out.Keys = append(out.Keys, k)
						out.Values = append(out.Values, m.Values[i])
					}
				}
				return out, nil
			},
			Doc: Doc{Summary: "Merges the maps (of a common type); for a key in several maps the value of the later map wins; NULL when any map is NULL.",
				Args: "map1 [, map2]*", Example: "MAP_UNION(MAP['a', 1], MAP['a', 2, 'b', 3]) → {a=2, b=3}"},
		},
	}
}
