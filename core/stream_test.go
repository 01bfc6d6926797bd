package core

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
)

func newStreamEnv(t *testing.T) (*TableEnvironment, *bytes.Buffer) {
	t.Helper()
	e := NewTableEnvironment(InStreamingMode())
	var out bytes.Buffer
	e.SetOutput(&out, &out)
	return e, &out
}

func TestStreamingGroupByTableau(t *testing.T) {
	e, _ := newStreamEnv(t)
	res := exec(t, e, `SELECT id, COUNT(*) as cnt, COUNT(DISTINCT str) as uv, max(ts) as max_ts
FROM (VALUES
  (1, 'Hello World', TIMESTAMP '2021-04-13 20:12:11.123'),
  (2, 'Hi', TIMESTAMP '2021-04-13 19:12:11.123'),
  (2, 'Hi', TIMESTAMP '2021-04-13 21:12:11.123')) as T(id, str, ts)
GROUP BY id`)
	want := `+----+-------------+----------------------+----------------------+-------------------------+
| op |          id |                  cnt |                   uv |                  max_ts |
+----+-------------+----------------------+----------------------+-------------------------+
| +I |           1 |                    1 |                    1 | 2021-04-13 20:12:11.123 |
| +I |           2 |                    1 |                    1 | 2021-04-13 19:12:11.123 |
| -U |           2 |                    1 |                    1 | 2021-04-13 19:12:11.123 |
| +U |           2 |                    2 |                    1 | 2021-04-13 21:12:11.123 |
+----+-------------+----------------------+----------------------+-------------------------+
Received a total of 4 rows
`
	require.Equal(t, want, printed(t, res))
}

func TestStreamingTableauEmptyAndOne(t *testing.T) {
	e, _ := newStreamEnv(t)
	exec(t, e, "CREATE TABLE t (a INT, s STRING) WITH ('connector' = 'values')")
	require.Equal(t, `+----+-------------+--------------------------------+
| op |           a |                              s |
+----+-------------+--------------------------------+
Received a total of 0 row
`, printed(t, exec(t, e, "SELECT * FROM t")))
	require.Equal(t, `+----+----------------------+
| op |               EXPR$0 |
+----+----------------------+
| +I |                    1 |
+----+----------------------+
Received a total of 1 row
`, printed(t, exec(t, e, "SELECT COUNT(*) FROM (VALUES (1)) AS v(x)")))
}

func TestStreamingChanges(t *testing.T) {
	e, _ := newStreamEnv(t)
	res := exec(t, e, "SELECT k, SUM(v) AS s FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(k, v) GROUP BY k")
	var got []string
	for k, row := range res.Changes() {
		got = append(got, fmt.Sprintf("%s%v", k, row))
	}
	require.Equal(t, []string{"+I[a 1]", "+I[b 2]", "-U[a 1]", "+U[a 4]"}, got)
	require.NoError(t, res.Err())
	// Changes handed every change out and kept none.
	require.Empty(t, res.Rows())
	require.Empty(t, res.RowKinds())
	require.NoError(t, res.Close())

	// Rows and RowKinds collect the whole (bounded) changelog.
	res = exec(t, e, "SELECT k, SUM(v) AS s FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(k, v) GROUP BY k")
	require.Equal(t, []changelog.RowKind{changelog.Insert, changelog.Insert, changelog.UpdateBefore, changelog.UpdateAfter}, res.RowKinds())
	require.Len(t, res.Rows(), 4)
	var collected int
	for range res.Collect() {
		collected++
	}
	require.Equal(t, 4, collected)
	require.NoError(t, res.Close())
}

func TestStreamingChangesStopAndGoOn(t *testing.T) {
	e, _ := newStreamEnv(t)
	res := exec(t, e, "SELECT k, SUM(v) AS s FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(k, v) GROUP BY k")
	var got []string
	for k, row := range res.Changes() {
		got = append(got, fmt.Sprintf("%s%v", k, row))
		if len(got) == 2 {
			break
		}
	}
	for k, row := range res.Changes() {
		got = append(got, fmt.Sprintf("%s%v", k, row))
	}
	require.Equal(t, []string{"+I[a 1]", "+I[b 2]", "-U[a 1]", "+U[a 4]"}, got)
}

func TestStreamingStateTTLEmitsNoChangeUpdates(t *testing.T) {
	e, _ := newStreamEnv(t)
	q := "SELECT k, MAX(v) AS m FROM (VALUES ('a', 5), ('a', 3)) AS t(k, v) GROUP BY k"
	kinds := func() []changelog.RowKind { return exec(t, e, q).RowKinds() }
	require.Equal(t, []changelog.RowKind{changelog.Insert}, kinds())
	exec(t, e, "SET 'table.exec.state.ttl' = '1 h'")
	require.Equal(t, []changelog.RowKind{changelog.Insert, changelog.UpdateBefore, changelog.UpdateAfter}, kinds())
}

func TestStreamingNestedAggregateRetracts(t *testing.T) {
	e, _ := newStreamEnv(t)
	// The inner GROUP BY updates, so the outer one receives retractions.
	res := exec(t, e, `SELECT cnt, COUNT(*) AS n FROM (
  SELECT k, COUNT(*) AS cnt FROM (VALUES ('a'), ('b'), ('a')) AS t(k) GROUP BY k
) GROUP BY cnt`)
	var got []string
	for k, row := range res.Changes() {
		got = append(got, fmt.Sprintf("%s%v", k, row))
	}
	require.Equal(t, []string{
		"+I[1 1]",            // a:1
		"-U[1 1]", "+U[1 2]", // b:1
		"-U[1 2]", "+U[1 1]", // a:1 retracted
		"+I[2 1]", // a:2
	}, got)
}

func TestStreamingPrintSink(t *testing.T) {
	e, out := newStreamEnv(t)
	exec(t, e, "CREATE TABLE p (k STRING, s INT) WITH ('connector' = 'print')")
	exec(t, e, "INSERT INTO p SELECT k, SUM(v) FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(k, v) GROUP BY k")
	require.Equal(t, "+I[a, 1]\n+I[b, 2]\n-U[a, 1]\n+U[a, 4]\n", out.String())
}

func TestStreamingSinkRejectsUpdates(t *testing.T) {
	e, _ := newStreamEnv(t)
	dir := t.TempDir()
	exec(t, e, fmt.Sprintf("CREATE TABLE t (k STRING, c BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", dir))
	exec(t, e, "CREATE TABLE src (k STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
	_, err := e.ExecuteSQL(context.Background(), "INSERT INTO t SELECT k, COUNT(*) AS c FROM src GROUP BY k")
	require.Error(t, err)
	require.Equal(t, "org.apache.flink.table.api.TableException: Table sink 'default_catalog.default_database.t' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS c])", Reason(err))
	// Insert-only queries are fine.
	exec(t, e, "INSERT INTO t SELECT k, CAST(1 AS BIGINT) FROM (VALUES ('a'), ('b')) AS v(k)")
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	data, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	require.NoError(t, err)
	require.Equal(t, "a,1\nb,1\n", string(data))
}

func TestStreamingExplainChangelogMode(t *testing.T) {
	e, _ := newStreamEnv(t)
	exec(t, e, "CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
	res := exec(t, e, "EXPLAIN CHANGELOG_MODE SELECT k, SUM(v) AS s FROM src GROUP BY k")
	text := res.Rows()[0][0].(string)
	require.Contains(t, text, `== Optimized Physical Plan ==
GroupAggregate(groupBy=[k], select=[k, SUM(v) AS s], changelogMode=[I,UB,UA])
+- Exchange(distribution=[hash[k]], changelogMode=[I])
   +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v], changelogMode=[I])
`)
	res = exec(t, e, "EXPLAIN CHANGELOG_MODE SELECT COUNT(*) AS n FROM (SELECT k, SUM(v) AS s FROM src GROUP BY k)")
	text = res.Rows()[0][0].(string)
	require.Contains(t, text, "GroupAggregate(select=[COUNT_RETRACT(*) AS n], changelogMode=[I,UB,UA,D])\n+- Exchange(distribution=[single], changelogMode=[I,UB,UA])")
}

func TestStreamingUnsupportedAndErrors(t *testing.T) {
	e, _ := newStreamEnv(t)
	_, err := e.ExecuteSQL(context.Background(), "SELECT * FROM (VALUES (2), (1)) AS t(x) ORDER BY x")
	require.Error(t, err)
	require.Equal(t, "org.apache.flink.table.api.TableException: Sort on a non-time-attribute field is not supported.", Reason(err))
	_, err = e.ExecuteSQL(context.Background(), "SELECT * FROM (VALUES (2), (1)) AS t(x) ORDER BY x LIMIT 1")
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "not supported yet: "), err.Error())
	// A plain LIMIT over an insert-only input runs.
	require.Len(t, exec(t, e, "SELECT * FROM (VALUES (2), (1), (3)) AS t(x) LIMIT 2").Rows(), 2)
	// UNION ALL of changelogs.
	res := exec(t, e, "SELECT COUNT(*) FROM (VALUES (1), (2)) AS a(x) UNION ALL SELECT 7")
	require.ElementsMatch(t, [][]any{{int64(1)}, {int64(1)}, {int64(2)}, {int64(7)}}, res.Rows())
}

func TestStreamingCancel(t *testing.T) {
	e, _ := newStreamEnv(t)
	exec(t, e, "CREATE TABLE gen (k INT) WITH ('connector' = 'datagen', 'fields.k.min' = '1', 'fields.k.max' = '3')")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := e.ExecuteSQL(ctx, "SELECT k, COUNT(*) AS c FROM gen GROUP BY k")
	if err != nil {
		// The unbounded datagen source may not have landed yet.
		t.Skipf("unbounded datagen: %v", err)
	}
	n := 0
	for range res.Changes() {
		n++
		if n == 100 {
			break
		}
	}
	require.Equal(t, 100, n)
	require.NoError(t, res.Close())
}

// TestStreamingMatchesBatch is the oracle: the changelog of a streaming
// GROUP BY, materialized, equals the batch result of the same query.
func TestStreamingMatchesBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var rows []string
	for range 300 {
		v := fmt.Sprint(r.IntN(100) - 20)
		if r.IntN(10) == 0 {
			v = "CAST(NULL AS INT)"
		}
		rows = append(rows, fmt.Sprintf("(%d, %s, 's%d')", r.IntN(12), v, r.IntN(5)))
	}
	values := "(VALUES " + strings.Join(rows, ", ") + ") AS t(k, v, s)"
	queries := []string{
		"SELECT k, COUNT(*), SUM(v), MIN(v), MAX(s), COUNT(DISTINCT s), AVG(v) FROM " + values + " GROUP BY k",
		"SELECT COUNT(*), SUM(v), MAX(v) FROM " + values,
		"SELECT c, COUNT(*), SUM(sv), MAX(mx) FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(v) AS mx FROM " + values + " GROUP BY k) GROUP BY c",
		"SELECT k, SUM(v) FROM " + values + " WHERE v > 10 GROUP BY k HAVING COUNT(*) > 2",
	}
	for _, q := range queries {
		var want []string
		for _, bs := range []string{"1", "3", "4096"} {
			batch := NewTableEnvironment(InBatchMode().WithOption("table.exec.batch-size", bs))
			stream := NewTableEnvironment(InStreamingMode().WithOption("table.exec.batch-size", bs))
			b := canon(exec(t, batch, q).Rows())
			res := exec(t, stream, q)
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
			var got []string
			for k, n := range live {
				for range n {
					got = append(got, k)
				}
			}
			sort.Strings(got)
			require.Equal(t, b, got, "%s (batch size %s)", q, bs)
			if want == nil {
				want = kindsAndRows(res)
			} else {
				require.Equal(t, want, kindsAndRows(res), "changelog depends on the batch size %s", bs)
			}
		}
	}
}

func canon(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%v", r)
	}
	sort.Strings(out)
	return out
}

func kindsAndRows(res *TableResult) []string {
	kinds := res.RowKinds()
	out := make([]string, len(kinds))
	for i, row := range res.Rows() {
		out[i] = fmt.Sprintf("%s%v", kinds[i], row)
	}
	return out
}

// TestStreamingJoinMatchesBatch checks streaming regular joins (inner and
// outer, over insert-only and updating inputs) against batch mode.
func TestStreamingJoinMatchesBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	gen := func(n, keys int) string {
		var rows []string
		for range n {
			rows = append(rows, fmt.Sprintf("(%d, %d)", r.IntN(keys), r.IntN(50)))
		}
		return "(VALUES " + strings.Join(rows, ", ") + ")"
	}
	l, rr := gen(60, 8)+" AS l(k, a)", gen(50, 10)+" AS r(k, b)"
	agg := "(SELECT k, COUNT(*) AS c, MAX(b) AS mb FROM " + gen(70, 6) + " AS x(k, b) GROUP BY k) AS g"
	queries := []string{
		"SELECT * FROM " + l + " JOIN " + rr + " ON l.k = r.k",
		"SELECT * FROM " + l + " LEFT JOIN " + rr + " ON l.k = r.k AND l.a < r.b",
		"SELECT * FROM " + l + " RIGHT JOIN " + rr + " ON l.k = r.k",
		"SELECT * FROM " + l + " FULL JOIN " + rr + " ON l.k = r.k + 1",
		"SELECT * FROM " + l + " JOIN " + agg + " ON l.k = g.k",
		"SELECT * FROM " + l + " FULL JOIN " + agg + " ON l.k = g.c",
		"SELECT g.k, COUNT(*) FROM " + l + " LEFT JOIN " + agg + " ON l.k = g.k GROUP BY g.k",
		"SELECT * FROM " + l + " JOIN " + rr + " ON l.a > r.b + 40",
	}
	for _, q := range queries {
		batch := NewTableEnvironment(InBatchMode())
		stream := NewTableEnvironment(InStreamingMode())
		want := canon(exec(t, batch, q).Rows())
		res := exec(t, stream, q)
		live := map[string]int{}
		for k, row := range res.Changes() {
			key := fmt.Sprintf("%v", row)
			if k.IsRetraction() {
				require.Positive(t, live[key], "%s: retracting a row that is not there: %s", q, key)
				live[key]--
			} else {
				live[key]++
			}
		}
		require.NoError(t, res.Err())
		var got []string
		for k, n := range live {
			for range n {
				got = append(got, k)
			}
		}
		sort.Strings(got)
		require.Equal(t, want, got, q)
	}
}

func TestStreamingScalarSubquery(t *testing.T) {
	q := "SELECT k, v FROM (VALUES (1, 10), (2, 30), (3, 20)) AS t(k, v) WHERE v > (SELECT AVG(v) FROM (VALUES (10), (20), (30)) AS s(v))"
	batch := canon(exec(t, NewTableEnvironment(InBatchMode()), q).Rows())
	e, _ := newStreamEnv(t)
	res := exec(t, e, q)
	live := map[string]int{}
	for k, row := range res.Changes() {
		if k.IsRetraction() {
			live[fmt.Sprint(row)]--
		} else {
			live[fmt.Sprint(row)]++
		}
	}
	var got []string
	for k, n := range live {
		for range n {
			got = append(got, k)
		}
	}
	sort.Strings(got)
	require.Equal(t, batch, got)
	// A job error surfaces from ExecuteSQL when it comes before the first
	// change, else from Err once the changes are read.
	res, err := e.ExecuteSQL(context.Background(), "SELECT (SELECT v FROM (VALUES (1), (2)) AS s(v))")
	if err == nil {
		res.Rows()
		err = res.Err()
	}
	require.Error(t, err)
	require.Contains(t, err.Error(), "SingleValueAggFunction received more than one element.")
}

func TestStreamingSemiAntiJoinMatchesBatch(t *testing.T) {
	l := "(VALUES (1, 10), (2, 20), (3, 30), (4, 40), (CAST(NULL AS INT), 50), (2, 21)) AS l(k, a)"
	r := "(VALUES (2, 1), (3, 2), (3, 3), (5, 4)) AS r(k, b)"
	agg := "(SELECT k, COUNT(*) AS c FROM (VALUES (1), (2), (2), (3)) AS x(k) GROUP BY k) AS g"
	queries := []string{
		"SELECT * FROM " + l + " WHERE k IN (SELECT k FROM " + r + ")",
		"SELECT * FROM " + l + " WHERE EXISTS (SELECT * FROM " + r + " WHERE r.k = l.k AND r.b > 1)",
		"SELECT * FROM " + l + " WHERE NOT EXISTS (SELECT * FROM " + r + " WHERE r.k = l.k)",
		"SELECT * FROM " + l + " WHERE k IN (SELECT k FROM " + agg + " WHERE c > 1)",
		"SELECT * FROM " + l + " WHERE NOT EXISTS (SELECT * FROM " + agg + " WHERE g.k = l.k AND g.c = 1)",
		"SELECT * FROM " + agg + " WHERE EXISTS (SELECT * FROM " + r + " WHERE r.k = g.k)",
	}
	for _, q := range queries {
		want := canon(exec(t, NewTableEnvironment(InBatchMode()), q).Rows())
		res := exec(t, NewTableEnvironment(InStreamingMode()), q)
		live := map[string]int{}
		for k, row := range res.Changes() {
			key := fmt.Sprintf("%v", row)
			if k.IsRetraction() {
				require.Positive(t, live[key], "%s: retracting a row that is not there: %s", q, key)
				live[key]--
			} else {
				live[key]++
			}
		}
		require.NoError(t, res.Err())
		var got []string
		for k, n := range live {
			for range n {
				got = append(got, k)
			}
		}
		sort.Strings(got)
		require.Len(t, got, len(want), q)
		if len(want) > 0 {
			require.Equal(t, want, got, q)
		}
	}
}

func TestToDataStreamAndChangelogStream(t *testing.T) {
	e, _ := newStreamEnv(t)
	ctx := context.Background()
	agg, err := e.SQLQuery("SELECT k, COUNT(*) AS c FROM (VALUES ('a'), ('a')) AS t(k) GROUP BY k")
	require.NoError(t, err)
	_, err = agg.ToDataStream(ctx)
	require.Error(t, err)
	require.Equal(t, "org.apache.flink.table.api.TableException: Table sink '*anonymous_datastream_sink$1*' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[EXPR$0], select=[EXPR$0 AS k, COUNT(*) AS c])", Reason(err))
	res, err := agg.ToChangelogStream(ctx)
	require.NoError(t, err)
	require.Equal(t, []changelog.RowKind{changelog.Insert, changelog.UpdateBefore, changelog.UpdateAfter}, res.RowKinds())

	plain, err := e.SQLQuery("SELECT k FROM (VALUES ('a'), ('b')) AS t(k)")
	require.NoError(t, err)
	res, err = plain.ToDataStream(ctx)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"a"}, {"b"}}, res.Rows())
}
