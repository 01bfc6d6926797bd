package function

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestHashCode(t *testing.T) {
	def, ok := Builtins().Lookup("hash_code")
	require.True(t, ok)
	require.True(t, def.NullOnNull, "HASH_CODE(NULL) is NULL, as in Flink")
	hash := func(v any, typ types.Type) int32 {
		t.Helper()
		got, err := def.Eval(&EvalContext{}, CallTypes{Args: []types.Type{typ}, Result: types.IntT}, []any{v})
		require.NoError(t, err)
		h, ok := got.(int32)
		require.True(t, ok, "%T", got)
		if _, java := JavaIntHash(0, typ.Kind); !java {
			require.GreaterOrEqual(t, h, int32(0))
		}
		return h
	}
	tests := []struct {
		name string
		typ  types.Type
		a, b any
		same bool
	}{
		{"equal strings", types.StringT, "abc", "abc", true},
		{"different strings", types.StringT, "abc", "abd", false},
		{"empty string", types.StringT, "", "a", false},
		{"0.0 and -0.0", types.DoubleT, 0.0, math.Copysign(0, -1), true},
		{"NaNs", types.DoubleT, math.NaN(), math.Float64frombits(0x7ff8000000000005), true},
		{"float 0.0 and -0.0", types.FloatT, float32(0), float32(math.Copysign(0, -1)), true},
		{"doubles", types.DoubleT, 1.5, 2.5, false},
		{"bigints", types.BigIntT, int64(-1), int64(1), false},
		{"ints", types.IntT, int32(7), int32(7), true},
		{"booleans", types.BooleanT, true, false, false},
		{"decimals", types.DecimalOf(10, 2), decimal128.FromI64(123), decimal128.FromI64(123), true},
		{"dates", types.DateT, int32(19000), int32(19001), false},
		{"arrays", types.ArrayOf(types.IntT), []any{int32(1), nil}, []any{int32(1), nil}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := hash(tc.a, tc.typ), hash(tc.b, tc.typ)
			if tc.same {
				require.Equal(t, a, b)
			} else {
				require.NotEqual(t, a, b)
			}
			require.Equal(t, a, hash(tc.a, tc.typ), "deterministic")
		})
	}
	// Over integers it is Java's hashCode, as Flink's HASH_CODE.
	for _, c := range []struct {
		v    any
		typ  types.Type
		want int32
	}{
		{int32(-7), types.IntT, -7}, {int8(5), types.TinyIntT, 5}, {int16(-300), types.SmallIntT, -300},
		{int64(-5), types.BigIntT, 4}, {int64(1) << 32, types.BigIntT, 1}, {int64(123456789), types.BigIntT, 123456789},
		{int64(math.MinInt64), types.BigIntT, math.MinInt32},
	} {
		got, err := HashCodeValue(c.v, c.typ)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "HASH_CODE(%v)", c.v)
	}
	// The hash has no per-process seed: these values never change.
	require.Equal(t, hash("a", types.StringT), hash("a", types.VarCharOf(10)))
	golden, err := HashCodeValue("a", types.StringT)
	require.NoError(t, err)
	require.Equal(t, hashCodeGoldenA, golden)
}

// hashCodeGoldenA is HASH_CODE('a'): fixed, so that buckets of a split
// DISTINCT aggregate stay the same across runs and processes (restored
// state).
const hashCodeGoldenA = int32(2009653985)

func TestHashCodeInfer(t *testing.T) {
	def, _ := Builtins().Lookup("HASH_CODE")
	tests := []struct {
		name string
		args []types.Type
		want types.Type
		err  string
	}{
		{"nullable", []types.Type{types.StringT}, types.IntT, ""},
		{"not null", []types.Type{types.DoubleT.WithNullable(false)}, types.IntT.WithNullable(false), ""},
		{"no argument", nil, types.Type{}, "Invalid number of arguments to function 'HASH_CODE'"},
		{"two arguments", []types.Type{types.IntT, types.IntT}, types.Type{}, "Invalid number of arguments to function 'HASH_CODE'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := def.Infer(tc.args)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
