package parser

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/ast"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files in testdata")

// goldenStatements reads testdata/statements.sql split into statements.
func goldenStatements(t testing.TB) []ScriptStatement {
	data, err := os.ReadFile("testdata/statements.sql")
	require.NoError(t, err)
	stmts, err := ParseScript(string(data))
	require.NoError(t, err)
	return stmts
}

// TestGoldenStatements parses every statement of testdata/statements.sql
// and compares ast.Dump of the result with testdata/statements.golden.
func TestGoldenStatements(t *testing.T) {
	stmts := goldenStatements(t)
	var b strings.Builder
	for _, s := range stmts {
		st, err := ParseStatement(s.Text)
		require.NoError(t, err, "line %d: %s", s.Line, s.Text)
		fmt.Fprintf(&b, "# line %d\n%s\n----\n%s\n\n", s.Line, s.Text, ast.Dump(st))
	}
	const path = "testdata/statements.golden"
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String(), "run go test -rewrite to regenerate")
	t.Logf("%d statements", len(stmts))
}

// BenchmarkParseStatements parses every statement of testdata/statements.sql.
func BenchmarkParseStatements(b *testing.B) {
	stmts := goldenStatements(b)
	size := 0
	for _, s := range stmts {
		size += len(s.Text)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range stmts {
			if _, err := ParseStatement(s.Text); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestQueryRoundTrip formats every query of testdata/statements.sql with
// ast.FormatQuery, parses the text again and checks that the tree is the
// same (compared with ast.Dump, which ignores positions).
func TestQueryRoundTrip(t *testing.T) {
	n := 0
	for _, s := range goldenStatements(t) {
		st, err := ParseStatement(s.Text)
		require.NoError(t, err)
		var queries []ast.Query
		switch x := st.(type) {
		case *ast.QueryStmt:
			queries = append(queries, x.Query)
		case *ast.Insert:
			queries = append(queries, x.Query)
		case *ast.CreateView:
			queries = append(queries, x.Query)
		case *ast.Explain:
			if q, ok := x.Statement.(*ast.QueryStmt); ok {
				queries = append(queries, q.Query)
			}
		}
		for _, q := range queries {
			n++
			text := ast.FormatQuery(q)
			st2, err := ParseStatement(text)
			require.NoError(t, err, "line %d: %s\nformatted: %s", s.Line, s.Text, text)
			q2 := st2.(*ast.QueryStmt).Query
			require.Equal(t, ast.Dump(q), ast.Dump(q2), "line %d: %s\nformatted: %s", s.Line, s.Text, text)
			require.Equal(t, text, ast.FormatQuery(q2))
		}
	}
	t.Logf("%d queries round-tripped", n)
}
