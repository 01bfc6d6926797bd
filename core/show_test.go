package core

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/ast"
)

func TestLike(t *testing.T) {
	cases := []struct {
		s, p string
		fold bool
		want bool
	}{
		{"orders", "ord%", false, true},
		{"orders", "_rders", false, true},
		{"orders", "ORD%", false, false},
		{"orders", "ORD%", true, true},
		{"a_b", `a\_b`, false, true},
		{"axb", `a\_b`, false, false},
		{"", "%", false, true},
		{"abc", "a%c%", false, true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, likeMatch(c.s, c.p, c.fold), "%q LIKE %q", c.s, c.p)
	}
	require.Equal(t, []string{"Tb", "ta", "tc"}, filterLike([]string{"tc", "ta", "Tb", "x"}, &ast.ShowLike{Pattern: "t%", ILike: true}))
	require.Equal(t, []string{"x"}, filterLike([]string{"tc", "x"}, &ast.ShowLike{Pattern: "t%", Not: true}))
}

func TestStatementName(t *testing.T) {
	require.Equal(t, "ALTER TABLE", statementName(&ast.AlterTable{}))
	require.Equal(t, "CREATE FUNCTION", statementName(&ast.CreateFunction{}))
	require.Equal(t, "ALTER MODIFY", statementName(&ast.AlterSchema{Modify: true}))
	require.Equal(t, "statement", statementName(nil))
}
