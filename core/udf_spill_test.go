package core

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/physical"
)

// isumMergePython is isum with a merge method, so it can spill.
const isumMergePython = `CREATE TEMPORARY FUNCTION isum(v BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class isum:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, v):
        if v is not None:
            acc[0] += v
            acc[1] += 1

    def merge(self, acc, others):
        for o in others:
            acc[0] += o[0]
            acc[1] += o[1]

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return acc[0]
$$`

const isumMergeJS = `CREATE TEMPORARY FUNCTION isum(v BIGINT) RETURNS BIGINT LANGUAGE JAVASCRIPT AS $$
class isum {
  createAccumulator() { return {sum: 0, n: 0}; }
  accumulate(acc, v) { if (v !== null) { acc.sum += v; acc.n++; } }
  merge(acc, other) { acc.sum += other.sum; acc.n += other.n; }
  getValue(acc) { return acc.n === 0 ? null : acc.sum; }
}
$$`

// Script aggregates in a batch HashAggregate over the memory budget spill
// their exported accumulators and give the same rows as without a budget;
// a script without merge (or a DISTINCT call) cannot spill and fails with
// an error naming the function.
func TestScriptAggregateSpill(t *testing.T) {
	const q = "SELECT COUNT(*), SUM(t), MIN(t), MAX(t) FROM (SELECT k % 3000 AS m, isum(k) AS t FROM g GROUP BY k % 3000)"
	want := [][]any{{int64(3000), int64(50005000), int64(12003), int64(22000)}}
	for lang, create := range map[string]string{"python": isumMergePython, "javascript": isumMergeJS} {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t)
			dir := t.TempDir()
			exec(t, e, seqTable)
			exec(t, e, create)
			exec(t, e, "SET 'tablerun.exec.spill.memory-budget' = '16kb'")
			exec(t, e, "SET 'io.tmp.dirs' = '"+dir+"'")
			tbl, err := e.SQLQuery(q)
			require.NoError(t, err)
			res, an, err := tbl.ExecuteWithStats(context.Background())
			require.NoError(t, err)
			require.Equal(t, want, res.Rows())
			spilled := false
			var walk func(n physical.Node)
			walk = func(n physical.Node) {
				if n.Name() == "HashAggregate" && an.Stats.Node(n).Op.SpillCount > 0 {
					spilled = true
				}
				for _, c := range n.Children() {
					walk(c)
				}
			}
			walk(an.Plan)
			require.True(t, spilled, "no HashAggregate spilled")
			es, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, es, "spill files left behind")
		})
	}
	errs := []struct{ name, create, sql, want string }{
		{"no merge method", isumPython, q,
			"not supported yet: spilling the aggregate function 'default_catalog.default_database.isum', whose script defines no merge method"},
		{"DISTINCT", isumMergeJS, "SELECT COUNT(*) FROM (SELECT k % 3000 AS m, isum(DISTINCT k) AS t FROM g GROUP BY k % 3000)",
			"not supported yet: spilling the DISTINCT call of the aggregate function 'default_catalog.default_database.isum'"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			exec(t, e, seqTable)
			exec(t, e, tt.create)
			exec(t, e, "SET 'tablerun.exec.spill.memory-budget' = '16kb'")
			exec(t, e, "SET 'io.tmp.dirs' = '"+t.TempDir()+"'")
			_, err := e.ExecuteSQL(context.Background(), tt.sql)
			require.ErrorContains(t, err, tt.want)
			// the session stays usable
			require.Len(t, rows(t, e, "SELECT k FROM g WHERE k < 3"), 2)
		})
	}
}
