package core

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Script aggregate functions in the streaming GroupAggregate: over an
// updating input (an aggregate of a GROUP BY result) every -U/-D row calls
// the script's retract method.

const isumPython = `CREATE TEMPORARY FUNCTION isum(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class isum:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, v):
        if v is not None:
            acc[0] += v
            acc[1] += 1

    def retract(self, acc, v):
        if v is not None:
            acc[0] -= v
            acc[1] -= 1

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return acc[0]
$$`

const isumJS = `CREATE TEMPORARY FUNCTION isum(v BIGINT) RETURNS BIGINT LANGUAGE JAVASCRIPT AS $$
class isum {
  createAccumulator() { return {sum: 0, n: 0}; }
  accumulate(acc, v) { if (v !== null) { acc.sum += v; acc.n++; } }
  retract(acc, v) { if (v !== null) { acc.sum -= v; acc.n--; } }
  getValue(acc) { return acc.n === 0 ? null : acc.sum; }
}
$$`

// isumNoRetract has no retract method: fine over an insert-only input, an
// error over an updating one.
const isumNoRetract = `CREATE TEMPORARY FUNCTION isum(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class isum:
    def create_accumulator(self):
        return [0]

    def accumulate(self, acc, v):
        if v is not None:
            acc[0] += v

    def get_value(self, acc):
        return acc[0]
$$`

const kvTable = `CREATE TABLE kv (k STRING, v INT) WITH ('connector' = 'values', 'data' = '[["a", 1], ["b", 2], ["a", 3], ["b", 5]]')`

func TestScriptAggregateStreaming(t *testing.T) {
	langs := map[string]string{"python": isumPython, "javascript": isumJS}
	// The inner aggregate's changelog, derived by hand:
	//   +I(a,1,1) +I(b,1,2) -U(a,1,1) +U(a,2,4) -U(b,1,2) +U(b,2,7)
	// and the outer aggregate grouped by the count c:
	//   +I(a,1,1) → group 1 new: +I(1,1)
	//   +I(b,1,2) → group 1 sum 3: -U(1,1) +U(1,3)
	//   -U(a,1,1) → retract 1: -U(1,3) +U(1,2)
	//   +U(a,2,4) → group 2 new: +I(2,4)
	//   -U(b,1,2) → group 1 loses its last row: -D(1,2)
	//   +U(b,2,7) → group 2 sum 11: -U(2,4) +U(2,11)
	tests := []struct {
		name string
		sql  string
		want []string
	}{
		{"grouped over an updating input",
			"SELECT c, isum(s) FROM (SELECT k, COUNT(*) AS c, SUM(v) AS s FROM kv GROUP BY k) GROUP BY c",
			[]string{"+I[1 1]", "-U[1 1]", "+U[1 3]", "-U[1 3]", "+U[1 2]", "+I[2 4]", "-D[1 2]", "-U[2 4]", "+U[2 11]"}},
		// global: +I(1) then 3, 2 (retract 1), 6 (add 4), 4 (retract 2), 11 (add 7)
		{"global over an updating input",
			"SELECT isum(s) FROM (SELECT k, SUM(v) AS s FROM kv GROUP BY k)",
			[]string{"+I[1]", "-U[1]", "+U[3]", "-U[3]", "+U[2]", "-U[2]", "+U[6]", "-U[6]", "+U[4]", "-U[4]", "+U[11]"}},
		{"with a built-in next to it",
			"SELECT k, isum(v), MAX(v) FROM kv GROUP BY k",
			[]string{"+I[a 1 1]", "+I[b 2 2]", "-U[a 1 1]", "+U[a 4 3]", "-U[b 2 2]", "+U[b 7 5]"}},
	}
	for lang, create := range langs {
		for _, tt := range tests {
			t.Run(lang+"/"+tt.name, func(t *testing.T) {
				e, _ := newStreamEnv(t)
				exec(t, e, create)
				exec(t, e, kvTable)
				require.Equal(t, tt.want, kindsAndRows(exec(t, e, tt.sql)))
			})
		}
	}
}

// With mini-batch the script aggregate runs in the one-phase mini-batch
// aggregate (it has no mergeable state, so even TWO_PHASE keeps one
// phase); the net result is the same.
func TestScriptAggregateStreamingMiniBatch(t *testing.T) {
	for lang, create := range map[string]string{"python": isumPython, "javascript": isumJS} {
		for _, phase := range []string{"AUTO", "TWO_PHASE"} {
			t.Run(lang+"/"+phase, func(t *testing.T) {
				e, _ := newStreamEnv(t)
				exec(t, e, "SET 'table.exec.mini-batch.enabled' = 'true'")
				exec(t, e, "SET 'table.exec.mini-batch.allow-latency' = '1 s'")
				exec(t, e, "SET 'table.exec.mini-batch.size' = '2'")
				exec(t, e, "SET 'table.optimizer.agg-phase-strategy' = '"+phase+"'")
				exec(t, e, create)
				exec(t, e, kvTable)
				plan := explainPhysical(t, exec(t, e, "EXPLAIN SELECT k, isum(v) FROM kv GROUP BY k"))
				require.NotContains(t, plan, "LocalGroupAggregate")
				require.Contains(t, plan, "GroupAggregate")
				got, _ := materialize(t, exec(t, e, "SELECT k, isum(v) FROM kv GROUP BY k"))
				require.Equal(t, []string{"[a 4]", "[b 7]"}, got)
				got, _ = materialize(t, exec(t, e, "SELECT c, isum(s) FROM (SELECT k, COUNT(*) AS c, SUM(v) AS s FROM kv GROUP BY k) GROUP BY c"))
				require.Equal(t, []string{"[2 11]"}, got)
			})
		}
	}
}

func TestScriptAggregateStreamingWithoutRetract(t *testing.T) {
	e, _ := newStreamEnv(t)
	exec(t, e, isumNoRetract)
	exec(t, e, kvTable)
	require.Equal(t, []string{"+I[a 1]", "+I[b 2]", "-U[a 1]", "+U[a 4]", "-U[b 2]", "+U[b 7]"},
		kindsAndRows(exec(t, e, "SELECT k, isum(v) FROM kv GROUP BY k")))
	_, err := e.ExecuteSQL(context.Background(), "SELECT isum(s) FROM (SELECT k, SUM(v) AS s FROM kv GROUP BY k)")
	require.Error(t, err)
	require.Contains(t, err.Error(), "not supported yet: the aggregate function 'default_catalog.default_database.isum' over an updating input: its script defines no retract method")
	// the session stays usable
	require.Len(t, rows(t, e, "SELECT k FROM kv"), 4)
}

// Script aggregates in window aggregates (tumbling, hopping, session) give
// the same values as SUM, in streaming and batch mode.
func TestScriptAggregateWindows(t *testing.T) {
	wins := []string{
		"TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
		"HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
		"SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)",
	}
	for lang, create := range map[string]string{"python": isumPython, "javascript": isumJS} {
		for _, streaming := range []bool{true, false} {
			for _, w := range wins {
				t.Run(fmt.Sprintf("%s/streaming=%v/%s", lang, streaming, w[:strings.Index(w, "(")]), func(t *testing.T) {
					e := windowEnv(t, streaming)
					exec(t, e, create)
					q := "SELECT k, window_start, window_end, %s FROM TABLE(" + w + ") GROUP BY k, window_start, window_end"
					want := windowRows(t, e, fmt.Sprintf(q, "CAST(SUM(v) AS BIGINT)"), streaming)
					require.NotEmpty(t, want)
					require.Equal(t, want, windowRows(t, e, fmt.Sprintf(q, "isum(v)"), streaming))
				})
			}
		}
	}
}
