package core

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// finishedTables: a throttled stream joined with a small bounded table,
// which finishes at once.
func finishedTables(out string) []string {
	return []string{
		`CREATE TABLE a (id BIGINT, k AS MOD(id, 50)) WITH ('connector' = 'datagen',
			'rows-per-second' = '4000', 'number-of-rows' = '6000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6000')`,
		`CREATE TABLE d (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '50', 'rows-per-second' = '1000000',
			'fields.k.kind' = 'sequence', 'fields.k.start' = '0', 'fields.k.end' = '49',
			'fields.v.kind' = 'sequence', 'fields.v.start' = '100', 'fields.v.end' = '149')`,
		fmt.Sprintf(`CREATE TABLE snk (id BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, out),
	}
}

const finishedInsert = `INSERT INTO snk SELECT a.id, d.v FROM a JOIN d ON a.k = d.k`

// TestCheckpointsContinueAfterASourceFinishes checkpoints a job whose
// bounded side finishes at once: checkpoints go on (the finished tasks
// answer with their final state), and a savepoint taken afterwards
// restores at parallelism 2 to the uninterrupted result.
func TestCheckpointsContinueAfterASourceFinishes(t *testing.T) {
	dir := t.TempDir()
	ref := NewTableEnvironment(InStreamingMode())
	for _, s := range finishedTables(filepath.Join(dir, "ref")) {
		exec(t, ref, s)
	}
	exec(t, ref, finishedInsert)
	want := visibleLines(t, filepath.Join(dir, "ref"))
	require.Len(t, want, 6000)

	out := filepath.Join(dir, "out")
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range append(throttled(finishedTables(out), "4000", "1000"),
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '50 ms'",
		"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
		"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, finishedInsert)
	// checkpoints go on after d finished (at once: 50 rows at full speed)
	waitUntil(t, "three checkpoints", jobProgressed(t, env, 3, ""))
	stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")
	require.Less(t, len(visibleLines(t, out)), 6000)

	again := NewTableEnvironment(InStreamingMode())
	for _, s := range append(finishedTables(out),
		"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'execution.savepoint.path' = '"+path+"'") {
		exec(t, again, s)
	}
	_, err := again.ExecuteSQL(context.Background(), finishedInsert)
	require.NoError(t, err)
	require.Equal(t, want, visibleLines(t, out))
}
