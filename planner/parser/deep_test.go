package parser

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDeepNesting checks that hostile nesting fails fast with an error
// instead of exhausting the stack or taking quadratic time.
func TestDeepNesting(t *testing.T) {
	tests := []string{
		"SELECT " + strings.Repeat("(", 100000) + "1",
		"SELECT * FROM " + strings.Repeat("(", 100000) + "t",
		"SELECT " + strings.Repeat("-", 100000) + "1",
		"SELECT " + strings.Repeat("NOT ", 100000) + "TRUE",
		"SELECT CAST(a AS " + strings.Repeat("ARRAY<", 100000) + "INT",
		"SELECT " + strings.Repeat("f(", 100000) + "1",
		"SELECT * FROM t MATCH_RECOGNIZE (PATTERN (" + strings.Repeat("(", 100000) + "A",
		strings.Repeat("(", 100000) + "SELECT 1",
		"SELECT " + strings.Repeat("a[", 100000) + "1",
		"SELECT " + strings.Repeat("CASE WHEN ", 100000) + "1",
	}
	for _, sql := range tests {
		t.Run(sql[:20], func(t *testing.T) {
			start := time.Now()
			_, err := ParseStatement(sql)
			require.Error(t, err)
			require.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// TestScriptLongStatementSet checks that splitting a huge statement set is
// linear.
func TestScriptLongStatementSet(t *testing.T) {
	script := "EXECUTE STATEMENT SET BEGIN\n" + strings.Repeat("INSERT INTO t SELECT ';';\n", 50000) + "END;\nSELECT 1;" + strings.Repeat(";", 100000)
	start := time.Now()
	stmts, err := ParseScript(script)
	require.NoError(t, err)
	require.Len(t, stmts, 2)
	require.Equal(t, ScriptStatement{Text: "SELECT 1", Line: 50003, Col: 1}, stmts[1])
	require.Less(t, time.Since(start), 5*time.Second)
}
