package validate

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
)

var testDDL = []string{
	"CREATE TABLE orders (id BIGINT NOT NULL, user_id INT, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values')",
	"CREATE TABLE users (user_id INT, name STRING, age INT) WITH ('connector' = 'values')",
	"CREATE TABLE t (a INT, b BIGINT, c STRING, d DOUBLE, r ROW<x INT, y STRING>, arr ARRAY<INT>, m MAP<STRING, INT>) WITH ('connector' = 'values')",
	"CREATE TABLE s (a INT, b BIGINT, c STRING) WITH ('connector' = 'values')",
	"CREATE TABLE comp (a INT, b INT, c AS a + b, d AS UPPER(CAST(a AS STRING))) WITH ('connector' = 'values')",
	"CREATE TABLE sink1 (a INT, b BIGINT, c STRING) WITH ('connector' = 'blackhole')",
}

func newTestValidator(t *testing.T) *Validator {
	t.Helper()
	cat := catalog.NewManager("default_catalog", "default_database")
	v := New(cat, function.Builtins(), Options{Loc: time.UTC, Now: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)})
	for _, ddl := range testDDL {
		st, err := parser.ParseStatement(ddl)
		require.NoError(t, err, ddl)
		id, tbl, err := v.CreateTable(st.(*ast.CreateTable))
		require.NoError(t, err, ddl)
		require.NoError(t, cat.CreateObject(id, tbl, false, false))
	}
	return v
}

func parseQuery(t *testing.T, sql string) ast.Query {
	t.Helper()
	st, err := parser.ParseStatement(sql)
	require.NoError(t, err, sql)
	qs, ok := st.(*ast.QueryStmt)
	require.True(t, ok, "%T", st)
	return qs.Query
}

func plan(t *testing.T, v *Validator, sql string) (logical.Node, error) {
	t.Helper()
	return v.Query(parseQuery(t, sql))
}

func schemaString(s types.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.Name + " " + f.Type.String()
	}
	return strings.Join(parts, ", ")
}

// checkRefs verifies that every column reference of every node is in range
// of its input schema and has the input column's type.
func checkRefs(t *testing.T, n logical.Node) {
	t.Helper()
	var in types.Schema
	for _, c := range n.Children() {
		checkRefs(t, c)
		in = append(in, c.Schema()...)
	}
	var exprs []logical.Expr
	switch x := n.(type) {
	case *logical.Project:
		exprs = x.Exprs
		require.Equal(t, len(x.Exprs), len(x.Out))
	case *logical.Filter:
		exprs = []logical.Expr{x.Cond}
	case *logical.Join:
		if x.Cond != nil {
			exprs = []logical.Expr{x.Cond}
		}
	case *logical.Aggregate:
		for _, k := range x.GroupKeys {
			require.Less(t, k, len(in))
		}
		for _, a := range x.Aggs {
			require.NotNil(t, a.Def, "%s carries no definition in\n%s", a, logical.Explain(n))
			for _, i := range a.Args {
				require.Less(t, i, len(in))
			}
			if a.Filter >= 0 {
				require.Equal(t, types.Boolean, in[a.Filter].Type.Kind)
			}
		}
	case *logical.Sort:
		for _, k := range x.Keys {
			require.Less(t, k.Index, len(in))
		}
	}
	for _, e := range exprs {
		logical.Walk(e, func(x logical.Expr) bool {
			switch c := x.(type) {
			case *logical.ColumnRef:
				require.Less(t, c.Index, len(in), "%s in %s", e, logical.Explain(n))
				require.True(t, c.T.Equal(in[c.Index].Type), "ref %s type %s vs input %s in\n%s", c, c.T, in[c.Index].Type, logical.Explain(n))
			case *logical.Call:
				require.NotNil(t, c.Def, "%s carries no definition in\n%s", c, logical.Explain(n))
			case *outerRef:
				t.Fatalf("outer reference left in plan: %s", logical.Explain(n))
			}
			return true
		})
	}
}

func timeLoc(name string) (*time.Location, error) { return time.LoadLocation(name) }
