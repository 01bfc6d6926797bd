package function_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShadowsBuiltinAggregate(t *testing.T) {
	tests := []struct {
		name     string
		create   bool
		shadowed bool
		key      string
	}{
		{name: "sum", create: false, shadowed: false},
		{name: "SUM", create: true, shadowed: true, key: "`sum`"},
		{name: "upper", create: true, shadowed: true, key: "`upper`"},
		{name: "my_fn", create: true, shadowed: true, key: "my_fn"},
		{name: "count", create: false, shadowed: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.create {
				require.NoError(t, f.fc.CreateTemporarySystemFunction(tt.name, inline("temp system"), false))
			}
			require.Equal(t, tt.shadowed, f.fc.ShadowsBuiltin(tt.name))
			if tt.create {
				def, err := f.fc.Resolve([]string{tt.name})
				require.NoError(t, err)
				require.Equal(t, tt.key, def.Name, "never a call key an executor takes for a built-in")
				require.NoError(t, f.fc.DropTemporarySystemFunction(tt.name, false))
				require.False(t, f.fc.ShadowsBuiltin(tt.name))
			}
		})
	}
}
