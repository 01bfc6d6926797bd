package parser

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/ast"
)

func TestShowEffectiveConfiguration(t *testing.T) {
	cases := []struct {
		sql string
		err string
	}{
		{"SHOW EFFECTIVE CONFIGURATION", ""},
		{"show effective configuration;", ""},
		{"SHOW EFFECTIVE", `Encountered "<EOF>"`},
		{"SHOW EFFECTIVE OPTIONS", `"OPTIONS"`},
		{"SHOW EFFECTIVE CONFIGURATION x", `"x"`},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			st, err := ParseStatement(c.sql)
			if c.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			require.IsType(t, &ast.ShowEffectiveConfiguration{}, st)
		})
	}
}
