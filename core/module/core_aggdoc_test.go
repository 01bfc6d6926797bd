package module

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
)

func TestCoreAggregateDocs(t *testing.T) {
	c := NewCore(function.Builtins())
	names := c.ListFunctions()
	for _, name := range []string{"COUNT", "SUM", "AVG", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE",
		"STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE", "LISTAGG"} {
		t.Run(name, func(t *testing.T) {
			require.Contains(t, names, strings.ToLower(name))
			d, ok := c.Function(strings.ToLower(name))
			require.True(t, ok)
			require.Equal(t, function.Aggregate, d.Kind)
			require.NotEqual(t, "Built-in aggregate function.", d.Doc.Summary)
			require.NotEmpty(t, d.Doc.Example)
		})
	}
}
