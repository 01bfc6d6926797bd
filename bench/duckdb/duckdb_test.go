package duckdb

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/bench/gen"
)

// TestDuckDBGroupBySumMatchesReference checks the harness on a small input:
// DuckDB's groups and sums equal a Go map's.
func TestDuckDBGroupBySumMatchesReference(t *testing.T) {
	ks, vs, err := gen.GroupByData(10_000, 100, Seed)
	require.NoError(t, err)
	db := openDuckDB(t)
	loadTable(t, db, &groupByInput{keys: ks, values: vs})
	want := 0.0
	groups := map[int64]bool{}
	for i, k := range ks {
		want += vs[i]
		groups[k] = true
	}
	n, total := consumeGroupBySum(t, db, groupBySumQuery)
	require.Equal(t, len(groups), n)
	require.InDelta(t, want, total, math.Abs(want)*1e-9)
}
