package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// windowTables is an event-time source (ids 10 ms apart, 400 keys) and
// a print sink keyed by key and window, for the window aggregates on the
// disk backend.
func windowTables(rows int) []string {
	return []string{
		fmt.Sprintf(`CREATE TABLE src (id BIGINT, k AS MOD(id * 7919, 400), ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
			WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '%d',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d')`, rows, rows),
		`CREATE TABLE snk (w STRING, n BIGINT, s BIGINT) WITH ('connector' = 'print')`,
	}
}

// Window aggregations whose first column names the key and the window:
// TUMBLE, HOP (each row in four windows) and CUMULATE, one- and
// two-phase (table.optimizer.agg-phase-strategy).
var windowInserts = []struct{ name, insert string }{
	{"TUMBLE", `INSERT INTO snk SELECT CONCAT(CAST(k AS STRING), '@', CAST(window_start AS STRING)), COUNT(*), SUM(id)
		FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end`},
	{"HOP", `INSERT INTO snk SELECT CONCAT(CAST(k AS STRING), '@', CAST(window_start AS STRING)), COUNT(DISTINCT id / 4), MAX(id)
		FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY k, window_start, window_end`},
	{"CUMULATE", `INSERT INTO snk SELECT CONCAT(CAST(window_start AS STRING), '/', CAST(window_end AS STRING)), COUNT(*), SUM(k)
		FROM TABLE(CUMULATE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end`},
}

// TestRocksDBWindowMatchesHashMap: the window aggregates under 'rocksdb',
// with a budget so small the cached windows go to the store many times,
// give what they give under 'hashmap', one- and two-phase; and they
// restore from incremental checkpoints at the same and at another
// parallelism.
func TestRocksDBWindowMatchesHashMap(t *testing.T) {
	for _, q := range windowInserts {
		for _, phase := range []string{"ONE_PHASE", "TWO_PHASE"} {
			t.Run(q.name+"/"+phase, func(t *testing.T) {
				tables := append(windowTables(24000), "SET 'table.optimizer.agg-phase-strategy' = '"+phase+"'")
				want := upsertMaterialize(t, runTo(t, tables, q.insert))
				require.NotEmpty(t, want)
				got := upsertMaterialize(t, runTo(t, append(tables,
					"SET 'state.backend.type' = 'rocksdb'",
					"SET 'taskmanager.memory.managed.size' = '64 kb'",
					"SET 'io.tmp.dirs' = '"+t.TempDir()+"'"), q.insert))
				require.Equal(t, want, got)
				for _, par := range []int{1, 2} {
					t.Run(fmt.Sprintf("restore at parallelism %d", par), func(t *testing.T) { testRocksRestore(t, tables, q.insert, par) })
				}
			})
		}
	}
}

// TestRocksDBWindowJoinMatchesHashMap: inner and full window joins under
// 'rocksdb', the buffered rows going to the store many times, give what
// they give under 'hashmap', and restore from incremental checkpoints at
// the same and at another parallelism.
func TestRocksDBWindowJoinMatchesHashMap(t *testing.T) {
	tables := append(windowTables(24000),
		`CREATE TABLE src2 (id BIGINT, k AS MOD(id * 104729, 400), ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
			WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '24000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '24000')`)
	for _, kind := range []string{"JOIN", "FULL JOIN"} {
		t.Run(kind, func(t *testing.T) {
			insert := `INSERT INTO snk SELECT CONCAT(COALESCE(CAST(L.id AS STRING), '-'), '/', COALESCE(CAST(R.id AS STRING), '-')), L.k, R.id
				FROM (SELECT * FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND))) L
				` + kind + ` (SELECT * FROM TABLE(TUMBLE(TABLE src2, DESCRIPTOR(ts), INTERVAL '2' SECOND))) R
				ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k`
			want := upsertMaterialize(t, runTo(t, tables, insert))
			require.NotEmpty(t, want)
			got := upsertMaterialize(t, runTo(t, append(tables,
				"SET 'state.backend.type' = 'rocksdb'",
				"SET 'taskmanager.memory.managed.size' = '64 kb'",
				"SET 'io.tmp.dirs' = '"+t.TempDir()+"'"), insert))
			require.Equal(t, want, got)
			for _, par := range []int{1, 2} {
				t.Run(fmt.Sprintf("restore at parallelism %d", par), func(t *testing.T) { testRocksRestore(t, tables, insert, par) })
			}
		})
	}
}

// TestSavepointMovesWindowsBetweenBackends: a window aggregate and a
// window join stopped with a savepoint under one backend continue under
// the other (the savepoint is the canonical "windows" / "left" and
// "right" parts whatever the backend).
func TestSavepointMovesWindowsBetweenBackends(t *testing.T) {
	join := append(windowTables(24000),
		`CREATE TABLE src2 (id BIGINT, k AS MOD(id * 104729, 400), ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10, 3),
			WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '24000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '24000')`)
	joinInsert := `INSERT INTO snk SELECT CONCAT(COALESCE(CAST(L.id AS STRING), '-'), '/', COALESCE(CAST(R.id AS STRING), '-')), L.k, R.id
		FROM (SELECT * FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND))) L
		FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE src2, DESCRIPTOR(ts), INTERVAL '2' SECOND))) R
		ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k`
	for _, dirs := range [][2]string{{"hashmap", "rocksdb"}, {"rocksdb", "hashmap"}} {
		for _, q := range []struct {
			name, insert string
			tables       []string
		}{{"HOP", windowInserts[1].insert, windowTables(24000)}, {"window join", joinInsert, join}} {
			t.Run(dirs[0]+" to "+dirs[1]+"/"+q.name, func(t *testing.T) { testSavepointMoveOf(t, q.tables, q.insert, dirs[0], dirs[1]) })
		}
	}
}

func testSavepointMoveOf(t *testing.T, tables []string, insert, from, to string) {
	dir := t.TempDir()
	want := upsertMaterialize(t, runTo(t, tables, insert))
	env := NewTableEnvironment(InStreamingMode())
	out := &lockedBuffer{}
	env.SetOutput(out, out)
	for _, s := range append(tables,
		"SET 'state.backend.type' = '"+from+"'",
		"SET 'io.tmp.dirs' = '"+filepath.Join(dir, "tmp")+"'",
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '50 ms'",
		"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
		"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, insert)
	require.True(t, res.Submitted())
	time.Sleep(500 * time.Millisecond)
	stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")
	md, err := os.ReadFile(filepath.Join(path, "_metadata"))
	require.NoError(t, err)
	require.NotContains(t, string(md), `"files"`, "a savepoint holds no store files")
	first := out.String()
	require.NotEmpty(t, upsertMaterialize(t, first), "nothing fired before the savepoint")

	again := NewTableEnvironment(InStreamingMode())
	out2 := &lockedBuffer{}
	again.SetOutput(out2, out2)
	for _, s := range append(tables,
		"SET 'state.backend.type' = '"+to+"'",
		"SET 'io.tmp.dirs' = '"+filepath.Join(dir, "tmp")+"'",
		"SET 'execution.savepoint.path' = '"+path+"'") {
		exec(t, again, s)
	}
	exec(t, again, insert)
	require.Equal(t, want, upsertMaterialize(t, first+out2.String()))
}
