package core

import (
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
)

// wavgMergePython is Flink's documentation example of a user-defined aggregate
// (WeightedAvg), with merge: it can run in two phases.
const wavgMergePython = `CREATE TEMPORARY FUNCTION wavg(v BIGINT, w INT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class wavg:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, v, w):
        if v is not None and w is not None:
            acc[0] += v * w
            acc[1] += w

    def merge(self, acc, others):
        for o in others:
            acc[0] += o[0]
            acc[1] += o[1]

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return acc[0] // acc[1]
$$`

const wavgMergeJS = `CREATE TEMPORARY FUNCTION wavg(v BIGINT, w INT) RETURNS BIGINT LANGUAGE JAVASCRIPT AS $$
class wavg {
  createAccumulator() { return {sum: 0, n: 0}; }
  accumulate(acc, v, w) { if (v !== null && w !== null) { acc.sum += v * w; acc.n += w; } }
  merge(acc, other) { acc.sum += other.sum; acc.n += other.n; }
  getValue(acc) { return acc.n === 0 ? null : Math.floor(acc.sum / acc.n); }
}
$$`

// A user-defined aggregate that defines merge splits into
// LocalGroupAggregate → GlobalGroupAggregate with mini-batch (its partial
// state is the accumulator, named after the function); one without merge,
// or a DISTINCT call of it, stays in one phase.
func TestUserAggregateTwoPhaseExplain(t *testing.T) {
	base := []string{
		"'table.exec.mini-batch.enabled' = 'true'",
		"'table.exec.mini-batch.allow-latency' = '5 s'",
		"'table.exec.mini-batch.size' = '1000'",
	}
	tests := []struct {
		name, create, query, want string
	}{
		{"merge: two phases", wavgMergeJS, "EXPLAIN SELECT k, wavg(v, 1) AS a, COUNT(*) AS c FROM src GROUP BY k",
			`GlobalGroupAggregate(groupBy=[k], select=[k, default_catalog.default_database.wavg(wavg$0) AS a, COUNT(count1$1) AS c])
+- Exchange(distribution=[hash[k]])
   +- LocalGroupAggregate(groupBy=[k], select=[k, default_catalog.default_database.wavg(v, $f2) AS wavg$0, COUNT(*) AS count1$1])
      +- Calc(select=[k, v, 1 AS $f2])
         +- MiniBatchAssigner(interval=[5000ms], mode=[ProcTime])
            +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
		{"no merge: one phase", isumPython, "EXPLAIN SELECT k, isum(v) AS a FROM src GROUP BY k",
			`GroupAggregate(groupBy=[k], select=[k, default_catalog.default_database.isum(v) AS a])
+- Exchange(distribution=[hash[k]])
   +- MiniBatchAssigner(interval=[5000ms], mode=[ProcTime])
      +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
		{"DISTINCT: one phase", wavgMergePython, "EXPLAIN SELECT k, wavg(DISTINCT v, 1) AS a FROM src GROUP BY k",
			`GroupAggregate(groupBy=[k], select=[k, default_catalog.default_database.wavg(DISTINCT v, $f2) AS a])
+- Exchange(distribution=[hash[k]])
   +- Calc(select=[k, v, 1 AS $f2])
      +- MiniBatchAssigner(interval=[5000ms], mode=[ProcTime])
         +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newStreamEnv(t)
			exec(t, e, "CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
			exec(t, e, tt.create)
			for _, s := range base {
				exec(t, e, "SET "+s)
			}
			require.Equal(t, tt.want, explainPhysical(t, exec(t, e, tt.query)))
		})
	}
}

// TestUserAggregateTwoPhaseVerification runs GROUP BYs of a Python and a
// JavaScript aggregate with merge over skewed keys with mini-batch off and
// on, one and two phases, parallelism 1 and 2, streaming and batch: the
// final materialized results agree.
func TestUserAggregateTwoPhaseVerification(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		k := int(r.ExpFloat64()*3) % 25 // skewed keys
		w := fmt.Sprint(r.IntN(4))
		if r.IntN(10) == 0 {
			w = "-1" // a NULL weight (view u)
		}
		fmt.Fprintf(&b, "%d,%d,%s\n", k, r.IntN(1000)-200, w)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644))
	table := fmt.Sprintf("CREATE TABLE raw (k INT, v BIGINT, w INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", dir)
	view := "CREATE VIEW t AS SELECT k, v, CASE WHEN w < 0 THEN CAST(NULL AS INT) ELSE w END AS w FROM raw"
	queries := []string{
		"SELECT k, wavg(v, w) AS a, COUNT(*) AS c, SUM(v) AS s FROM t GROUP BY k",
		"SELECT wavg(v, w) AS a, MAX(v) AS m FROM t",
		"SELECT k, wavg(v, 1) FILTER (WHERE v > 0) AS a FROM t GROUP BY k",
		"SELECT a, COUNT(*) AS n FROM (SELECT k, wavg(v, w) AS a FROM t GROUP BY k) GROUP BY a",
	}
	type mode struct {
		name      string
		streaming bool
		sets      []string
	}
	minibatch := func(size, phase, p string) []string {
		return []string{
			"'table.exec.mini-batch.enabled' = 'true'",
			"'table.exec.mini-batch.allow-latency' = '10 s'",
			"'table.exec.mini-batch.size' = '" + size + "'",
			"'table.optimizer.agg-phase-strategy' = '" + phase + "'",
			"'table.exec.resource.default-parallelism' = '" + p + "'",
			"'tablerun.exec.batch-size' = '64'",
		}
	}
	modes := []mode{
		{name: "batch", sets: nil},
		{name: "batch/two-phase", sets: []string{"'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'"}},
		{name: "stream/off", streaming: true},
	}
	for _, size := range []string{"1", "300"} {
		for _, phase := range []string{"ONE_PHASE", "TWO_PHASE"} {
			for _, p := range []string{"1", "2"} {
				modes = append(modes, mode{name: "stream/" + size + "/" + phase + "/p" + p, streaming: true, sets: minibatch(size, phase, p)})
			}
		}
	}
	for lang, create := range map[string]string{"python": wavgMergePython, "javascript": wavgMergeJS} {
		for qi, q := range queries {
			var want []string
			for mi, m := range modes {
				var e *TableEnvironment
				if m.streaming {
					e, _ = newStreamEnv(t)
				} else {
					e = newEnv(t)
				}
				exec(t, e, table)
				exec(t, e, view)
				exec(t, e, create)
				for _, s := range m.sets {
					exec(t, e, "SET "+s)
				}
				if strings.Contains(m.name, "TWO_PHASE") {
					// the aggregate of wavg really splits
					plan := fmt.Sprint(exec(t, e, "EXPLAIN "+q).Rows()[0][0])
					require.Contains(t, plan, "LocalGroupAggregate(", q)
				}
				var got []string
				if m.streaming {
					got, _ = materialize(t, exec(t, e, q))
				} else {
					for _, row := range rows(t, e, q) {
						got = append(got, fmt.Sprint(row))
					}
					sort.Strings(got)
				}
				if mi == 0 {
					want = got
					require.NotEmpty(t, want, q)
					continue
				}
				require.Equal(t, want, got, "%s query %d in mode %s: %s", lang, qi, m.name, q)
			}
		}
	}
}

// A script aggregate's errors in two phases: a merge that raises fails
// the query with the script line, printed after the rows the query had
// produced (as Flink's client does), and the session stays usable; Python
// ints beyond 64 bits cross the exchange exactly.
func TestUserAggregateTwoPhaseErrors(t *testing.T) {
	const badMerge = `CREATE TEMPORARY FUNCTION bad(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class bad:
    def create_accumulator(self):
        return [0]
    def accumulate(self, acc, v):
        acc[0] += v
    def merge(self, acc, others):
        for o in others:
            acc[0] += o[1]
    def get_value(self, acc):
        return acc[0]
$$`
	const bigSum = `CREATE TEMPORARY FUNCTION bigsum(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class bigsum:
    def create_accumulator(self):
        return [0]
    def accumulate(self, acc, v):
        acc[0] += v * 1000000000000000000000
    def merge(self, acc, others):
        for o in others:
            acc[0] += o[0]
    def get_value(self, acc):
        return acc[0] // 1000000000000000000000
$$`
	setup := []string{
		"CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000', 'fields.k.min' = '0', 'fields.k.max' = '3', 'fields.v.min' = '0', 'fields.v.max' = '9')",
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '1 s'",
		"SET 'table.exec.mini-batch.size' = '100'",
		"SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
		"SET 'tablerun.exec.batch-size' = '7'",
	}
	e, _ := newStreamEnv(t)
	for _, s := range append(setup, badMerge, bigSum) {
		exec(t, e, s)
	}
	res := exec(t, e, "SELECT k, bad(v) FROM src GROUP BY k")
	var b strings.Builder
	err := PrintClientResult(&b, e.Config(), res, nil)
	require.ErrorContains(t, err, "line 9: merge: IndexError")
	out := b.String()
	require.Contains(t, out, "| op |")
	require.Contains(t, out, "[ERROR] Could not execute SQL statement. Reason:\n")
	require.Contains(t, out, "Python UDF 'bad' failed at inline body of bad, line 9: merge: IndexError: index out of range")

	// an accumulator that cannot be exported (a set) fails two phases
	// with the way out, and runs in one phase
	exec(t, e, `CREATE TEMPORARY FUNCTION dcount(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class dcount:
    def create_accumulator(self):
        return set()
    def accumulate(self, acc, v):
        acc.add(v)
    def merge(self, acc, others):
        for o in others:
            acc.update(o)
    def get_value(self, acc):
        return len(acc)
$$`)
	res, err = e.ExecuteSQL(context.Background(), "SELECT k, dcount(v) FROM src GROUP BY k")
	if err == nil {
		_, err = materializeErr(res)
	}
	require.ErrorContains(t, err, "a Python set object")
	require.ErrorContains(t, err, "SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'")
	exec(t, e, "SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'")
	sets, _ := materialize(t, exec(t, e, "SELECT k, dcount(v), COUNT(DISTINCT v) FROM src GROUP BY k"))
	require.Len(t, sets, 4)
	for _, row := range sets {
		f := strings.Fields(strings.Trim(row, "[]"))
		require.Equal(t, f[1], f[2], "dcount equals COUNT(DISTINCT): %s", row)
	}
	exec(t, e, "SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'")

	got, _ := materialize(t, exec(t, e, "SELECT k, bigsum(v), SUM(v) FROM src GROUP BY k"))
	require.Len(t, got, 4)
	for _, row := range got {
		f := strings.Fields(strings.Trim(row, "[]"))
		require.Equal(t, f[1], f[2], "bigsum equals SUM: %s", row)
	}
}

// TestUserAggregateWindowTwoPhase runs a Python and a JavaScript aggregate
// with merge in TUMBLE and HOP window aggregations: with TWO_PHASE they
// split into LocalWindowAggregate → GlobalWindowAggregate (every window's
// accumulators sharing one interpreter per operator), and the results at
// parallelism 1 and 2 equal one phase.
func TestUserAggregateWindowTwoPhase(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2))
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 1500; i++ {
		k := int(r.ExpFloat64()*3) % 10
		ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*40+r.IntN(2000)) * time.Millisecond)
		fmt.Fprintf(&b, "%d,%d,%d,%s\n", k, r.IntN(500)-100, r.IntN(4), ts.Format("2006-01-02 15:04:05.000"))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644))
	table := fmt.Sprintf(`CREATE TABLE t (k INT, v BIGINT, w INT, ts TIMESTAMP(3),
WATERMARK FOR ts AS ts - INTERVAL '3' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, dir)
	queries := []string{
		`SELECT window_start, window_end, k, wavg(v, w) AS a, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k`,
		`SELECT window_start, window_end, wavg(v, 1) AS a, MAX(v) AS m
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY window_start, window_end`,
	}
	modes := [][]string{nil}
	for _, p := range []string{"1", "2"} {
		modes = append(modes, []string{
			"'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
			"'table.exec.resource.default-parallelism' = '" + p + "'",
			"'tablerun.exec.batch-size' = '50'",
		})
	}
	for lang, create := range map[string]string{"python": wavgMergePython, "javascript": wavgMergeJS} {
		for _, q := range queries {
			var want []string
			for mi, sets := range modes {
				e, _ := newStreamEnv(t)
				exec(t, e, table)
				exec(t, e, create)
				for _, s := range sets {
					exec(t, e, "SET "+s)
				}
				plan := fmt.Sprint(exec(t, e, "EXPLAIN "+q).Rows()[0][0])
				require.Equal(t, mi > 0, strings.Contains(plan, "LocalWindowAggregate("), plan)
				got, _ := materialize(t, exec(t, e, q))
				if mi == 0 {
					want = got
					require.NotEmpty(t, want)
					continue
				}
				require.Equal(t, want, got, "%s, mode %v: %s", lang, sets, q)
			}
		}
	}
}

// materializeErr drains a result's changelog and returns its error.
func materializeErr(res *TableResult) (int, error) {
	n := 0
	for range res.Changes() {
		n++
	}
	return n, res.Err()
}
