package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testStateBackend is the state backend the checkpoint tests of the
// operators on the disk backend run with: TABLERUN_TEST_STATE_BACKEND
// ('hashmap' when unset; .ci/run runs them with 'rocksdb' too).
func testStateBackend() string {
	if v := os.Getenv("TABLERUN_TEST_STATE_BACKEND"); v != "" {
		return v
	}
	return "hashmap"
}

func TestStateBackendOption(t *testing.T) {
	env := NewTableEnvironment(InStreamingMode())
	_, err := env.ExecuteSQL(context.Background(), "SET 'state.backend.type' = 'leveldb'")
	require.EqualError(t, err, "Cannot find configured state backend factory class: leveldb")
	_, err = env.ExecuteSQL(context.Background(), "SET 'state.backend.type' = 'forst'")
	require.ErrorContains(t, err, "not supported yet: state.backend.type 'forst'")
	for _, v := range []string{"hashmap", "filesystem", "jobmanager", "RocksDB"} {
		exec(t, env, "SET 'state.backend.type' = '"+v+"'")
	}
	_, err = env.ExecuteSQL(context.Background(), "SET 'taskmanager.memory.managed.size' = 'lots'")
	require.Error(t, err)
	exec(t, env, "SET 'taskmanager.memory.managed.size' = '64 mb'")
	sb, err := env.cfg.StateBackend()
	require.NoError(t, err)
	require.Equal(t, "rocksdb", sb.Type)
	require.Equal(t, int64(64<<20), sb.ManagedSize)
	require.True(t, sb.Managed)
}

// TestRocksDBNotPortedOperatorFails: an operator whose state is not on
// the disk backend yet fails the job instead of keeping heap state.
func TestRocksDBNotPortedOperatorFails(t *testing.T) {
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range []string{
		"CREATE TABLE a (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '10')",
		"CREATE TABLE b (k BIGINT, w BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '10')",
		"CREATE TABLE snk (k BIGINT, v BIGINT, w BIGINT) WITH ('connector' = 'blackhole')",
		"CREATE TABLE c (k BIGINT, v BIGINT, p AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '10')",
		"SET 'state.backend.type' = 'rocksdb'",
	} {
		exec(t, env, s)
	}
	_, err := env.ExecuteSQL(context.Background(), "INSERT INTO snk SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM c")
	require.ErrorContains(t, err, "not supported yet: state.backend.type 'rocksdb' for OverAggregate")
}

// rankTables is a source whose keys repeat (each k six times over 24000
// rows) with a processing-time attribute, for Top-N and deduplication.
func rankTables(rows int) []string {
	return []string{
		fmt.Sprintf(`CREATE TABLE src (id BIGINT, k AS MOD(id * 7919, 4000), p AS PROCTIME()) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '%d',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d')`, rows, rows),
		`CREATE TABLE snk (c BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'print')`,
	}
}

// Top-1 per key by id (Rank: -D of the row pushed out, +I of the new
// one) and keeping the first row per key by processing time
// (Deduplicate), whose results do not depend on how rows of different
// keys interleave.
const (
	rankInsert  = `INSERT INTO snk SELECT k, id, id * 2 FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id DESC) AS rn FROM src) WHERE rn <= 1`
	dedupInsert = `INSERT INTO snk SELECT k, id, id * 2 FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p ASC) AS rn FROM src) WHERE rn = 1`
)

// TestRocksDBRankAndDeduplicate: Top-N and deduplication under 'rocksdb'
// give what they give under 'hashmap', with a budget so small the cache
// is emptied into the store many times, and restore from incremental
// checkpoints at the same and at another parallelism.
func TestRocksDBRankAndDeduplicate(t *testing.T) {
	for _, q := range []struct{ name, insert string }{{"Top-N", rankInsert}, {"deduplicate", dedupInsert}} {
		t.Run(q.name, func(t *testing.T) {
			want := upsertMaterialize(t, runTo(t, rankTables(24000), q.insert))
			require.Len(t, want, 4000)
			got := upsertMaterialize(t, runTo(t, append(rankTables(24000),
				"SET 'state.backend.type' = 'rocksdb'",
				"SET 'taskmanager.memory.managed.size' = '64 kb'",
				"SET 'io.tmp.dirs' = '"+t.TempDir()+"'"), q.insert))
			require.Equal(t, want, got)
			for _, par := range []int{1, 2} {
				t.Run(fmt.Sprintf("restore at parallelism %d", par), func(t *testing.T) { testRocksRestore(t, rankTables(24000), q.insert, par) })
			}
		})
	}
}

// rocksTables is a two-level GROUP BY whose outer level sees retractions.
func rocksTables(rows int) []string {
	return []string{
		fmt.Sprintf(`CREATE TABLE src (id BIGINT, k AS MOD(id * 7919, 4000)) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '%d',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d')`, rows, rows),
		`CREATE TABLE snk (c BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'print')`,
	}
}

const rocksInsert = `INSERT INTO snk SELECT c, COUNT(*), SUM(s) FROM (SELECT k, COUNT(*) AS c, SUM(id) AS s FROM src GROUP BY k) GROUP BY c`

// runTo runs stmts (then insert) to the end and returns the printed output.
func runTo(t *testing.T, stmts []string, insert string) string {
	t.Helper()
	env := NewTableEnvironment(InStreamingMode())
	out := &lockedBuffer{}
	env.SetOutput(out, out)
	for _, s := range append(stmts, insert) {
		exec(t, env, s)
	}
	return out.String()
}

// TestRocksDBGroupByMatchesHashMap: the same aggregation under both
// backends, with a memory budget small enough that the cache of hot keys
// is emptied into the store many times, gives the same result.
func TestRocksDBGroupByMatchesHashMap(t *testing.T) {
	want := upsertMaterialize(t, runTo(t, rocksTables(30000), rocksInsert))
	require.NotEmpty(t, want)
	got := upsertMaterialize(t, runTo(t, append(rocksTables(30000),
		"SET 'state.backend.type' = 'rocksdb'",
		"SET 'taskmanager.memory.managed.size' = '64 kb'",
		"SET 'io.tmp.dirs' = '"+t.TempDir()+"'"), rocksInsert))
	require.Equal(t, want, got)
}

// TestRocksDBIncrementalCheckpointsRestore: under 'rocksdb' incremental
// checkpoints hold the stores' files (tables shared between checkpoints,
// listed in _metadata); the job restores from them at the same
// parallelism and at another one (re-keyed by key group).
func TestRocksDBIncrementalCheckpointsRestore(t *testing.T) {
	join := append(rocksTables(24000),
		`CREATE TABLE src2 (id BIGINT, k AS MOD(id * 104729, 4000)) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '24000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '24000')`)
	joinInsert := `INSERT INTO snk SELECT a.k, COUNT(*), SUM(a.id + b.id) FROM src a JOIN src2 b ON a.k = b.k GROUP BY a.k`
	for _, par := range []int{1, 2} {
		t.Run(fmt.Sprintf("GROUP BY, restore at parallelism %d", par), func(t *testing.T) { testRocksRestore(t, rocksTables(24000), rocksInsert, par) })
		t.Run(fmt.Sprintf("join, restore at parallelism %d", par), func(t *testing.T) { testRocksRestore(t, join, joinInsert, par) })
	}
}

func testRocksRestore(t *testing.T, tables []string, rocksInsert string, par int) {
	dir := t.TempDir()
	want := upsertMaterialize(t, runTo(t, tables, rocksInsert))
	chk := filepath.Join(dir, "chk")
	tmp := filepath.Join(dir, "tmp")
	env := NewTableEnvironment(InStreamingMode())
	out := &lockedBuffer{}
	env.SetOutput(out, out)
	for _, s := range append(tables,
		"SET 'state.backend.type' = 'rocksdb'",
		"SET 'io.tmp.dirs' = '"+tmp+"'",
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '30 ms'",
		"SET 'execution.checkpointing.num-retained' = '2'",
		"SET 'execution.checkpointing.dir' = '"+chk+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, rocksInsert)
	require.True(t, res.Submitted())
	time.Sleep(600 * time.Millisecond)
	exec(t, env, "STOP JOB '"+res.JobID()+"'")
	first := out.String()

	jobDir := filepath.Join(chk, res.JobID())
	var entries []os.DirEntry
	withFiles, retained := 0, 0
	// a checkpoint acknowledged before the stop may still be completing
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		entries, err = os.ReadDir(jobDir)
		require.NoError(t, err)
		retained = 0
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(jobDir, e.Name(), "_metadata")); err == nil {
				retained++
			}
		}
		if retained <= 2 || time.Now().After(deadline) {
			break
		}
	}
	retained = 0
	for _, e := range entries {
		md, err := os.ReadFile(filepath.Join(jobDir, e.Name(), "_metadata"))
		if err != nil {
			continue
		}
		retained++
		if strings.Contains(string(md), `"path": "shared/`) {
			withFiles++
		}
	}
	require.Positive(t, withFiles, "no retained checkpoint lists store files")
	require.LessOrEqual(t, retained, 2, "retention keeps num-retained checkpoints")
	// every shared file is listed by a retained checkpoint (a checkpoint
	// still completing after the stop has moved its files into shared/
	// before it writes its _metadata: wait for it)
	unlisted := func() (string, int) {
		entries, _ := os.ReadDir(jobDir)
		shared, _ := filepath.Glob(filepath.Join(jobDir, "shared", "*", "*"))
		for _, f := range shared {
			rel, _ := filepath.Rel(jobDir, f)
			listed := false
			for _, e := range entries {
				if md, err := os.ReadFile(filepath.Join(jobDir, e.Name(), "_metadata")); err == nil && strings.Contains(string(md), `"`+filepath.ToSlash(rel)+`"`) {
					listed = true
				}
			}
			if !listed {
				return rel, len(shared)
			}
		}
		return "", len(shared)
	}
	rel, nShared := unlisted()
	for deadline := time.Now().Add(2 * time.Second); rel != "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rel, nShared = unlisted()
	}
	require.Positive(t, nShared)
	require.Empty(t, rel, "a shared file is referenced by no retained checkpoint")
	// the working directory is gone with the job
	left, _ := filepath.Glob(filepath.Join(tmp, "tablerun-rocksdb-*"))
	require.Empty(t, left)

	again := NewTableEnvironment(InStreamingMode())
	out2 := &lockedBuffer{}
	again.SetOutput(out2, out2)
	for _, s := range append(tables,
		"SET 'state.backend.type' = 'rocksdb'",
		"SET 'io.tmp.dirs' = '"+tmp+"'",
		fmt.Sprintf("SET 'table.exec.resource.default-parallelism' = '%d'", par),
		"SET 'execution.savepoint.path' = '"+jobDir+"'") {
		exec(t, again, s)
	}
	exec(t, again, rocksInsert)
	for _, l := range strings.Split(out2.String(), "\n") {
		require.NotContains(t, l, "Skipping corrupt", "a complete checkpoint was skipped")
	}
	require.Equal(t, want, upsertMaterialize(t, first+out2.String()))

	// a heap-state job cannot read store files
	heap := NewTableEnvironment(InStreamingMode())
	for _, s := range append(tables, "SET 'execution.savepoint.path' = '"+jobDir+"'") {
		exec(t, heap, s)
	}
	_, err := heap.ExecuteSQL(context.Background(), rocksInsert)
	require.ErrorContains(t, err, "with state.backend.type 'hashmap' from an incremental checkpoint taken with 'rocksdb'")
}

// TestSavepointMovesBetweenBackends: a savepoint is canonical Arrow
// whatever the backend, so a job stopped with a savepoint under one
// backend continues under the other.
func TestSavepointMovesBetweenBackends(t *testing.T) {
	for _, dirs := range [][2]string{{"hashmap", "rocksdb"}, {"rocksdb", "hashmap"}} {
		t.Run(dirs[0]+" to "+dirs[1], func(t *testing.T) { testSavepointMove(t, dirs[0], dirs[1]) })
	}
}

func testSavepointMove(t *testing.T, from, to string) {
	testSavepointMoveOf(t, rocksTables(24000), rocksInsert, from, to) // rocksdb_window_test.go
}
