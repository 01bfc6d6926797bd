package validate

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// fakeResolver knows a few functions by their joined, lower-case name.
type fakeResolver struct {
	builtins *function.Registry
	defs     map[string]*function.Definition
	calls    [][]string
}

func (f *fakeResolver) Resolve(parts []string) (*function.Definition, error) {
	f.calls = append(f.calls, parts)
	key := strings.ToLower(strings.Join(parts, "."))
	if key == "broken" {
		return nil, errors.New("not supported yet: calling java function 'broken'")
	}
	if d, ok := f.defs[key]; ok {
		return d, nil
	}
	if len(parts) == 1 && key != "upper" {
		if d, ok := f.builtins.Lookup(key); ok {
			return d, nil
		}
	}
	return nil, nil
}

func TestResolvedCalls(t *testing.T) {
	reg := function.Builtins()
	user := &function.Definition{Name: "db.twice", Kind: function.Scalar,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			return types.BigIntT, []types.Type{types.BigIntT}, nil
		}}
	agg := &function.Definition{Name: "myagg", Kind: function.Aggregate,
		Infer: func([]types.Type) (types.Type, []types.Type, error) { return types.IntT, nil, nil }}
	res := &fakeResolver{builtins: reg, defs: map[string]*function.Definition{"db.twice": user, "myagg": agg}}
	cat := catalog.NewManager("default_catalog", "default_database")
	v := New(cat, reg, Options{Loc: time.UTC, Functions: res})

	tests := []struct {
		name    string
		sql     string
		call    string // name of the call in the single projected expression
		wantErr string
	}{
		{"built-in through the resolver", "SELECT lower('A')", "LOWER", ""},
		{"qualified user function with a cast", "SELECT db.twice(1)", "db.twice", ""},
		{"PROCTIME is a built-in", "SELECT PROCTIME()", "PROCTIME", ""},
		{"unknown", "SELECT upper('a')", "", "No match found for function signature upper(<CHARACTER>)"},
		{"unknown qualified", "SELECT c.d.nope(1)", "", "No match found for function signature nope(<NUMERIC>)"},
		{"cannot be called", "SELECT broken(1)", "", "not supported yet: calling java function 'broken'"},
		{"aggregate in WHERE", "SELECT 1 FROM (VALUES (1)) AS t(x) WHERE myagg(x) > 0", "", "At line 1, column 42: Aggregate expression is illegal in WHERE clause"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := plan(t, v, tt.sql)
			if tt.wantErr != "" {
				require.Error(t, err)
				require.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			p, ok := n.(*logical.Project)
			require.True(t, ok, "%T", n)
			c, ok := p.Exprs[0].(*logical.Call)
			require.True(t, ok, "%T", p.Exprs[0])
			require.Equal(t, tt.call, c.Name)
		})
	}

	_, err := plan(t, v, "SELECT upper('a')")
	var nm *NoMatchError
	require.ErrorAs(t, err, &nm)
	require.Equal(t, ClassSQLValidator, nm.JavaClass())
	var pe *Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, 1, pe.Line)
	require.Equal(t, 8, pe.Col)
}
