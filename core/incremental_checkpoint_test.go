package core

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// lockedBuffer is the stdout of a job that prints from its own goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// upsertMaterialize applies printed changelog lines ("+I[k, …]") by key
// (the first field): +I/+U set the row, -D removes it, -U is ignored, so
// at-least-once duplicates after a restore do not matter.
func upsertMaterialize(t *testing.T, out string) []string {
	t.Helper()
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if _, rest, ok := strings.Cut(l, "> "); ok {
			l = rest // the subtask prefix of print at parallelism > 1
		}
		if len(l) < 4 || l[2] != '[' {
			continue
		}
		row := l[3 : len(l)-1]
		key, _, _ := strings.Cut(row, ", ")
		switch l[:2] {
		case "+I", "+U":
			m[key] = row
		case "-D":
			delete(m, key)
		}
	}
	rows := make([]string, 0, len(m))
	for _, r := range m {
		rows = append(rows, r)
	}
	sort.Strings(rows)
	return rows
}

// TestIncrementalCheckpointsRestoreGroupBy runs a two-level GROUP BY (the
// outer one sees retractions, so its groups come and go) with incremental
// checkpoints every few milliseconds, cancels it, restores it from its
// latest checkpoint — a chain of a full snapshot and deltas — at
// parallelism 2, and compares the final result with an uninterrupted run.
func TestIncrementalCheckpointsRestoreGroupBy(t *testing.T) {
	twoPhase := []string{
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '5 ms'",
		"SET 'table.exec.mini-batch.size' = '500'",
		"SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
	}
	tests := []struct {
		name string
		opts []string
		sum  string
	}{
		{"per record", nil, "SUM(id)"},
		{"mini-batch two-phase", twoPhase, "SUM(id)"},
		// the global phase's state holds exported script accumulators
		{"mini-batch two-phase, user-defined aggregate", append([]string{isumMergeJS}, twoPhase...), "isum(id)"},
		// … and distinct values (the local phase ships them in a distinct column)
		{"mini-batch two-phase, DISTINCT", twoPhase, "SUM(DISTINCT id) + COUNT(DISTINCT MOD(id, 7))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { testIncrementalGroupBy(t, tc.opts, tc.sum) })
	}
}

func testIncrementalGroupBy(t *testing.T, opts []string, sum string) {
	dir := t.TempDir()
	tables := []string{
		`CREATE TABLE src (id BIGINT, k AS MOD(id * 7919, 4000)) WITH ('connector' = 'datagen',
			'rows-per-second' = '20000', 'number-of-rows' = '24000',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '24000')`,
		`CREATE TABLE snk (c BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'print')`,
	}
	tables = append(tables, opts...)
	insert := `INSERT INTO snk SELECT c, COUNT(*), SUM(s) FROM (SELECT k, COUNT(*) AS c, ` + sum + ` AS s FROM src GROUP BY k) GROUP BY c`

	ref := NewTableEnvironment(InStreamingMode())
	refOut := &lockedBuffer{}
	ref.SetOutput(refOut, refOut)
	for _, s := range append(tables, insert) {
		exec(t, ref, s)
	}
	want := upsertMaterialize(t, refOut.String())
	require.NotEmpty(t, want)

	chk := filepath.Join(dir, "chk")
	env := NewTableEnvironment(InStreamingMode())
	out := &lockedBuffer{}
	env.SetOutput(out, out)
	backend := testStateBackend() // rocksdb_state_test.go
	for _, s := range append(throttled(tables, "20000", "4000"),
		"SET 'state.backend.type' = '"+backend+"'",
		"SET 'io.tmp.dirs' = '"+filepath.Join(dir, "tmp")+"'",
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '20 ms'",
		"SET 'execution.checkpointing.num-retained' = '2'",
		"SET 'execution.checkpointing.dir' = '"+chk+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, insert)
	require.True(t, res.Submitted())
	// the latest checkpoints hold deltas (hashmap) or shared store files
	// (rocksdb): wait for two of them, then stop
	jobDir := filepath.Join(chk, res.JobID())
	mark := `"delta": true`
	if backend == "rocksdb" {
		mark = `"path": "shared/`
	}
	deltas := func() int {
		entries, _ := os.ReadDir(jobDir)
		n := 0
		for _, e := range entries {
			if md, err := os.ReadFile(filepath.Join(jobDir, e.Name(), "_metadata")); err == nil && strings.Contains(string(md), mark) {
				n++
			}
		}
		return n
	}
	waitUntil(t, "two incremental checkpoints", func() bool { return jobProgressed(t, env, 2, "")() && deltas() >= 2 })
	exec(t, env, "STOP JOB '"+res.JobID()+"'")
	first := out.String()
	require.Less(t, len(upsertMaterialize(t, first)), 1+len(want)*2)
	require.Positive(t, deltas(), "no retained checkpoint is incremental")

	again := NewTableEnvironment(InStreamingMode())
	out2 := &lockedBuffer{}
	again.SetOutput(out2, out2)
	for _, s := range append(tables,
		"SET 'state.backend.type' = '"+backend+"'",
		"SET 'io.tmp.dirs' = '"+filepath.Join(dir, "tmp")+"'",
		"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'execution.savepoint.path' = '"+jobDir+"'") {
		exec(t, again, s)
	}
	exec(t, again, insert)
	for _, l := range strings.Split(out2.String(), "\n") {
		require.NotContains(t, l, "Skipping corrupt", "a complete checkpoint was skipped")
	}
	require.Equal(t, want, upsertMaterialize(t, first+out2.String()))
}
