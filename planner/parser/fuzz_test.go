package parser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablerun/tablerun/planner/ast"
)

// FuzzParse checks that no input makes the parser, the script splitter or
// the expression parser panic.
func FuzzParse(f *testing.F) {
	for _, s := range goldenStatements(f) {
		f.Add(s.Text)
	}
	for _, s := range []string{
		"SELECT 'abc", "SELECT `x", "/*", "--", "$$", "((((((", "SELECT ARRAY[", "CAST(", "INTERVAL '1' DAY(",
		"SELECT * FROM t /*+ OPTIONS(", "ROW<", "SELECT a.b.*", "X'", "SELECT 1e", "VALUES ()", "SELECT (SELECT",
	} {
		f.Add(s)
	}
	if files, err := filepath.Glob(filepath.Join(conformanceDir, "*", "*.q")); err == nil {
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) < 30000 {
				f.Add(string(data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, _ = ParseStatement(sql)
		_, _ = ParseExpression(sql)
		_, _ = ParseDataType(sql)
		if stmts, err := ParseScript(sql); err == nil {
			for _, s := range stmts {
				if _, err := ParseStatement(s.Text); err != nil {
					if pe, ok := err.(*Error); ok {
						_ = pe.Offset(s.Line, s.Col)
					}
				}
			}
		}
	})
}

// FuzzRoundTrip checks that every query or expression that parses prints
// (ast.FormatQuery / ast.Format) to text that parses back to the same tree.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range goldenStatements(f) {
		f.Add(s.Text)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		if st, err := ParseStatement(sql); err == nil {
			if qs, ok := st.(*ast.QueryStmt); ok {
				text := ast.FormatQuery(qs.Query)
				st2, err := ParseStatement(text)
				if err != nil {
					t.Fatalf("formatted query does not parse: %v\ninput: %q\nformatted: %q", err, sql, text)
				}
				if a, b := ast.Dump(qs.Query), ast.Dump(st2.(*ast.QueryStmt).Query); a != b {
					t.Fatalf("round trip changed the tree\ninput: %q\nformatted: %q\n%s\n%s", sql, text, a, b)
				}
			}
		}
		if e, err := ParseExpression(sql); err == nil {
			text := ast.Format(e)
			e2, err := ParseExpression(text)
			if err != nil {
				t.Fatalf("formatted expression does not parse: %v\ninput: %q\nformatted: %q", err, sql, text)
			}
			if a, b := ast.Dump(e), ast.Dump(e2); a != b {
				t.Fatalf("round trip changed the expression\ninput: %q\nformatted: %q\n%s\n%s", sql, text, a, b)
			}
		}
	})
}
