package function

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestCallErrorCalciteTypeNames(t *testing.T) {
	arr := types.Type{Kind: types.Array, Elem: &types.IntT}
	cases := []struct {
		args []types.Type
		want string
	}{
		{[]types.Type{types.IntT}, "'F(<INTEGER>)'"},
		{[]types.Type{types.IntT.WithNullable(false), types.BigIntT}, "'F(<INTEGER>, <BIGINT>)'"},
		{[]types.Type{types.StringT}, "'F(<VARCHAR(2147483647)>)'"},
		{[]types.Type{{Kind: types.Char, Precision: 3}}, "'F(<CHAR(3)>)'"},
		{[]types.Type{types.DecimalOf(3, 2)}, "'F(<DECIMAL(3, 2)>)'"},
		{[]types.Type{{Kind: types.TimestampLTZ, Precision: 3}}, "'F(<TIMESTAMP_WITH_LOCAL_TIME_ZONE(3)>)'"},
		{[]types.Type{arr}, "'F(<INTEGER ARRAY>)'"},
		{[]types.Type{types.BooleanT, types.DoubleT, types.DateT}, "'F(<BOOLEAN>, <DOUBLE>, <DATE>)'"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			require.EqualError(t, CallError("F", c.args), "Cannot apply 'F' to arguments of type "+c.want+".")
		})
	}
}
