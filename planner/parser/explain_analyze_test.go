package parser

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/ast"
)

func TestExplainAnalyze(t *testing.T) {
	tests := []struct {
		sql     string
		analyze bool
	}{
		{"EXPLAIN ANALYZE SELECT 1", true},
		{"explain analyze INSERT INTO t SELECT 1", true},
		{"EXPLAIN SELECT 1", false},
		{"EXPLAIN PLAN FOR SELECT 1", false},
	}
	for _, tc := range tests {
		st, err := ParseStatement(tc.sql)
		require.NoError(t, err, tc.sql)
		ex, ok := st.(*ast.Explain)
		require.True(t, ok, tc.sql)
		require.Equal(t, tc.analyze, ex.Analyze, tc.sql)
		require.NotNil(t, ex.Statement, tc.sql)
	}
}
