package function

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

type celsius float64

func TestFromGoSignatures(t *testing.T) {
	tests := []struct {
		name     string
		fn       any
		args     []types.Type
		want     types.Type // result type for args
		casts    []types.Type
		nullNull bool
	}{
		{"int64", func(x int64) int64 { return x }, []types.Type{types.BigIntT}, types.BigIntT, []types.Type{types.BigIntT}, true},
		{"not null in, not null out", func(x int64) int64 { return x }, []types.Type{{Kind: types.BigInt, NotNull: true}},
			types.Type{Kind: types.BigInt, NotNull: true}, []types.Type{types.BigIntT}, true},
		{"int is BIGINT, implicit cast from INT", func(x int) string { return "" }, []types.Type{types.IntT}, types.StringT, []types.Type{types.BigIntT}, true},
		{"small ints", func(a int8, b int16, c int32) bool { return true }, []types.Type{types.TinyIntT, types.SmallIntT, types.IntT},
			types.BooleanT, []types.Type{types.TinyIntT, types.SmallIntT, types.IntT}, true},
		{"floats and named types", func(a float32, b celsius) float64 { return 0 }, []types.Type{types.FloatT, types.DoubleT},
			types.DoubleT, []types.Type{types.FloatT, types.DoubleT}, true},
		{"bytes, time, duration", func(b []byte, ts time.Time, d time.Duration) []byte { return b },
			[]types.Type{types.BytesT, types.TimestampOf(6), types.IntervalDT}, types.BytesT,
			[]types.Type{types.BytesT, types.TimestampOf(6), types.IntervalDT}, true},
		{"arrays", func(xs []int32) []string { return nil }, []types.Type{types.ArrayOf(types.IntT)},
			types.ArrayOf(types.StringT), []types.Type{types.ArrayOf(types.IntT)}, true},
		{"pointer parameter", func(s *string) string { return "" }, []types.Type{{Kind: types.VarChar, Precision: types.MaxLength, NotNull: true}},
			types.StringT, []types.Type{types.StringT}, false},
		{"pointer result and error", func(s string) (*int32, error) { return nil, nil }, []types.Type{types.StringT},
			types.IntT, []types.Type{types.StringT}, true},
		{"no arguments", func() float64 { return 1 }, nil, types.Type{Kind: types.Double, NotNull: true}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := FromGo("f", tt.fn)
			require.NoError(t, err)
			require.Equal(t, Scalar, def.Kind)
			require.Equal(t, tt.nullNull, def.NullOnNull)
			res, casts, err := def.Infer(tt.args)
			require.NoError(t, err)
			require.Equal(t, tt.want, res)
			require.Equal(t, tt.casts, casts)
			fn, ok := GoImpl(def)
			require.True(t, ok)
			require.NotNil(t, fn)
		})
	}
}

func TestFromGoInferErrors(t *testing.T) {
	def, err := FromGo("twice", func(x int64) int64 { return 2 * x })
	require.NoError(t, err)
	_, _, err = def.Infer([]types.Type{types.StringT})
	require.EqualError(t, err, "Cannot apply 'twice' to arguments of type 'twice(<VARCHAR(2147483647)>)'.")
	_, _, err = def.Infer([]types.Type{types.BigIntT, types.BigIntT})
	require.ErrorContains(t, err, "Cannot apply 'twice'")
}

func TestFromGoEval(t *testing.T) {
	ts := time.Date(2024, 3, 1, 12, 30, 0, 500_000_000, time.UTC)
	tests := []struct {
		name string
		fn   any
		args []any
		want any
		err  string
	}{
		{"int64", func(x int64) int64 { return x * 3 }, []any{int64(4)}, int64(12), ""},
		{"NULL on NULL input", func(x int64) int64 { return x * 3 }, []any{nil}, nil, ""},
		{"pointer sees NULL", func(s *string) string {
			if s == nil {
				return "none"
			}
			return *s
		}, []any{nil}, "none", ""},
		{"pointer result NULL", func(s string) *string { return nil }, []any{"x"}, nil, ""},
		{"pointer result value", func(s string) *int32 { n := int32(len(s)); return &n }, []any{"abc"}, int32(3), ""},
		{"string", strings.ToUpper, []any{"abc"}, "ABC", ""},
		{"bytes", func(b []byte) []byte { return append(b, '!') }, []any{[]byte("hi")}, []byte("hi!"), ""},
		{"named float", func(c celsius) float64 { return float64(c)*9/5 + 32 }, []any{100.0}, 212.0, ""},
		{"time in and out", func(t time.Time) time.Time { return t.Add(time.Hour) }, []any{ts.UnixMicro()}, ts.Add(time.Hour).UnixMicro(), ""},
		{"time result in another location keeps its wall clock", func(x int64) time.Time {
			return time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
		}, []any{int64(0)}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).UnixMicro(), ""},
		{"duration", func(d time.Duration) time.Duration { return 2 * d }, []any{int64(1500)}, int64(3000), ""},
		{"arrays", func(xs []int32) []string {
			out := make([]string, len(xs))
			for i, x := range xs {
				out[i] = strings.Repeat("a", int(x))
			}
			return out
		}, []any{[]any{int32(1), int32(2)}}, []any{"a", "aa"}, ""},
		{"array of pointers sees NULL elements", func(xs []*int64) int64 {
			n := int64(0)
			for _, x := range xs {
				if x == nil {
					n++
				}
			}
			return n
		}, []any{[]any{int64(1), nil, nil}}, int64(2), ""},
		{"error result", func(s string) (int32, error) { return 0, errors.New("bad input") }, []any{"x"}, nil, "Go function 'f': bad input"},
		{"panic", func(x int64) int64 { panic("boom") }, []any{int64(1)}, nil, "Go function 'f' panicked: boom"},
		{"wrong canonical value", func(x int64) int64 { return x }, []any{int32(1)}, nil, "internal: value 1 of Go type int32 for SQL type BIGINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := FromGo("f", tt.fn)
			require.NoError(t, err)
			got, err := def.Eval(&EvalContext{}, CallTypes{}, tt.args)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestFromGoErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   any
		err  string
	}{
		{"not a function", 42, "Go function 'f': int is not a function"},
		{"nil", nil, "Go function 'f': <nil> is not a function"},
		{"no result", func(int64) {}, "Go function 'f' must return one value, or a value and an error"},
		{"two values", func(int64) (int64, int64) { return 0, 0 }, "Go function 'f' must return one value, or a value and an error"},
		{"only an error", func(int64) error { return nil }, "Go function 'f' must return a value before its error"},
		{"variadic", func(xs ...int64) int64 { return 0 }, "not supported yet: variadic Go function 'f'"},
		{"map", func(m map[string]int) int64 { return 0 }, "Go function 'f', parameter 1: not supported yet: Go type map[string]int in a function signature"},
		{"unsigned", func(x uint32) int64 { return 0 }, "Go function 'f', parameter 1: not supported yet: Go type uint32 in a function signature"},
		{"pointer to pointer", func(x **int64) int64 { return 0 }, "Go function 'f', parameter 1: not supported yet: Go type **int64 (pointer to pointer)"},
		{"struct result", func(x int64) struct{} { return struct{}{} }, "Go function 'f', result: not supported yet: Go type struct {} in a function signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromGo("f", tt.fn)
			require.EqualError(t, err, tt.err)
		})
	}
	_, err := FromGo(" ", func() int64 { return 1 })
	require.Error(t, err)
}
