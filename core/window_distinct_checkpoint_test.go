package core

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWindowDistinctSavepointRestoresAtOtherParallelism runs window
// aggregations with DISTINCT calls in the background with checkpoints,
// stops them with a savepoint and restores the savepoint at parallelism 2:
// the committed output equals a run without the stop.
func TestWindowDistinctSavepointRestoresAtOtherParallelism(t *testing.T) {
	src := `CREATE TABLE src (id BIGINT, k AS MOD(id, 7), ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
		WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen',
		'rows-per-second' = '20000', 'number-of-rows' = '20000',
		'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20000')`
	tests := []struct {
		name, sink, insert string
	}{
		{
			name: "keyed TUMBLE",
			sink: "k BIGINT, w TIMESTAMP(3), cd BIGINT, sd BIGINT, c BIGINT",
			insert: `INSERT INTO snk SELECT k, window_start, COUNT(DISTINCT MOD(id, 13)), SUM(DISTINCT MOD(id, 50)), COUNT(*)
				FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`,
		},
		{
			name: "global HOP",
			sink: "w TIMESTAMP(3), cd BIGINT, sd BIGINT",
			insert: `INSERT INTO snk SELECT window_start, COUNT(DISTINCT CAST(MOD(id, 150) AS STRING)), SUM(DISTINCT MOD(id, 97))
				FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end`,
		},
		{
			name: "keyed HOP, float SUM",
			sink: "k BIGINT, w TIMESTAMP(3), sd DOUBLE, cd BIGINT",
			insert: `INSERT INTO snk SELECT k, window_start, SUM(DISTINCT CAST(MOD(id, 31) AS DOUBLE) / 7), COUNT(DISTINCT MOD(id, 5))
				FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tables := func(out string) []string {
				return []string{src, fmt.Sprintf(`CREATE TABLE snk (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, tc.sink, out)}
			}

			ref := NewTableEnvironment(InStreamingMode())
			for _, s := range tables(filepath.Join(dir, "ref")) {
				exec(t, ref, s)
			}
			exec(t, ref, tc.insert)
			want := visibleLines(t, filepath.Join(dir, "ref"))
			require.NotEmpty(t, want)

			out := filepath.Join(dir, "out")
			env := NewTableEnvironment(InStreamingMode())
			for _, s := range append(throttled(tables(out), "20000", "4000"),
				"SET 'table.dml-sync' = 'false'",
				"SET 'execution.checkpointing.interval' = '50 ms'",
				"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
				"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
				exec(t, env, s)
			}
			res := exec(t, env, tc.insert)
			require.True(t, res.Submitted())
			waitUntil(t, "two checkpoints and committed output", jobProgressed(t, env, 2, out))
			stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
			path := fmt.Sprint(stopped.Rows()[0][0])
			require.True(t, strings.HasPrefix(path, "file:"+filepath.Join(dir, "sp")+"/savepoint-"), path)
			require.Equal(t, JobFinished, exec(t, env, "SHOW JOBS").Rows()[0][2])
			require.Less(t, len(visibleLines(t, out)), len(want), "the job was stopped before its end")

			again := NewTableEnvironment(InStreamingMode())
			for _, s := range append(tables(out),
				"SET 'table.exec.resource.default-parallelism' = '2'",
				"SET 'execution.savepoint.path' = '"+strings.TrimPrefix(path, "file:")+"'") {
				exec(t, again, s)
			}
			exec(t, again, tc.insert)
			requireSameLines(t, want, visibleLines(t, out))
		})
	}
}
