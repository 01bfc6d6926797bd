package connectors

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
)

func legacyTable(opts map[string]string) *catalog.ResolvedTable {
	return &catalog.ResolvedTable{
		ID: catalog.ObjectIdentifier{Catalog: "c", Database: "d", Object: "side"},
		Table: &catalog.Table{
			Columns: []catalog.Column{{Name: "key", Type: types.BigIntT}, {Name: "value", Type: types.StringT}},
			Options: opts,
		},
	}
}

func TestLegacyDescriptor(t *testing.T) {
	tests := []struct {
		name    string
		opts    map[string]string
		want    map[string]string
		wantErr string
	}{
		{"filesystem", map[string]string{"connector.type": "filesystem", "connector.path": "file:///data/side.txt", "format.type": "csv"},
			map[string]string{"connector": "filesystem", "path": "/data/side.txt", "format": "csv"}, ""},
		{"kafka", map[string]string{"connector.type": "kafka"}, nil, "not supported yet: the legacy connector descriptor 'connector.type' = 'kafka'"},
		{"unknown key", map[string]string{"connector.type": "filesystem", "connector.path": "/x", "format.type": "csv", "update-mode": "append"},
			nil, "not supported yet: legacy connector option(s) update-mode of table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := legacyTable(tt.opts)
			require.True(t, isLegacy(tbl))
			got, err := translateLegacy(tbl)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got.Table.Options)
			require.Equal(t, "csv", tbl.Table.Options["format.type"], "the catalog's table is unchanged")
		})
	}
	require.False(t, isLegacy(legacyTable(map[string]string{"connector": "filesystem", "connector.type": "x"})))
}
