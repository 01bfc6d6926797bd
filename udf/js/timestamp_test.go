package js

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestNanoTimestampArgs(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		ret    types.Type
		params []types.Type
		args   []any
		want   any
	}{
		{"ts9 to Date", "function f(a) { return a.toISOString(); }", types.StringT, []types.Type{types.TimestampOf(9)}, []any{int64(1704067200123456789)}, "2024-01-01T00:00:00.123Z"},
		{"ltz9 getTime", "function f(a) { return a.getTime(); }", types.BigIntT, []types.Type{types.TimestampLTZOf(9)}, []any{int64(-1)}, int64(-1)},
		{"ts9 roundtrip", "function f(a) { return new Date(a.getTime() + 1000); }", types.TimestampOf(9), []types.Type{types.TimestampOf(9)}, []any{int64(1704067200123456789)}, int64(1704067201123000000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def := scalar(t, "f", tc.body, tc.ret, tc.params...)
			got, err := call(def, tc.args...)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
