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

// jobTables declares a throttled, bounded datagen source (a sequence with
// event time) and a filesystem sink of a TUMBLE aggregation over it.
func jobTables(out string) []string {
	return []string{
		`CREATE TABLE src (id BIGINT, k AS MOD(id, 7), ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
			WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '20000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20000')`,
		fmt.Sprintf(`CREATE TABLE snk (k BIGINT, w TIMESTAMP(3), c BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, out),
	}
}

const jobInsert = `INSERT INTO snk SELECT k, window_start, COUNT(*), SUM(id) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`

func visibleLines(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var lines []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// TestStopWithSavepointRestoresAtOtherParallelism submits a job in the
// background at parallelism 1, lists it, stops it with a savepoint, and
// restores the savepoint at parallelism 2: the committed output equals a
// run without the stop.
func TestStopWithSavepointRestoresAtOtherParallelism(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	ref := NewTableEnvironment(InStreamingMode())
	for _, s := range jobTables(filepath.Join(dir, "ref")) {
		exec(t, ref, s)
	}
	exec(t, ref, jobInsert)
	want := visibleLines(t, filepath.Join(dir, "ref"))
	require.NotEmpty(t, want)

	out := filepath.Join(dir, "out")
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range append(jobTables(out),
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '50 ms'",
		"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
		"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, jobInsert)
	require.True(t, res.Submitted())
	var client strings.Builder
	require.NoError(t, PrintClientResult(&client, env.cfg, res, nil))
	require.Contains(t, client.String(), "Job ID: "+res.JobID())

	time.Sleep(300 * time.Millisecond)
	jobs := exec(t, env, "SHOW JOBS")
	require.Len(t, jobs.Rows(), 1)
	require.Equal(t, res.JobID(), jobs.Rows()[0][0])
	require.Equal(t, "insert-into_default_catalog.default_database.snk", jobs.Rows()[0][1])
	require.Equal(t, JobRunning, jobs.Rows()[0][2])

	desc := exec(t, env, "DESCRIBE JOB '"+res.JobID()+"'")
	require.Equal(t, res.JobID(), desc.Rows()[0][0])
	require.Contains(t, fmt.Sprint(desc.Rows()[0][4]), " completed, ")

	stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := fmt.Sprint(stopped.Rows()[0][0])
	require.True(t, strings.HasPrefix(path, "file:"+filepath.Join(dir, "sp")+"/savepoint-"), path)
	require.Equal(t, JobFinished, exec(t, env, "SHOW JOBS").Rows()[0][2])
	partial := visibleLines(t, out)
	require.Less(t, len(partial), len(want), "the job was stopped before its end")

	again := NewTableEnvironment(InStreamingMode())
	for _, s := range append(jobTables(out),
		"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'execution.savepoint.path' = '"+strings.TrimPrefix(path, "file:")+"'") {
		exec(t, again, s)
	}
	exec(t, again, jobInsert)
	require.Equal(t, want, visibleLines(t, out))

	_, err := env.ExecuteSQL(ctx, "STOP JOB 'ffffffffffffffffffffffffffffffff'")
	require.ErrorContains(t, err, "job not found")
}

// TestStopJobWithDrain drains a background job over an unbounded source:
// its sources end, the last (partial) window fires and the sink commits,
// and the job is FINISHED.
func TestStopJobWithDrain(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range []string{
		`CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
			WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000')`,
		fmt.Sprintf(`CREATE TABLE snk (w TIMESTAMP(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, out),
		"SET 'table.dml-sync' = 'false'",
	} {
		exec(t, env, s)
	}
	res := exec(t, env, "INSERT INTO snk SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end")
	time.Sleep(300 * time.Millisecond)
	exec(t, env, "STOP JOB '"+res.JobID()+"' WITH DRAIN")
	require.Equal(t, JobFinished, env.Jobs()[0].Status)
	lines := visibleLines(t, out)
	require.Len(t, lines, 1, "the open window fired when the input ended")
	_, err := env.ExecuteSQL(context.Background(), "STOP JOB '"+res.JobID()+"' WITH DRAIN")
	require.ErrorContains(t, err, "not RUNNING")
}

// TestJobSubmissionErrorsListNoJob: an INSERT that cannot start (here a
// checkpoint interval without a directory) fails as a statement and leaves
// no job behind; AwaitJobs only reports background jobs.
func TestJobSubmissionErrorsListNoJob(t *testing.T) {
	env := NewTableEnvironment(InStreamingMode())
	exec(t, env, "CREATE TABLE s (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
	exec(t, env, "CREATE TABLE p (id BIGINT) WITH ('connector' = 'blackhole')")
	exec(t, env, "SET 'execution.checkpointing.interval' = '1 s'")
	_, err := env.ExecuteSQL(context.Background(), "INSERT INTO p SELECT id FROM s")
	require.ErrorContains(t, err, "no checkpoint directory is configured")
	require.Empty(t, env.Jobs())
	exec(t, env, "RESET 'execution.checkpointing.interval'")
	exec(t, env, "INSERT INTO p SELECT id FROM s")
	require.Len(t, env.Jobs(), 1)
	require.Equal(t, JobFinished, env.Jobs()[0].Status)
	require.NoError(t, env.AwaitJobs(context.Background()))
}
