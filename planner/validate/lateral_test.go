package validate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestLateralTableAndUserAggregates(t *testing.T) {
	reg := function.Builtins()
	row := types.Type{Kind: types.Row, Fields: []types.Field{{Name: "word", Type: types.StringT}, {Name: "len", Type: types.IntT}}}
	split := &function.Definition{Name: "split", Kind: function.Table,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 1 {
				return types.Type{}, nil, function.CallError("split", args)
			}
			return row, []types.Type{types.StringT}, nil
		}}
	wavg := &function.Definition{Name: "db.wavg", Kind: function.Aggregate,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			return types.DoubleT, []types.Type{types.BigIntT, types.IntT}, nil
		}}
	res := &fakeResolver{builtins: reg, defs: map[string]*function.Definition{"split": split, "wavg": wavg}}
	cat := catalog.NewManager("default_catalog", "default_database")
	v := New(cat, reg, Options{Loc: time.UTC, Functions: res})
	const src = "(VALUES (1, 'a b')) AS t(id, s)"
	tests := []struct {
		name    string
		sql     string
		plan    string // logical.Explain of the result
		schema  string
		wantErr string
	}{
		{"comma lateral", "SELECT * FROM " + src + ", LATERAL TABLE(split(s)) AS T(w, n)",
			"LogicalCorrelate(correlation=[$cor0], joinType=[inner], requiredColumns=[{1}])",
			"id INT NOT NULL, s CHAR(3) NOT NULL, w STRING, n INT", ""},
		{"left lateral", "SELECT id, word FROM " + src + " LEFT JOIN LATERAL TABLE(split(s)) ON TRUE",
			"LogicalCorrelate(correlation=[$cor0], joinType=[left], requiredColumns=[{1}])",
			"id INT NOT NULL, word STRING", ""},
		{"inner join with a condition", "SELECT id FROM " + src + " JOIN LATERAL TABLE(split(s)) AS T(w, n) ON n > 1",
			"LogicalFilter(condition=[>($3, 1)])", "id INT NOT NULL", ""},
		{"alone", "SELECT * FROM TABLE(split('x'))",
			"LogicalTableFunctionScan(invocation=[split(CAST('x' AS STRING NOT NULL))]", "word STRING, len INT", ""},
		{"user aggregate", "SELECT s, wavg(id, id) FROM " + src + " GROUP BY s",
			"LogicalAggregate(group=[{0}], EXPR$1=[db.wavg($1, $2)])", "s CHAR(3) NOT NULL, EXPR$1 DOUBLE", ""},
		{"right join", "SELECT * FROM " + src + " RIGHT JOIN LATERAL TABLE(split(s)) ON TRUE", "", "",
			"not supported yet: RIGHT JOIN with a table function"},
		{"scalar in LATERAL TABLE", "SELECT * FROM " + src + ", LATERAL TABLE(lower(s))", "", "",
			"Function 'lower' is not a table function"},
		{"arity", "SELECT * FROM " + src + ", LATERAL TABLE(split(s, s))", "", "",
			"Cannot apply 'split'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := plan(t, v, tt.sql)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Contains(t, logical.Explain(n), tt.plan)
			require.Equal(t, tt.schema, schemaString(n.Schema()))
		})
	}
}
