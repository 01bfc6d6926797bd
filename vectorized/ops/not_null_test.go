package ops

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

func TestNotNullEnforcer(t *testing.T) {
	s := types.Schema{{Name: "a", Type: types.IntT}, {Name: "b", Type: types.StringT}}
	rows := [][]any{{int32(1), "x"}, {nil, "y"}, {int32(3), nil}, {nil, nil}}
	cases := []struct {
		name string
		drop bool
		want [][]any
		err  string
	}{
		{"drop", true, [][]any{{int32(1), "x"}, {int32(3), nil}}, ""},
		{"error", false, nil, "Column 'a' is NOT NULL, however, a null value is being written into it. " +
			"You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently."},
	}
	for _, c := range cases {
		for _, bs := range batchSizes {
			t.Run(c.name, func(t *testing.T) {
				op := NewNotNullEnforcer([]int{0}, []string{"a"}, c.drop)
				ctx := context.Background()
				require.NoError(t, op.Open(ctx))
				out := &collector{}
				var err error
				for _, b := range split(t, s, rows, bs) {
					if err = op.Process(ctx, b, out); err != nil {
						break
					}
				}
				require.NoError(t, op.Close())
				if c.err != "" {
					require.EqualError(t, err, c.err)
					var ee *function.EvalError
					require.ErrorAs(t, err, &ee)
					require.Equal(t, ClassTableException, ee.JavaClass())
					return
				}
				require.NoError(t, err)
				require.Equal(t, c.want, out.rows(t, s, bs))
			})
		}
	}
}
