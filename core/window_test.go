package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// windowData is the event stream of the window tests, in arrival order:
// k, v, ts (2024-01-01 00:00:ss). With WATERMARK ts - 5 s and one row per
// batch, the watermark reaches 7 s at row 3 and 20 s at row 6, so that
// row 7 (14 s) arrives after its windows fired and is late.
var windowData = []string{
	"a,1,2024-01-01 00:00:01", "b,2,2024-01-01 00:00:04", "a,3,2024-01-01 00:00:12",
	"b,4,2024-01-01 00:00:07", "a,5,2024-01-01 00:00:02", "b,6,2024-01-01 00:00:25",
	"a,7,2024-01-01 00:00:14", "a,8,2024-01-01 00:00:21",
}

// windowEnv returns an environment in the given mode with the table t
// over windowData, read one row per batch.
func windowEnv(t *testing.T, streaming bool) *TableEnvironment {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(windowData, "\n")+"\n"), 0o644))
	settings := InBatchMode()
	if streaming {
		settings = InStreamingMode()
	}
	e := NewTableEnvironment(settings)
	exec(t, e, "SET 'tablerun.exec.batch-size' = '1'")
	exec(t, e, `CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '`+path+`', 'format' = 'csv')`)
	return e
}

// windowRows runs a query and returns its changes in order (streaming)
// or its rows sorted (batch), timestamps as HH:mm:ss.
func windowRows(t *testing.T, e *TableEnvironment, sql string, streaming bool) []string {
	t.Helper()
	res, err := e.ExecuteSQL(context.Background(), sql)
	require.NoError(t, err, sql)
	str := func(row []any) string {
		parts := make([]string, len(row))
		for i, v := range row {
			switch x := v.(type) {
			case time.Time:
				parts[i] = x.UTC().Format("15:04:05")
			case int64:
				if x > 1e15 || x < -1e15 { // TIMESTAMP as epoch micros
					parts[i] = time.UnixMicro(x).UTC().Format("15:04:05")
					continue
				}
				parts[i] = fmt.Sprint(v)
			default:
				parts[i] = fmt.Sprint(v)
			}
		}
		return strings.Join(parts, " ")
	}
	var out []string
	if streaming {
		for k, row := range res.Changes() {
			out = append(out, k.String()+" "+str(row))
		}
		require.NoError(t, res.Err())
		return out
	}
	for _, row := range res.Rows() {
		out = append(out, str(row))
	}
	sort.Strings(out)
	return out
}

func TestWindowAggregation(t *testing.T) {
	tests := []struct {
		name      string
		sql       string
		streaming []string // changes in order; late row 7 dropped
		batch     []string // sorted rows over all data
	}{
		{
			name: "tumble by key",
			sql: `SELECT window_start, window_end, k, SUM(v) AS s, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k`,
			streaming: []string{
				"+I 00:00:00 00:00:10 a 6 2", "+I 00:00:00 00:00:10 b 6 2", "+I 00:00:10 00:00:20 a 3 1",
				"+I 00:00:20 00:00:30 b 6 1", "+I 00:00:20 00:00:30 a 8 1",
			},
			batch: []string{
				"00:00:00 00:00:10 a 6 2", "00:00:00 00:00:10 b 6 2", "00:00:10 00:00:20 a 10 2",
				"00:00:20 00:00:30 a 8 1", "00:00:20 00:00:30 b 6 1",
			},
		},
		{
			name: "hop",
			sql: `SELECT window_start, window_end, COUNT(*) AS c, SUM(v) AS s
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end`,
			streaming: []string{
				"+I 23:59:55 00:00:05 2 3", // row 5 (2 s) came after this window fired
				"+I 00:00:00 00:00:10 4 12", "+I 00:00:05 00:00:15 2 7", "+I 00:00:10 00:00:20 1 3",
				"+I 00:00:15 00:00:25 1 8", "+I 00:00:20 00:00:30 2 14", "+I 00:00:25 00:00:35 1 6",
			},
			batch: []string{
				"00:00:00 00:00:10 4 12", "00:00:05 00:00:15 3 14", "00:00:10 00:00:20 2 10",
				"00:00:15 00:00:25 1 8", "00:00:20 00:00:30 2 14", "00:00:25 00:00:35 1 6",
				"23:59:55 00:00:05 3 8",
			},
		},
		{
			name: "cumulate with a filter and window columns renamed",
			sql: `SELECT COUNT(*) AS c, SUM(v) AS s, window_start AS ws, window_end AS we
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
WHERE v <> 4
GROUP BY window_start, window_end`,
			streaming: []string{
				"+I 2 3 00:00:00 00:00:05", // row 5 came after [0, 5) fired
				"+I 3 8 00:00:00 00:00:10", "+I 1 3 00:00:10 00:00:15", "+I 1 3 00:00:10 00:00:20",
				"+I 1 8 00:00:20 00:00:25", "+I 2 14 00:00:20 00:00:30",
			},
			batch: []string{
				"1 8 00:00:20 00:00:25", "2 10 00:00:10 00:00:15", "2 10 00:00:10 00:00:20",
				"2 14 00:00:20 00:00:30", "3 8 00:00:00 00:00:05", "3 8 00:00:00 00:00:10",
			},
		},
		{
			name: "cascaded windows over window_time",
			sql: `WITH w AS (
  SELECT window_time AS wt, k, SUM(v) AS s
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY window_start, window_end, window_time, k)
SELECT window_start, window_end, SUM(s) AS s, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(wt), INTERVAL '10' SECOND))
GROUP BY window_start, window_end`,
			// rows 5 (2 s) and 7 (14 s) are late for the 5 s windows
			streaming: []string{"+I 00:00:00 00:00:10 7 3", "+I 00:00:10 00:00:20 3 1", "+I 00:00:20 00:00:30 14 2"},
			batch:     []string{"00:00:00 00:00:10 12 3", "00:00:10 00:00:20 10 1", "00:00:20 00:00:30 14 2"},
		},
		{
			name: "session per partition",
			sql: `SELECT window_start, window_end, k, SUM(v) AS s, COUNT(*) AS c
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k`,
			// row 5 (2 s) and row 7 (14 s) are late
			streaming: []string{
				"+I 00:00:01 00:00:06 a 1 1",
				"+I 00:00:04 00:00:12 b 6 2", "+I 00:00:12 00:00:17 a 3 1",
				"+I 00:00:21 00:00:26 a 8 1", "+I 00:00:25 00:00:30 b 6 1",
			},
			batch: []string{
				"00:00:01 00:00:07 a 6 2", "00:00:04 00:00:12 b 6 2", "00:00:12 00:00:19 a 10 2",
				"00:00:21 00:00:26 a 8 1", "00:00:25 00:00:30 b 6 1",
			},
		},
		{
			name: "legacy GROUP BY TUMBLE",
			sql: `SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND) AS ws, TUMBLE_END(ts, INTERVAL '10' SECOND), SUM(v) AS s
FROM t GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)`,
			streaming: []string{
				"+I a 00:00:00 00:00:10 6", "+I b 00:00:00 00:00:10 6", "+I a 00:00:10 00:00:20 3",
				"+I b 00:00:20 00:00:30 6", "+I a 00:00:20 00:00:30 8",
			},
			batch: []string{
				"a 00:00:00 00:00:10 6", "a 00:00:10 00:00:20 10", "a 00:00:20 00:00:30 8",
				"b 00:00:00 00:00:10 6", "b 00:00:20 00:00:30 6",
			},
		},
		{
			name: "legacy GROUP BY SESSION with WHERE and alias (Nexmark q11's shape)",
			sql: `SELECT B.k, COUNT(*) AS c, SESSION_START(B.ts, INTERVAL '5' SECOND) AS ws, SESSION_END(B.ts, INTERVAL '5' SECOND) AS we
FROM t B WHERE B.v <> 8
GROUP BY B.k, SESSION(B.ts, INTERVAL '5' SECOND)`,
			streaming: []string{
				"+I a 1 00:00:01 00:00:06",
				"+I b 2 00:00:04 00:00:12", "+I a 1 00:00:12 00:00:17",
				"+I b 1 00:00:25 00:00:30",
			},
			batch: []string{
				"a 2 00:00:01 00:00:07", "a 2 00:00:12 00:00:19", "b 1 00:00:25 00:00:30", "b 2 00:00:04 00:00:12",
			},
		},
		{
			name: "tumble with an offset",
			sql: `SELECT window_start, window_end, COUNT(*) AS c, SUM(v) AS s
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end`,
			streaming: []string{
				"+I 23:59:52 00:00:02 1 1", "+I 00:00:02 00:00:12 3 11", "+I 00:00:12 00:00:22 3 18", "+I 00:00:22 00:00:32 1 6",
			},
			batch: []string{
				"00:00:02 00:00:12 3 11", "00:00:12 00:00:22 3 18", "00:00:22 00:00:32 1 6", "23:59:52 00:00:02 1 1",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/streaming", func(t *testing.T) {
			require.Equal(t, tt.streaming, windowRows(t, windowEnv(t, true), tt.sql, true))
		})
		t.Run(tt.name+"/batch", func(t *testing.T) {
			require.Equal(t, tt.batch, windowRows(t, windowEnv(t, false), tt.sql, false))
		})
	}
}

func TestWindowTVFAlone(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		e := windowEnv(t, streaming)
		got := windowRows(t, e, `SELECT k, v, window_start, window_end, window_time
FROM TABLE(HOP(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '5' SECOND, SIZE => INTERVAL '10' SECOND)) WHERE v < 3`, streaming)
		want := []string{
			"a 1 23:59:55 00:00:05 00:00:04", "a 1 00:00:00 00:00:10 00:00:09",
			"b 2 23:59:55 00:00:05 00:00:04", "b 2 00:00:00 00:00:10 00:00:09",
		}
		if streaming {
			for i := range want {
				want[i] = "+I " + want[i]
			}
		} else {
			sort.Strings(want)
		}
		require.Equal(t, want, got)
	}
}

func TestWindowExplain(t *testing.T) {
	e := windowEnv(t, true)
	res := exec(t, e, `EXPLAIN SELECT window_start, window_end, k, SUM(v) AS s
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k`)
	plan := fmt.Sprint(res.Rows()[0][0])
	opt := plan[strings.Index(plan, "== Optimized Physical Plan =="):strings.Index(plan, "== Optimized Execution Plan ==")]
	require.Equal(t, `== Optimized Physical Plan ==
Calc(select=[window_start, window_end, k, s])
+- WindowAggregate(groupBy=[k], window=[TUMBLE(time_col=[ts], size=[10 s])], select=[k, SUM(v) AS s, start('w$) AS window_start, end('w$) AS window_end])
   +- Exchange(distribution=[hash[k]])
      +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
         +- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k, v, ts])

`, opt)
	require.Contains(t, plan, "WatermarkAssigner(rowtime=[ts], watermark=[(ts - 5000:INTERVAL SECOND)])")

	// only window_start grouped: not a window aggregation (a regular
	// GroupAggregate over the window table function, as Flink)
	res = exec(t, e, `EXPLAIN SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start`)
	plan = fmt.Sprint(res.Rows()[0][0])
	require.Contains(t, plan, "GroupAggregate(groupBy=[window_start]")
	require.Contains(t, plan, "WindowTableFunction(window=[TUMBLE(time_col=[ts], size=[10 s])])")
	require.NotContains(t, plan, "WindowAggregate")

	// HAVING and a projection over the window aggregate fuse into one Calc
	res = exec(t, e, `EXPLAIN SELECT k, window_end AS we FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end HAVING COUNT(*) > 1`)
	plan = fmt.Sprint(res.Rows()[0][0])
	require.Contains(t, plan, "Calc(select=[k, window_end AS we], where=[>(EXPR$3, 1:BIGINT)])\n+- WindowAggregate(")

	// batch mode has no watermarks
	res = exec(t, windowEnv(t, false), "EXPLAIN SELECT * FROM t")
	require.NotContains(t, fmt.Sprint(res.Rows()[0][0]), "WatermarkAssigner")
}

// TestWindowLocalTimeZone: windows over a TIMESTAMP_LTZ rowtime align in
// table.local-time-zone (a day window is a local day), window_start and
// window_end are local TIMESTAMP(3) and window_time a TIMESTAMP_LTZ(3),
// as in Flink. The events are 2024-01-01 15:00 and 17:00 UTC, i.e. 23:00
// on January 1 and 01:00 on January 2 in Shanghai.
func TestWindowLocalTimeZone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.csv")
	require.NoError(t, os.WriteFile(path, []byte("1704121200000\n1704128400000\n"), 0o644))
	for _, streaming := range []bool{true, false} {
		settings := InBatchMode()
		if streaming {
			settings = InStreamingMode()
		}
		e := NewTableEnvironment(settings)
		exec(t, e, "SET 'table.local-time-zone' = 'Asia/Shanghai'")
		exec(t, e, `CREATE TABLE e (ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '`+path+`', 'format' = 'csv')`)
		res := exec(t, e, `SELECT window_start, window_end, window_time, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end, window_time`)
		out := printed(t, res)
		require.Contains(t, out, "| 2024-01-01 00:00:00.000 | 2024-01-02 00:00:00.000 | 2024-01-01 23:59:59.999 |", out)
		require.Contains(t, out, "| 2024-01-02 00:00:00.000 | 2024-01-03 00:00:00.000 | 2024-01-02 23:59:59.999 |", out)
		require.Equal(t, []string{"TIMESTAMP(3) NOT NULL", "TIMESTAMP(3) NOT NULL", "TIMESTAMP_LTZ(3) NOT NULL"},
			[]string{res.Schema()[0].Type.String(), res.Schema()[1].Type.String(), res.Schema()[2].Type.String()})
	}
}

func TestSessionTVFAlone(t *testing.T) {
	sql := "SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))"
	// rows 5 (2 s) and 7 (14 s) are late in streaming mode
	require.Equal(t, []string{
		"+I a 1 00:00:01 00:00:01 00:00:06 00:00:05",
		"+I b 2 00:00:04 00:00:04 00:00:12 00:00:11", "+I b 4 00:00:07 00:00:04 00:00:12 00:00:11",
		"+I a 3 00:00:12 00:00:12 00:00:17 00:00:16",
		"+I a 8 00:00:21 00:00:21 00:00:26 00:00:25", "+I b 6 00:00:25 00:00:25 00:00:30 00:00:29",
	}, windowRows(t, windowEnv(t, true), sql, true))
	require.Equal(t, []string{
		"a 1 00:00:01 00:00:01 00:00:07 00:00:06", "a 3 00:00:12 00:00:12 00:00:19 00:00:18",
		"a 5 00:00:02 00:00:01 00:00:07 00:00:06", "a 7 00:00:14 00:00:12 00:00:19 00:00:18",
		"a 8 00:00:21 00:00:21 00:00:26 00:00:25", "b 2 00:00:04 00:00:04 00:00:12 00:00:11",
		"b 4 00:00:07 00:00:04 00:00:12 00:00:11", "b 6 00:00:25 00:00:25 00:00:30 00:00:29",
	}, windowRows(t, windowEnv(t, false), sql, false))
}

// TestCurrentWatermark: CURRENT_WATERMARK(ts) is the watermark that
// passed before the row's batch (one row per batch here), NULL before
// the first; the usual late-data filter keeps rows 1, 2, 3, 6 and 8. In
// batch mode it is NULL.
func TestCurrentWatermark(t *testing.T) {
	e := windowEnv(t, true)
	got := windowRows(t, e, "SELECT v, CURRENT_WATERMARK(ts) FROM t", true)
	require.Equal(t, []string{"+I 1 <nil>", "+I 2 23:59:56", "+I 3 23:59:59", "+I 4 00:00:07", "+I 5 00:00:07",
		"+I 6 00:00:07", "+I 7 00:00:20", "+I 8 00:00:20"}, got)
	got = windowRows(t, e, "SELECT v FROM t WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)", true)
	require.Equal(t, []string{"+I 1", "+I 2", "+I 3", "+I 6", "+I 8"}, got)
	got = windowRows(t, windowEnv(t, false), "SELECT v, CURRENT_WATERMARK(ts) FROM t WHERE v < 3", false)
	require.Equal(t, []string{"1 <nil>", "2 <nil>"}, got)
}
