package datagen_test

// End-to-end: a datagen table scanned by parallel instances through the
// SQL engine (an external test package: core imports the connectors).

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/sqltest"
)

func execAll(t *testing.T, env *core.TableEnvironment, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		_, err := env.ExecuteSQL(context.Background(), s)
		require.NoError(t, err, s)
	}
}

const e2eTable = `CREATE TABLE src (id BIGINT, s STRING, v INT, k AS MOD(id, 13)) WITH ('connector' = 'datagen',
	'number-of-rows' = '%d', 'rows-per-second' = '100000000',
	'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000',
	'fields.s.kind' = 'sequence', 'fields.s.start' = '5', 'fields.s.end' = '1000000',
	'fields.v.min' = '0', 'fields.v.max' = '99', 'fields.v.null-rate' = '0.1')`

// TestParallelGroupByMatchesSingle: a bounded datagen GROUP BY gives the
// same result at parallelism 2 (two generator instances) as at 1, for
// sequence and random fields, with several batch sizes and row counts
// (not multiples of the batch size or of the parallelism).
func TestParallelGroupByMatchesSingle(t *testing.T) {
	query := `SELECT k, COUNT(*), SUM(id), MIN(id), MAX(id), COUNT(DISTINCT s), SUM(v), COUNT(v) FROM src GROUP BY k`
	for _, rows := range []int{1, 1001, 20011} {
		for _, batch := range []string{"7", "1024"} {
			var want []string
			for _, p := range []string{"1", "2", "3"} {
				env := core.NewTableEnvironment(core.InStreamingMode())
				execAll(t, env, fmt.Sprintf(e2eTable, rows),
					"SET 'table.exec.resource.default-parallelism' = '"+p+"'",
					"SET 'tablerun.exec.batch-size' = '"+batch+"'")
				res, err := env.ExecuteSQL(context.Background(), query)
				require.NoError(t, err)
				got := sqltest.Materialize(t, res)
				if want == nil {
					want = got
					require.Len(t, want, min(rows, 13))
					continue
				}
				require.Equal(t, want, got, "rows=%d batch=%s p=%s", rows, batch, p)
			}
		}
	}
}

// TestParallelScanRunsSplits: at parallelism 2 the scan runs as two
// instances, each making its chunks of the sequence (the print sink after
// it prefixes the lines with its subtask), every id exactly once; with
// 'scan.parallelism' = '1' a single instance makes them all.
func TestParallelScanRunsSplits(t *testing.T) {
	for _, single := range []bool{false, true} {
		var out strings.Builder
		env := core.NewTableEnvironment(core.InStreamingMode())
		env.SetOutput(&out, &out)
		ddl := fmt.Sprintf(e2eTable, 100)
		if single {
			ddl = strings.Replace(ddl, "'connector' = 'datagen',", "'connector' = 'datagen', 'scan.parallelism' = '1',", 1)
		}
		execAll(t, env, ddl,
			"CREATE TABLE p (id BIGINT) WITH ('connector' = 'print')",
			"SET 'table.exec.resource.default-parallelism' = '2'",
			"SET 'tablerun.exec.batch-size' = '10'",
			"INSERT INTO p SELECT id FROM src")
		seen := map[int64]string{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			prefix, val := "", line
			if p, v, ok := strings.Cut(line, "> "); ok {
				prefix, val = p, v
			}
			id, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(val, "]"), "+I[")), 10, 64)
			require.NoError(t, err, line)
			_, dup := seen[id]
			require.False(t, dup, "id %d twice", id)
			seen[id] = prefix
		}
		require.Len(t, seen, 100)
		prefixes := map[string]bool{}
		for _, prefix := range seen {
			prefixes[prefix] = true
		}
		if single {
			require.Len(t, prefixes, 1, "one instance prints everything")
			continue
		}
		for id, prefix := range seen {
			// chunks of 10 rows: row id-1 is in chunk (id-1)/10, made by
			// split chunk % 2 (print's subtask is split+1)
			require.Equal(t, strconv.FormatInt((id-1)/10%2+1, 10), prefix, "id %d", id)
		}
	}
}
