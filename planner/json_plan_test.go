package planner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/physical"
)

func TestExecutionPlanJSON(t *testing.T) {
	rt := &catalog.ResolvedTable{ID: catalog.ObjectIdentifier{Catalog: "c", Database: "d", Object: "orders"}, Table: &catalog.Table{}}
	scan := &physical.TableSourceScan{Table: rt, Out: types.Schema{{Name: "a", Type: types.IntT}}}
	tests := []struct {
		name    string
		plan    physical.Node
		want    string
		wantErr string
	}{
		{"source", scan, "{\n  \"nodes\" : [ {\n    \"id\" : 1,\n    \"type\" : \"Source: orders[1]\",\n    \"pact\" : \"Data Source\",\n" +
			"    \"contents\" : \"[1]:TableSourceScan(table=[[c, d, orders]], fields=[a])\",\n    \"parallelism\" : 1\n  } ]\n}", ""},
		{"sink", &physical.Sink{Input: scan, Table: rt}, "", "not supported yet: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExecutionPlanJSON(tt.plan)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
