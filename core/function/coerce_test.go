package function

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestCommonType(t *testing.T) {
	nn := func(t types.Type) types.Type { return t.WithNullable(false) }
	cases := []struct {
		name string
		in   []types.Type
		want string // "" means no common type
	}{
		{"ints", []types.Type{nn(types.TinyIntT), nn(types.IntT)}, "INT NOT NULL"},
		{"int bigint nullable", []types.Type{nn(types.IntT), types.BigIntT}, "BIGINT"},
		{"null adopts", []types.Type{types.NullType, nn(types.IntT)}, "INT"},
		{"all null", []types.Type{types.NullType, types.NullType}, "NULL"},
		{"int decimal", []types.Type{nn(types.IntT), nn(types.DecimalOf(5, 2))}, "DECIMAL(12, 2) NOT NULL"},
		{"decimals", []types.Type{types.DecimalOf(5, 2), types.DecimalOf(10, 4)}, "DECIMAL(10, 4)"},
		{"decimal cap", []types.Type{types.DecimalOf(38, 0), types.DecimalOf(38, 10)}, "DECIMAL(38, 0)"},
		{"int double", []types.Type{types.IntT, types.DoubleT}, "DOUBLE"},
		{"int float", []types.Type{types.IntT, types.FloatT}, "FLOAT"},
		{"decimal float", []types.Type{types.DecimalOf(5, 2), types.FloatT}, "DOUBLE"},
		{"char same", []types.Type{types.CharOf(3), types.CharOf(3)}, "CHAR(3)"},
		{"char different", []types.Type{types.CharOf(3), types.CharOf(5)}, "VARCHAR(5)"},
		{"char varchar", []types.Type{types.CharOf(3), types.VarCharOf(2)}, "VARCHAR(3)"},
		{"string", []types.Type{types.CharOf(3), types.StringT}, "STRING"},
		{"binary", []types.Type{{Kind: types.Binary, Precision: 2}, types.BytesT}, "BYTES"},
		{"date timestamp", []types.Type{types.DateT, types.TimestampOf(3)}, "TIMESTAMP(3)"},
		{"timestamps", []types.Type{types.TimestampOf(0), types.TimestampOf(6)}, "TIMESTAMP(6)"},
		{"ltz", []types.Type{types.TimestampOf(3), types.TimestampLTZOf(3)}, "TIMESTAMP_LTZ(3)"},
		{"time", []types.Type{types.TimeOf(0), types.TimeOf(3)}, "TIME(3)"},
		{"bool", []types.Type{types.BooleanT, nn(types.BooleanT)}, "BOOLEAN"},
		{"interval", []types.Type{types.IntervalDT, types.IntervalDT}, "INTERVAL DAY(2) TO SECOND(3)"},
		{"arrays", []types.Type{types.ArrayOf(types.IntT), types.ArrayOf(types.BigIntT)}, "ARRAY<BIGINT>"},
		{"maps", []types.Type{types.MapOf(types.CharOf(1), types.IntT), types.MapOf(types.StringT, types.DoubleT)}, "MAP<STRING, DOUBLE>"},
		{"rows", []types.Type{
			types.RowOf(types.Field{Name: "a", Type: types.IntT}),
			types.RowOf(types.Field{Name: "b", Type: types.BigIntT}),
		}, "ROW<`a` BIGINT>"},
		{"row arity", []types.Type{
			types.RowOf(types.Field{Name: "a", Type: types.IntT}),
			types.RowOf(),
		}, ""},
		{"int string", []types.Type{types.IntT, types.StringT}, ""},
		{"bool int", []types.Type{types.BooleanT, types.IntT}, ""},
		{"date time", []types.Type{types.DateT, types.TimeOf(0)}, ""},
		{"none", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CommonType(tc.in...)
			if tc.want == "" {
				require.False(t, ok, got.String())
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.want, got.String())
		})
	}
}

func TestCanCast(t *testing.T) {
	row := types.RowOf(types.Field{Name: "a", Type: types.IntT})
	cases := []struct {
		from, to           types.Type
		implicit, explicit bool
	}{
		{types.IntT, types.BigIntT, true, true},
		{types.BigIntT, types.IntT, false, true},
		{types.IntT, types.DecimalOf(10, 0), true, true},
		{types.DecimalOf(10, 2), types.DoubleT, true, true},
		{types.DoubleT, types.DecimalOf(10, 2), false, true},
		{types.NullType, types.DateT, true, true},
		{types.CharOf(3), types.StringT, true, true},
		{types.StringT, types.IntT, false, true},
		{types.IntT, types.StringT, false, true},
		{types.StringT, types.DateT, false, true},
		{types.StringT, types.TimestampOf(3), false, true},
		{types.StringT, types.BooleanT, false, true},
		{types.BooleanT, types.IntT, false, true},
		{types.DateT, types.TimestampOf(3), true, true},
		{types.TimestampOf(3), types.DateT, false, true},
		{types.TimestampOf(3), types.TimestampLTZOf(3), true, true},
		{types.DateT, types.TimeOf(0), false, false},
		{types.BooleanT, types.DateT, false, false},
		{types.IntT, types.DateT, false, false},
		{types.BigIntT, types.TimestampLTZOf(3), false, true},
		{types.StringT, types.BytesT, false, true},
		{types.ArrayOf(types.IntT), types.ArrayOf(types.BigIntT), true, true},
		{types.ArrayOf(types.StringT), types.ArrayOf(types.IntT), false, true},
		{types.ArrayOf(types.IntT), types.StringT, false, true},
		{row, types.RowOf(types.Field{Name: "x", Type: types.StringT}), false, true},
		{row, types.IntT, false, false},
		{types.MapOf(types.StringT, types.IntT), types.MapOf(types.StringT, types.BigIntT), true, true},
		{types.IntervalDT, types.IntervalYM, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.from.String()+"→"+tc.to.String(), func(t *testing.T) {
			require.Equal(t, tc.implicit, CanImplicitCast(tc.from, tc.to), "implicit")
			require.Equal(t, tc.explicit, CanCast(tc.from, tc.to), "explicit")
		})
	}
}
