package function

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestStatsAggregateResultTypes(t *testing.T) {
	tests := []struct {
		name    string
		args    []types.Type
		want    string
		wantErr string
	}{
		{"STDDEV_POP", []types.Type{types.IntT}, "INT", ""},
		{"stddev_samp", []types.Type{types.IntT.WithNullable(false)}, "INT", ""},
		{"VAR_POP", []types.Type{types.DoubleT}, "DOUBLE", ""},
		{"VARIANCE", []types.Type{types.DecimalOf(10, 2)}, "DECIMAL(38, 6)", ""},
		{"STDDEV", []types.Type{types.DecimalOf(20, 8)}, "DECIMAL(38, 8)", ""},
		{"VAR_SAMP", []types.Type{types.StringT}, "", "Cannot apply 'VAR_SAMP'"},
		{"LISTAGG", []types.Type{types.StringT}, "STRING", ""},
		{"LISTAGG", []types.Type{types.StringT.WithNullable(false), types.CharOf(1).WithNullable(false)}, "STRING", ""},
		{"LISTAGG", []types.Type{types.IntT}, "", "Cannot apply 'LISTAGG'"},
		{"LISTAGG", []types.Type{types.StringT, types.StringT, types.StringT}, "", "Invalid number of arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, IsAggregate(tt.name))
			got, err := AggregateResultType(tt.name, tt.args, true)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got.String())
			require.True(t, got.Nullable())
		})
	}
	for _, n := range []string{"STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE", "LISTAGG"} {
		d, ok := AggregateDoc(n)
		require.True(t, ok, n)
		require.NotEmpty(t, d.Summary)
	}
}
