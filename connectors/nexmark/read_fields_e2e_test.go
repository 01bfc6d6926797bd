package nexmark_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/build"
)

// The views of ddl_views.sql read only some fields of the nested rows, so
// the source leaves the others NULL (connectors.SourceSpec.ReadFields).
// The "whole" variant of the views also tests the row for NULL, which
// changes no result but reads the row whole: both must give the same
// results.

var insertInto = regexp.MustCompile(`(?is)^\s*INSERT\s+INTO\s+\S+\s+(.*)$`)

// nexmarkSetup runs the DDL of ddl_gen.sql, ddl_views.sql (whole: the
// variant reading the rows whole) and query file q in env, and returns the
// query of q's INSERT. events at 100 per second of event time.
func nexmarkSetup(t *testing.T, env *core.TableEnvironment, q string, events int, whole bool) string {
	t.Helper()
	var text []string
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql", q + ".sql"} {
		b, err := os.ReadFile(filepath.Join(queriesDir, f))
		if err != nil {
			t.Skipf("nexmark query files not available: %v", err)
		}
		s := string(b)
		if f == "ddl_views.sql" && whole {
			for i, col := range []string{"person", "auction", "bid"} {
				old := fmt.Sprintf("WHERE event_type = %d", i)
				require.Contains(t, s, old)
				s = strings.Replace(s, old, old+" AND "+col+" IS NOT NULL", 1)
			}
		}
		text = append(text, s)
	}
	r := strings.NewReplacer("${TPS}", "100", "${EVENTS_NUM}", fmt.Sprint(events), "${PERSON_PROPORTION}", "1",
		"${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46", "${NEXMARK_TABLE}", "datagen", "${NEXMARK_DIR}", t.TempDir())
	query := ""
	for _, st := range statements(r.Replace(strings.Join(text, ";\n"))) {
		if m := insertInto.FindStringSubmatch(st); m != nil {
			query = m[1]
			continue
		}
		_, err := env.ExecuteSQL(context.Background(), st)
		require.NoError(t, err, st)
	}
	require.NotEmpty(t, query)
	return query
}

// readCount is the number of fields of the nested rows the plan's scans
// produce (a nil entry: all of the column's fields).
func readCount(plan physical.Node) int {
	n := 0
	for scan, rf := range build.ReadFields(plan) {
		for i, f := range scan.Out {
			switch {
			case f.Type.Kind != types.Row:
			case rf == nil || rf[i] == nil:
				n += len(f.Type.Fields)
			default:
				for _, r := range rf[i] {
					if r {
						n++
					}
				}
			}
		}
	}
	return n
}

func sortedRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%v", r)
	}
	sort.Strings(out)
	return out
}

// TestNexmarkReadFieldsBatch runs Nexmark queries in batch mode with the
// views as they are and with views that read the rows whole, and checks
// that the results are the same and that the first variant reads fewer
// fields.
func TestNexmarkReadFieldsBatch(t *testing.T) {
	for _, q := range []string{"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q9", "q11",
		"q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22", "q23"} {
		t.Run(q, func(t *testing.T) {
			var res [2][]string
			var read [2]int
			for i, whole := range []bool{false, true} {
				env := core.NewTableEnvironment(core.InBatchMode())
				query := nexmarkSetup(t, env, q, 3000, whole)
				tab, err := env.SQLQuery(query)
				require.NoError(t, err)
				r, an, err := tab.ExecuteWithStats(context.Background())
				require.NoError(t, err)
				res[i] = sortedRows(r.Rows())
				read[i] = readCount(an.Plan)
			}
			require.Equal(t, res[1], res[0])
			// Queries that read every field of a row, or whose rows pass
			// through a node the analysis does not see through (a window
			// table function, a join), read as many in both.
			require.LessOrEqual(t, read[0], read[1])
			if q == "q0" || q == "q1" || q == "q2" || q == "q7" {
				require.NotEmpty(t, res[1])
				require.Less(t, read[0], read[1], "the plain views read fewer fields")
			}
			t.Logf("%s: %d result rows, %d nested fields generated (%d with the rows read whole)", q, len(res[0]), read[0], read[1])
		})
	}
}

// materialize applies a changelog and returns the live rows, sorted.
func materialize(t *testing.T, res *core.TableResult) []string {
	t.Helper()
	live := map[string]int{}
	for k, row := range res.Changes() {
		key := fmt.Sprintf("%v", row)
		if k.IsRetraction() {
			require.Positive(t, live[key], "retracting a row that is not there: %s", key)
			live[key]--
		} else {
			live[key]++
		}
	}
	require.NoError(t, res.Err())
	var out []string
	for k, c := range live {
		for range c {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestNexmarkReadFieldsStreaming is the same in streaming mode, at
// parallelism 2 (split sources, exchanges) and with mini-batch.
func TestNexmarkReadFieldsStreaming(t *testing.T) {
	for _, q := range []string{"q1", "q5", "q7", "q17", "q20"} {
		t.Run(q, func(t *testing.T) {
			var res [2][]string
			for i, whole := range []bool{false, true} {
				env := core.NewTableEnvironment(core.InStreamingMode())
				for _, s := range []string{"SET 'table.exec.resource.default-parallelism' = '2'",
					"SET 'tablerun.exec.batch-size' = '100'",
					"SET 'table.exec.mini-batch.enabled' = 'true'",
					"SET 'table.exec.mini-batch.allow-latency' = '1s'",
					"SET 'table.exec.mini-batch.size' = '500'"} {
					_, err := env.ExecuteSQL(context.Background(), s)
					require.NoError(t, err)
				}
				query := nexmarkSetup(t, env, q, 3000, whole)
				r, err := env.ExecuteSQL(context.Background(), query)
				require.NoError(t, err)
				res[i] = materialize(t, r)
			}
			require.NotEmpty(t, res[1])
			require.Equal(t, res[1], res[0])
		})
	}
}
