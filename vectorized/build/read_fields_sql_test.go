package build_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/build"
)

// nexmarkEnv is a streaming environment with the Nexmark table and views
// (ddl_gen.sql, ddl_views.sql; 1,000 events) and mini-batch on.
func nexmarkEnv(t *testing.T) *core.TableEnvironment {
	t.Helper()
	ctx := context.Background()
	env := core.NewTableEnvironment(core.InStreamingMode())
	dir := filepath.Join("..", "..", "..", "shared", "nexmark", "queries")
	r := strings.NewReplacer("${TPS}", "10000", "${EVENTS_NUM}", "1000", "${PERSON_PROPORTION}", "1",
		"${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46", "${NEXMARK_TABLE}", "datagen")
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Skipf("nexmark query files not available: %v", err)
		}
		for _, st := range strings.Split(r.Replace(string(b)), ";") {
			if st = strings.TrimSpace(st); st != "" {
				_, err := env.ExecuteSQL(ctx, st)
				require.NoError(t, err, st)
			}
		}
	}
	for _, st := range []string{"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '2s'", "SET 'table.exec.mini-batch.size' = '5000'"} {
		_, err := env.ExecuteSQL(ctx, st)
		require.NoError(t, err)
	}
	return env
}

// planReadFields runs query and returns the read fields of its one scan
// and the plan's text.
func planReadFields(t *testing.T, env *core.TableEnvironment, query string) ([][]bool, string) {
	t.Helper()
	tab, err := env.SQLQuery(query)
	require.NoError(t, err)
	_, an, err := tab.ExecuteWithStats(context.Background())
	require.NoError(t, err)
	var scans []*physical.TableSourceScan
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		if s, ok := n.(*physical.TableSourceScan); ok {
			scans = append(scans, s)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(an.Plan)
	require.Len(t, scans, 1)
	rf, ok := build.ReadFields(an.Plan)[scans[0]]
	require.True(t, ok)
	return rf, physical.ExplainStream(an.Plan, physical.ExplainOptions{})
}

func fieldSet(n int, set ...int) []bool {
	b := make([]bool, n)
	for _, i := range set {
		b[i] = true
	}
	return b
}

// TestReadFieldsPlannedNexmark checks the analysis on the plans the
// planner makes for queries over the Nexmark table.
func TestReadFieldsPlannedNexmark(t *testing.T) {
	env := nexmarkEnv(t)
	person, auction := fieldSet(8, 6), fieldSet(10, 5) // the dateTime fields
	cases := []struct {
		query string
		want  [][]bool
	}{
		// Calc, MiniBatchAssigner, WatermarkAssigner, Calc, scan.
		{"SELECT auction, COUNT(*), SUM(price) FROM bid GROUP BY auction",
			[][]bool{nil, person, auction, fieldSet(7, 0, 2, 5)}},
		{"SELECT auction, bidder, price, `dateTime`, extra FROM bid",
			[][]bool{nil, person, auction, fieldSet(7, 0, 1, 2, 5, 6)}},
		{"SELECT id, name FROM person WHERE city = 'Phoenix'",
			[][]bool{nil, fieldSet(8, 0, 1, 4, 6), auction, fieldSet(7, 5)}},
		// The whole struct is read.
		{"SELECT bid FROM datagen", [][]bool{nil, person, auction, nil}},
		{"SELECT event_type FROM datagen WHERE bid IS NULL", [][]bool{nil, person, auction, nil}},
		{"SELECT bid.price FROM datagen WHERE bid IS NOT NULL", [][]bool{nil, person, auction, nil}},
		{"SELECT x.b FROM (SELECT bid AS b, event_type AS e FROM datagen) x JOIN (VALUES (2)) AS v(k) ON x.e = v.k",
			[][]bool{nil, person, auction, nil}},
	}
	for _, c := range cases {
		rf, plan := planReadFields(t, env, c.query)
		require.Equal(t, c.want, rf, "%s\n%s", c.query, plan)
	}
}
