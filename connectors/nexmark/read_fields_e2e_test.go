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
	"github.com/tablerun/tablerun/internal/sqltest"
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

// readsEverything: the Nexmark queries that read every field of the rows
// they use (they output them all), so both variants read as many.
var readsEverything = map[string]bool{"q18": true, "q19": true, "q20": true}

// batchFields is what the plain views generate in batch mode for queries
// whose rows pass through windows and joins (a window table function over
// a Calc of every field of the row, then an aggregate or a join): the
// fields the query uses plus the three dateTime fields per scan.
var batchFields = map[string]int{"q5": 8, "q7": 11, "q8": 9}

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
			checkReadCounts(t, q, read)
			if n, ok := batchFields[q]; ok {
				require.NotEmpty(t, res[1])
				require.Equal(t, n, read[0])
			}
			t.Logf("%s: %d result rows, %d nested fields generated (%d with the rows read whole)", q, len(res[0]), read[0], read[1])
		})
	}
}

// checkReadCounts: the plain views read fewer fields than the whole ones,
// as many for the queries that read every field.
func checkReadCounts(t *testing.T, q string, read [2]int) {
	t.Helper()
	if readsEverything[q] {
		require.Equal(t, read[1], read[0])
		return
	}
	require.Less(t, read[0], read[1], "the plain views read fewer fields")
}

// streamingEnv is a streaming environment at parallelism 2 (split
// sources, exchanges), small batches and mini-batch on.
func streamingEnv(t *testing.T) *core.TableEnvironment {
	t.Helper()
	env := core.NewTableEnvironment(core.InStreamingMode())
	for _, s := range []string{"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'tablerun.exec.batch-size' = '100'",
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '1s'",
		"SET 'table.exec.mini-batch.size' = '500'"} {
		_, err := env.ExecuteSQL(context.Background(), s)
		require.NoError(t, err)
	}
	return env
}

// runStreaming runs query in env and returns its live rows at the end and
// the number of nested fields its scans generate.
func runStreaming(t *testing.T, env *core.TableEnvironment, query string) ([]string, int) {
	t.Helper()
	tab, err := env.SQLQuery(query)
	require.NoError(t, err, query)
	r, an, err := tab.ExecuteWithStats(context.Background())
	require.NoError(t, err, query)
	return sqltest.Materialize(t, r), readCount(an.Plan)
}

// TestNexmarkReadFieldsStreaming is the same in streaming mode, at
// parallelism 2 (split sources, exchanges) and with mini-batch.
func TestNexmarkReadFieldsStreaming(t *testing.T) {
	for _, q := range []string{"q1", "q3", "q4", "q5", "q7", "q8", "q9", "q11", "q15", "q16",
		"q17", "q18", "q19", "q20", "q21", "q22"} {
		t.Run(q, func(t *testing.T) {
			var res [2][]string
			var read [2]int
			for i, whole := range []bool{false, true} {
				env := streamingEnv(t)
				query := nexmarkSetup(t, env, q, 3000, whole)
				res[i], read[i] = runStreaming(t, env, query)
			}
			require.NotEmpty(t, res[1])
			require.Equal(t, res[1], res[0])
			checkReadCounts(t, q, read)
		})
	}
}

// throughQueries keep the ROW columns of the Nexmark table through
// windows, joins, unions, ranks and OVER aggregates and read some of
// their fields above them, over the views of throughViews.
var throughQueries = []struct {
	name, query string
	batchOnly   bool
}{
	{"window table function", "SELECT window_start, window_end, b.auction, b.price " +
		"FROM TABLE(TUMBLE(TABLE bidrow, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))", false},
	{"window aggregate", "SELECT b.auction, COUNT(*), MAX(b.price), window_start " +
		"FROM TABLE(HOP(TABLE bidrow, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY b.auction, window_start, window_end", false},
	{"join", "SELECT x.b.auction, x.b.price, y.a.seller FROM bidrow x JOIN auctionrow y ON x.b.auction = y.a.id", false},
	{"join with a condition", "SELECT x.b.auction, x.b.bidder, y.a.itemName FROM bidrow x JOIN auctionrow y " +
		"ON x.b.auction = y.a.id AND x.b.price > y.a.initialBid", false},
	{"left join", "SELECT y.a.id, y.a.seller, x.b.price FROM auctionrow y LEFT JOIN bidrow x " +
		"ON x.b.auction = y.a.id AND x.b.price > 20000000", false},
	{"interval join", "SELECT x.b.auction, x.b.price, y.a.seller FROM bidrow x JOIN auctionrow y " +
		"ON x.b.auction = y.a.id AND x.`dateTime` BETWEEN y.`dateTime` AND y.`dateTime` + INTERVAL '5' SECOND", false},
	{"window join", "SELECT x.b.auction, x.b.price, y.a.seller, x.window_start FROM " +
		"(SELECT * FROM TABLE(TUMBLE(TABLE bidrow, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))) x JOIN " +
		"(SELECT * FROM TABLE(TUMBLE(TABLE auctionrow, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))) y " +
		"ON x.b.auction = y.a.id AND x.window_start = y.window_start AND x.window_end = y.window_end", false},
	{"semi join", "SELECT b.auction, b.price FROM bidrow WHERE b.auction IN (SELECT a.id FROM auctionrow WHERE a.category = 10)", false},
	{"union", "SELECT b.auction, b.price FROM (SELECT b FROM bidrow UNION ALL SELECT b FROM bidrow WHERE b.price > 10000000)", false},
	{"rank", "SELECT b.auction, b.price, b.bidder, rn FROM (SELECT b, ROW_NUMBER() OVER " +
		"(PARTITION BY b.auction ORDER BY b.price DESC, `dateTime`) AS rn FROM bidrow) WHERE rn <= 2", false},
	{"deduplicate", "SELECT b.auction, b.price FROM (SELECT b, ROW_NUMBER() OVER " +
		"(PARTITION BY b.bidder ORDER BY `dateTime` DESC) AS rn FROM bidrow) WHERE rn = 1", false},
	{"over aggregate", "SELECT b.auction, b.price, COUNT(*) OVER (PARTITION BY b.bidder ORDER BY `dateTime` " +
		"ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bidrow", false},
	{"sort limit", "SELECT b.auction, b.price FROM bidrow ORDER BY b.price DESC, `dateTime` LIMIT 20", true},
}

// throughViews creates the views of throughQueries in env: the bid and
// auction rows of the Nexmark table whole (whole: also tested for NULL,
// which reads the rows whole).
func throughViews(t *testing.T, env *core.TableEnvironment, whole bool) {
	t.Helper()
	_ = nexmarkSetup(t, env, "q0", 3000, false) // the datagen table
	for _, v := range []struct{ name, col, alias, typ string }{
		{"bidrow", "bid", "b", "2"}, {"auctionrow", "auction", "a", "1"}} {
		st := fmt.Sprintf("CREATE VIEW %s AS SELECT event_type AS e, %s AS %s, `dateTime` FROM datagen WHERE event_type = %s",
			v.name, v.col, v.alias, v.typ)
		if whole {
			st += " AND " + v.col + " IS NOT NULL"
		}
		_, err := env.ExecuteSQL(context.Background(), st)
		require.NoError(t, err, st)
	}
}

// TestNexmarkReadFieldsThroughNodes runs throughQueries with the rows read
// in part and whole, in batch mode and in streaming mode at parallelism 2
// with mini-batch: the results must be the same and the first variant
// must read fewer fields.
func TestNexmarkReadFieldsThroughNodes(t *testing.T) {
	for _, batch := range []bool{true, false} {
		for _, c := range throughQueries {
			if c.batchOnly && !batch {
				continue
			}
			name := "streaming/" + c.name
			if batch {
				name = "batch/" + c.name
			}
			t.Run(name, func(t *testing.T) {
				var res [2][]string
				var read [2]int
				for i, whole := range []bool{false, true} {
					var env *core.TableEnvironment
					if batch {
						env = core.NewTableEnvironment(core.InBatchMode())
					} else {
						env = streamingEnv(t)
					}
					throughViews(t, env, whole)
					if batch {
						tab, err := env.SQLQuery(c.query)
						require.NoError(t, err, c.query)
						r, an, err := tab.ExecuteWithStats(context.Background())
						require.NoError(t, err, c.query)
						res[i], read[i] = sortedRows(r.Rows()), readCount(an.Plan)
					} else {
						res[i], read[i] = runStreaming(t, env, c.query)
					}
				}
				require.NotEmpty(t, res[1])
				require.Equal(t, res[1], res[0])
				require.Less(t, read[0], read[1], "the plain views read fewer fields")
				t.Logf("%d result rows, %d nested fields generated (%d with the rows read whole)", len(res[0]), read[0], read[1])
			})
		}
	}
}
