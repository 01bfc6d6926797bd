package core

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// DISTINCT calls of script aggregate functions: the arguments are
// de-duplicated per group before accumulate (batch) and counted per group
// so that only a value's first copy is accumulated and its last copy
// retracted (streaming).

const dupView = "CREATE TEMPORARY VIEW dups(k, v, w) AS VALUES ('a', CAST(1 AS BIGINT), 1), ('a', CAST(1 AS BIGINT), 1), ('a', CAST(2 AS BIGINT), 2), ('b', CAST(3 AS BIGINT), 1), ('b', CAST(3 AS BIGINT), 1), ('b', CAST(NULL AS BIGINT), 1), ('b', CAST(3 AS BIGINT), 5)"

func TestScriptAggregateDistinctBatch(t *testing.T) {
	tests := []struct {
		name, create, sql string
		want              [][]any
	}{
		{"python group by", isumPython, "SELECT k, isum(DISTINCT v), isum(v) FROM dups GROUP BY k",
			[][]any{{"a", int64(3), int64(4)}, {"b", int64(3), int64(9)}}},
		{"javascript group by", isumJS, "SELECT k, isum(DISTINCT v), isum(v) FROM dups GROUP BY k",
			[][]any{{"a", int64(3), int64(4)}, {"b", int64(3), int64(9)}}},
		{"global with a built-in DISTINCT", isumPython, "SELECT isum(DISTINCT v), COUNT(DISTINCT v) FROM dups",
			[][]any{{int64(6), int64(3)}}},
		{"with a filter", isumJS, "SELECT k, isum(DISTINCT v) FILTER (WHERE w = 1) FROM dups GROUP BY k",
			[][]any{{"a", int64(1)}, {"b", int64(3)}}},
		// (3, 1) and (3, 5) are different argument rows
		{"two arguments", wavgPython, "SELECT k, wavg(DISTINCT v, w) FROM dups GROUP BY k",
			[][]any{{"a", 5.0 / 3}, {"b", 3.0}}},
		{"two arguments javascript", wavgJS, "SELECT k, wavg(DISTINCT v, w) FROM dups GROUP BY k",
			[][]any{{"a", 5.0 / 3}, {"b", 3.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			exec(t, e, tt.create)
			exec(t, e, dupView)
			require.ElementsMatch(t, tt.want, rows(t, e, tt.sql))
		})
	}
}

// nullCount counts the NULL rows it accumulates: DISTINCT passes one NULL
// per group, as Flink does for user-defined aggregates.
const nullCountPython = `CREATE TEMPORARY FUNCTION ncount(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class ncount:
    def create_accumulator(self):
        return [0]

    def accumulate(self, acc, v):
        if v is None:
            acc[0] += 1

    def get_value(self, acc):
        return acc[0]
$$`

func TestScriptAggregateDistinctNull(t *testing.T) {
	e := newEnv(t)
	exec(t, e, nullCountPython)
	exec(t, e, "CREATE TEMPORARY VIEW n(v) AS VALUES (CAST(NULL AS BIGINT)), (CAST(NULL AS BIGINT)), (1)")
	require.Equal(t, [][]any{{int64(1), int64(2)}}, rows(t, e, "SELECT ncount(DISTINCT v), ncount(v) FROM n"))
}

const kvDupTable = `CREATE TABLE kv (k STRING, v INT) WITH ('connector' = 'values', 'data' = '[["a", 1], ["b", 1], ["a", 2], ["b", 3]]')`

func TestScriptAggregateDistinctStreaming(t *testing.T) {
	// The inner SUM per k: +I(a,1) +I(b,1) -U(a,1) +U(a,3) -U(b,1) +U(b,4).
	// isum(DISTINCT s): 1 enters (1); a second 1 changes nothing; its
	// retraction leaves one copy (nothing); 3 enters (4); the last 1
	// leaves (3); 4 enters (7).
	for lang, create := range map[string]string{"python": isumPython, "javascript": isumJS} {
		t.Run(lang, func(t *testing.T) {
			e, _ := newStreamEnv(t)
			exec(t, e, create)
			exec(t, e, kvDupTable)
			require.Equal(t, []string{"+I[1]", "-U[1]", "+U[4]", "-U[4]", "+U[3]", "-U[3]", "+U[7]"},
				kindsAndRows(exec(t, e, "SELECT isum(DISTINCT s) FROM (SELECT k, SUM(v) AS s FROM kv GROUP BY k)")))
			require.Equal(t, []string{"+I[a 1]", "+I[b 1]", "-U[a 1]", "+U[a 3]", "-U[b 1]", "+U[b 4]"},
				kindsAndRows(exec(t, e, "SELECT k, isum(DISTINCT v) FROM kv GROUP BY k")))
		})
	}
}

// In window aggregates isum(DISTINCT v) equals SUM(DISTINCT v).
func TestScriptAggregateDistinctWindows(t *testing.T) {
	wins := map[string]string{
		"tumble":  "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
		"hop":     "HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
		"session": "SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)",
	}
	for _, streaming := range []bool{true, false} {
		for name, w := range wins {
			t.Run(fmt.Sprintf("streaming=%v/%s", streaming, name), func(t *testing.T) {
				e := windowEnv(t, streaming)
				exec(t, e, isumJS)
				q := "SELECT k, window_start, window_end, %s FROM TABLE(" + w + ") GROUP BY k, window_start, window_end"
				want := windowRows(t, e, fmt.Sprintf(q, "CAST(SUM(DISTINCT v) AS BIGINT)"), streaming)
				require.NotEmpty(t, want)
				require.Equal(t, want, windowRows(t, e, fmt.Sprintf(q, "isum(DISTINCT v)"), streaming))
			})
		}
	}
}

func TestScriptAggregateDistinctMiniBatch(t *testing.T) {
	for _, phase := range []string{"AUTO", "TWO_PHASE"} {
		t.Run(phase, func(t *testing.T) {
			e, _ := newStreamEnv(t)
			exec(t, e, "SET 'table.exec.mini-batch.enabled' = 'true'")
			exec(t, e, "SET 'table.exec.mini-batch.allow-latency' = '1 s'")
			exec(t, e, "SET 'table.exec.mini-batch.size' = '2'")
			exec(t, e, "SET 'table.optimizer.agg-phase-strategy' = '"+phase+"'")
			exec(t, e, isumPython)
			exec(t, e, kvDupTable)
			got, _ := materialize(t, exec(t, e, "SELECT isum(DISTINCT s) FROM (SELECT k, SUM(v) AS s FROM kv GROUP BY k)"))
			require.Equal(t, []string{"[7]"}, got)
		})
	}
}
