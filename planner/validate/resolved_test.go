package validate

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/logical"
)

// TestCallsCarryDefinition: the validator resolves a function once and
// hands the definition on in logical.Call.Def, so later stages need not
// look the name up again.
func TestCallsCarryDefinition(t *testing.T) {
	v := newTestValidator(t)
	n, err := plan(t, v, "SELECT UPPER(c), a + 1, CHAR_LENGTH(c) > 2 FROM t WHERE a > 0")
	require.NoError(t, err)
	seen := map[string]bool{}
	var walk func(logical.Node)
	walk = func(n logical.Node) {
		var es []logical.Expr
		switch x := n.(type) {
		case *logical.Project:
			es = x.Exprs
		case *logical.Filter:
			es = []logical.Expr{x.Cond}
		}
		for _, e := range es {
			logical.Walk(e, func(x logical.Expr) bool {
				if c, ok := x.(*logical.Call); ok {
					require.NotNil(t, c.Def, "%s has no definition", c.Name)
					require.Equal(t, c.Name, c.Def.Name)
					seen[c.Name] = true
				}
				return true
			})
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	for _, name := range []string{"UPPER", "+", "CHAR_LENGTH", ">"} {
		require.True(t, seen[name], "%s not seen in\n%s", name, logical.Explain(n))
	}
}
