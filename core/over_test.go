package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// overEnv returns an environment with a CSV table ev(k, v, ts) whose ts is
// the rowtime (watermark ts - 1 s) in the given mode.
func overEnv(t *testing.T, streaming bool) *TableEnvironment {
	t.Helper()
	dir := t.TempDir()
	data := "a,1,2024-01-01 00:00:01\nb,2,2024-01-01 00:00:02\na,3,2024-01-01 00:00:03\na,2,2024-01-01 00:00:04\nb,5,2024-01-01 00:00:05\na,5,2024-01-01 00:00:05\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(data), 0o644))
	mode := InBatchMode()
	if streaming {
		mode = InStreamingMode()
	}
	e := NewTableEnvironment(mode)
	exec(t, e, fmt.Sprintf(`CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
		WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, dir))
	return e
}

func TestOverPlans(t *testing.T) {
	tests := []struct {
		name      string
		streaming bool
		sql       string
		want      []string
	}{
		{"batch top-n", false, "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 2",
			[]string{"Rank(rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2], partitionBy=[k], orderBy=[v DESC], global=[true], select=[k, v])"}},
		{"stream top-n", true, "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 2",
			[]string{"Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2], partitionBy=[k], orderBy=[v DESC], select=[k, v])", "Exchange(distribution=[hash[k]])"}},
		{"stream top-n with rank", true, "SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn < 3",
			[]string{"rankEnd=2], partitionBy=[k], orderBy=[v DESC], select=[k, v, w0$o0])"}},
		{"stream dedup last", true, "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM ev) WHERE rn = 1",
			[]string{"Deduplicate(keep=[LastRow], key=[k], order=[ROWTIME])"}},
		{"stream dedup first", true, "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM ev) WHERE rn <= 1",
			[]string{"Deduplicate(keep=[FirstRow], key=[k], order=[ROWTIME])"}},
		{"stream over bounded", true, "SELECT k, AVG(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS s FROM ev",
			[]string{"window=[ ROWS BETWEEN 10 PRECEDING AND CURRENT ROW], select=[k, v, ts, AVG(v) AS w0$o0])"}},
		{"stream top-n retract", true, "SELECT k, c FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM ev GROUP BY k)) WHERE rn <= 1",
			[]string{"Rank(strategy=[RetractStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=1], partitionBy=[], orderBy=[c DESC], select=[k, c])", "Exchange(distribution=[single])"}},
		{"stream over", true, "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS s FROM ev",
			[]string{"OverAggregate(partitionBy=[k], orderBy=[ts ASC], window=[ RANG BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW], select=[k, v, ts, SUM(v) AS w0$o0])"}},
		{"batch over", false, "SELECT k, v, COUNT(*) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c FROM ev",
			[]string{"LogicalWindow(window#0=[window(partition {0} order by [1 ASC] rows between unbounded preceding and current row aggs [COUNT()])])",
				"OverAggregate(partitionBy=[k], orderBy=[v ASC], window=[ ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW], select=[k, v, COUNT(*) AS w0$o0])"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := overEnv(t, tc.streaming)
			res := exec(t, e, "EXPLAIN "+tc.sql)
			plan := fmt.Sprint(res.Rows()[0][0])
			for _, w := range tc.want {
				require.Contains(t, plan, w)
			}
		})
	}
}

func TestOverResults(t *testing.T) {
	tests := []struct {
		name      string
		streaming bool
		sql       string
		want      []string
	}{
		{"stream top-2", true, "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 2",
			// a 2 enters the top 2 of a and pushes a 1 out; a 5 pushes a 2 out
			[]string{"+I[a 1]", "+I[b 2]", "+I[a 3]", "-D[a 1]", "+I[a 2]", "+I[b 5]", "-D[a 2]", "+I[a 5]"}},
		{"batch top-2", false, "SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 2",
			[]string{"+I[a 5 1]", "+I[a 3 2]", "+I[b 5 1]", "+I[b 2 2]"}},
		{"stream top-1 over an aggregate", true, "SELECT k, c FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM ev GROUP BY k)) WHERE rn <= 1",
			[]string{"+I[a 1]", // b 1 ties with a 1 and ranks after it
				"-D[a 1]", "+I[b 1]", // -U a 1
				"-D[b 1]", "+I[a 2]", // +U a 2
				"-D[a 2]", "+I[b 1]", "-D[b 1]", "+I[a 3]",
				// -U b 1, +U b 2 do not change the top 1
				"-D[a 3]", "+I[b 2]", "-D[b 2]", "+I[a 4]"}},
		{"stream top-2 with rank over an aggregate", true, "SELECT * FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM ev GROUP BY k)) WHERE rn <= 2",
			[]string{"+I[a 1 1]", "+I[b 1 2]",
				"-U[a 1 1]", "+U[b 1 1]", "-D[b 1 2]", // -U a 1
				"-U[b 1 1]", "+U[a 2 1]", "+I[b 1 2]", // +U a 2
				"-U[a 2 1]", "+U[b 1 1]", "-D[b 1 2]", // -U a 2
				"-U[b 1 1]", "+U[a 3 1]", "+I[b 1 2]", // +U a 3
				"-D[b 1 2]", "+I[b 2 2]", // -U b 1, +U b 2
				"-U[a 3 1]", "+U[b 2 1]", "-D[b 2 2]", // -U a 3
				"-U[b 2 1]", "+U[a 4 1]", "+I[b 2 2]"}}, // +U a 4
		{"stream dedup last", true, "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM ev) WHERE rn = 1",
			[]string{"+I[a 1]", "+I[b 2]", "-U[a 1]", "+U[a 3]", "-U[a 3]", "+U[a 2]", "-U[b 2]", "+U[b 5]", "-U[a 2]", "+U[a 5]"}},
		{"stream dedup first", true, "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM ev) WHERE rn = 1",
			[]string{"+I[a 1]", "+I[b 2]"}},
		{"batch dedup last", false, "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM ev) WHERE rn = 1",
			[]string{"+I[a 5]", "+I[b 5]"}},
		{"stream over rowtime", true, "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS s, COUNT(*) OVER (PARTITION BY k ORDER BY ts) AS c FROM ev",
			[]string{"+I[a 1 1 1]", "+I[b 2 2 1]", "+I[a 3 4 2]", "+I[a 2 6 3]", "+I[b 5 7 2]", "+I[a 5 11 4]"}},
		{"batch over", false, "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS s, RANK() OVER (PARTITION BY k ORDER BY ts) AS r FROM ev",
			[]string{"+I[a 1 1 1]", "+I[a 3 4 2]", "+I[a 2 6 3]", "+I[a 5 11 4]", "+I[b 2 2 1]", "+I[b 5 7 2]"}},
		{"stream over rows 1 preceding", true, "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s, MIN(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS m FROM ev",
			[]string{"+I[a 1 1 1]", "+I[b 2 2 2]", "+I[a 3 4 1]", "+I[a 2 5 2]", "+I[b 5 7 2]", "+I[a 5 7 2]"}},
		{"batch over rows 1 preceding", false, "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM ev",
			[]string{"+I[a 1 1]", "+I[a 3 4]", "+I[a 2 5]", "+I[a 5 7]", "+I[b 2 2]", "+I[b 5 7]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := overEnv(t, tc.streaming)
			require.Equal(t, tc.want, kindsAndRows(exec(t, e, tc.sql)))
		})
	}
}

func TestOverErrors(t *testing.T) {
	tests := []struct {
		streaming bool
		sql, want string
	}{
		{true, "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY v) FROM ev", "OVER windows' ordering in stream mode must be defined on a time attribute."},
		{false, "SELECT k, SUM(v) OVER (ORDER BY v RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM ev", "not supported yet: OVER frames"},
		{false, "SELECT k, ROW_NUMBER() OVER (PARTITION BY k) FROM ev", "requires an ORDER BY"},
		{false, "SELECT k, LAG(v) OVER (ORDER BY v) FROM ev", "not supported yet: window function LAG"},
		{false, "SELECT k, COUNT(*) OVER (ORDER BY v) FROM ev GROUP BY k, v", "not supported yet: OVER windows in this context"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := overEnv(t, tc.streaming).ExecuteSQL(t.Context(), tc.sql)
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), tc.want), err.Error())
		})
	}
}

func TestOverSinkRejectsRankChanges(t *testing.T) {
	e := overEnv(t, true)
	exec(t, e, fmt.Sprintf("CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", t.TempDir()))
	_, err := e.ExecuteSQL(t.Context(), "INSERT INTO out SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 2")
	require.Error(t, err)
	require.Contains(t, err.Error(), "doesn't support consuming update and delete changes which is produced by node Rank(strategy=[AppendFastStrategy]")
	// an OVER aggregation is insert-only
	exec(t, e, "INSERT INTO out SELECT k, CAST(COUNT(*) OVER (PARTITION BY k ORDER BY ts) AS INT) FROM ev")
}
