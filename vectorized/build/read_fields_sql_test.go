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
	rf, plan := planReadFieldsAll(t, env, query)
	require.Len(t, rf, 1, plan)
	return rf[0], plan
}

// planReadFieldsAll runs query and returns the read fields of its scans
// (in preorder) and the plan's text.
func planReadFieldsAll(t *testing.T, env *core.TableEnvironment, query string) ([][][]bool, string) {
	t.Helper()
	tab, err := env.SQLQuery(query)
	require.NoError(t, err, query)
	_, an, err := tab.ExecuteWithStats(context.Background())
	require.NoError(t, err, query)
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
	all := build.ReadFields(an.Plan)
	out := make([][][]bool, len(scans))
	for i, s := range scans {
		rf, ok := all[s]
		require.True(t, ok)
		out[i] = rf
	}
	return out, physical.ExplainStream(an.Plan, physical.ExplainOptions{})
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

// TestReadFieldsPlannedThroughNodes checks that a ROW column passing
// through windows, joins, unions, ranks and OVER aggregates keeps its
// field-level demand, in streaming mode (mini-batch on) and in batch mode,
// where the planner projects the scan down to the columns it reads.
func TestReadFieldsPlannedThroughNodes(t *testing.T) {
	person, auction := fieldSet(8, 6), fieldSet(10, 5) // the dateTime fields
	// bid reads the given bid fields of the scan of all columns; pbid of
	// the scan projected to (event_type, bid); obid of the scan of bid
	// alone; nil: every column read whole.
	bid := func(fs ...int) [][]bool { return [][]bool{nil, person, auction, fieldSet(7, fs...)} }
	pbid := func(fs ...int) [][]bool { return [][]bool{nil, fieldSet(7, fs...)} }
	obid := func(fs ...int) [][]bool { return [][]bool{fieldSet(7, fs...)} }
	whole := [][]bool{nil, person, auction, nil}
	cases := []struct {
		query         string
		stream, batch [][][]bool // per scan
	}{
		// WindowTableFunction
		{"SELECT window_start, b.price FROM TABLE(TUMBLE(TABLE bidrow, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))",
			[][][]bool{bid(2, 5)}, [][][]bool{bid(2, 5)}},
		{"SELECT window_start, b FROM TABLE(TUMBLE(TABLE bidrow, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))",
			[][][]bool{whole}, [][][]bool{whole}},
		// Nexmark q5's windows: in batch mode a WindowTableFunction over a
		// Calc of every bid field, then a HashAggregate.
		{"SELECT auction, COUNT(*) FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
			[][][]bool{bid(0, 5)}, [][][]bool{bid(0, 5)}},
		// Joins
		{"SELECT x.b.price FROM bidrow x JOIN (VALUES (2)) AS v(k) ON x.e = v.k",
			[][][]bool{bid(2, 5)}, [][][]bool{pbid(2)}},
		{"SELECT x.b.price, y.b.url FROM bidrow x JOIN bidrow y ON x.e = y.e AND x.b.bidder = y.b.bidder",
			[][][]bool{bid(1, 2, 5), bid(1, 4, 5)}, [][][]bool{pbid(1, 2), pbid(1, 4)}},
		{"SELECT x.b.price, y.b.url FROM bidrow x LEFT JOIN bidrow y ON x.e = y.e AND x.b.bidder < y.b.bidder",
			[][][]bool{bid(1, 2, 5), bid(1, 4, 5)}, [][][]bool{pbid(1, 2), pbid(1, 4)}},
		{"SELECT b.price FROM bidrow WHERE e IN (SELECT e FROM bidrow WHERE b.url IS NOT NULL)",
			[][][]bool{bid(2, 5), bid(4, 5)}, [][][]bool{pbid(2), pbid(4)}},
		{"SELECT x.b.price FROM bidrow x WHERE NOT EXISTS (SELECT 1 FROM bidrow y WHERE y.e = x.e AND y.b.url IS NULL)",
			[][][]bool{bid(2, 5), bid(4, 5)}, [][][]bool{pbid(2), pbid(4)}},
		// The row itself reaches the output.
		{"SELECT x.b, y.b.url FROM bidrow x JOIN bidrow y ON x.e = y.e",
			[][][]bool{whole, bid(4, 5)}, [][][]bool{nil, pbid(4)}},
		// Union
		{"SELECT b.price FROM (SELECT b FROM bidrow UNION ALL SELECT b FROM bidrow)",
			[][][]bool{bid(2, 5), bid(2, 5)}, [][][]bool{obid(2), obid(2)}},
		{"SELECT b.price FROM (SELECT b FROM bidrow UNION ALL SELECT b FROM bidrow WHERE b IS NOT NULL)",
			[][][]bool{bid(2, 5), whole}, [][][]bool{obid(2), nil}},
		// Rank, deduplication, OVER aggregates, LIMIT
		{"SELECT b.price FROM (SELECT b, ROW_NUMBER() OVER (PARTITION BY e ORDER BY b.price DESC) AS rn FROM bidrow) WHERE rn <= 3",
			[][][]bool{bid(2, 5)}, [][][]bool{pbid(2)}},
		{"SELECT b.url, rn FROM (SELECT b, ROW_NUMBER() OVER (PARTITION BY e ORDER BY b.price DESC) AS rn FROM bidrow) WHERE rn <= 3",
			[][][]bool{bid(2, 4, 5)}, [][][]bool{pbid(2, 4)}},
		{"SELECT b.price FROM (SELECT b, ROW_NUMBER() OVER (PARTITION BY e ORDER BY `dateTime` DESC) AS rn FROM bidrow) WHERE rn = 1",
			[][][]bool{bid(2, 5)}, [][][]bool{bid(2, 5)}},
		{"SELECT b.price, COUNT(*) OVER (PARTITION BY e ORDER BY `dateTime` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bidrow",
			[][][]bool{bid(2, 5)}, [][][]bool{bid(2, 5)}},
		{"SELECT b.price FROM bidrow LIMIT 3", [][][]bool{bid(2, 5)}, [][][]bool{obid(2)}},
	}
	for _, batch := range []bool{false, true} {
		env := nexmarkEnv(t)
		ctx := context.Background()
		if batch {
			_, err := env.ExecuteSQL(ctx, "SET 'execution.runtime-mode' = 'batch'")
			require.NoError(t, err)
		}
		_, err := env.ExecuteSQL(ctx, "CREATE VIEW bidrow AS SELECT event_type AS e, bid AS b, `dateTime` FROM datagen")
		require.NoError(t, err)
		for _, c := range cases {
			want := c.stream
			if batch {
				want = c.batch
			}
			rf, plan := planReadFieldsAll(t, env, c.query)
			require.Equal(t, want, rf, "batch=%v %s\n%s", batch, c.query, plan)
		}
	}
	// Batch mode only: ORDER BY with LIMIT (a SortLimit).
	env := nexmarkEnv(t)
	_, err := env.ExecuteSQL(context.Background(), "SET 'execution.runtime-mode' = 'batch'")
	require.NoError(t, err)
	rf, plan := planReadFields(t, env, "SELECT bid.price FROM datagen ORDER BY `dateTime` DESC, bid.url LIMIT 3")
	require.Equal(t, bid(2, 4, 5), rf, plan)
}
