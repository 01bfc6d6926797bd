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

// writeCSV writes lines into dir/name atomically (a hidden file renamed).
func writeCSV(t *testing.T, dir, name string, lines ...string) {
	t.Helper()
	tmp := filepath.Join(dir, "."+name)
	require.NoError(t, os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, name)))
}

// TestFilesystemMonitorInterval: a streaming query over a filesystem table
// with source.monitor-interval sees the files added while it runs; in
// batch mode the table is rejected as unbounded.
func TestFilesystemMonitorInterval(t *testing.T) {
	dir := t.TempDir()
	writeCSV(t, dir, "a.csv", "1,a", "2,b")
	ddl := fmt.Sprintf(`CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv', 'source.monitor-interval' = '10 ms')`, dir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, _ := newStreamEnv(t)
	exec(t, e, ddl)
	res, err := e.ExecuteSQL(ctx, "SELECT id, UPPER(s) FROM t")
	require.NoError(t, err)
	var got []string
	for k, row := range res.Changes() {
		got = append(got, fmt.Sprintf("%s%v", k, row))
		if len(got) == 2 {
			writeCSV(t, dir, "b.csv", "3,c")
		}
		if len(got) == 3 {
			break
		}
	}
	require.NoError(t, res.Close())
	require.Equal(t, []string{"+I[1 A]", "+I[2 B]", "+I[3 C]"}, got)

	b := NewTableEnvironment(InBatchMode())
	exec(t, b, ddl)
	_, err = b.ExecuteSQL(context.Background(), "SELECT * FROM t")
	require.Error(t, err)
	require.Contains(t, err.Error(), "Querying an unbounded table 'default_catalog.default_database.t' in batch mode is not allowed. The table source is unbounded.")
}

// TestSourceIdleTimeout: windows over the UNION ALL of two monitored
// directories, one of them silent. Without table.exec.source.idle-timeout
// the silent input holds the watermark and no window fires; with it the
// silent input is idle and the windows fire; a row that arrives later in
// the silent directory makes it active again.
func TestSourceIdleTimeout(t *testing.T) {
	setup := func(t *testing.T, idle string) (*TableEnvironment, string) {
		a, b := t.TempDir(), t.TempDir()
		writeCSV(t, a, "a1.csv",
			"x,2024-01-01 10:00:10", "y,2024-01-01 10:00:50", "x,2024-01-01 10:01:30", "x,2024-01-01 10:02:10")
		e, _ := newStreamEnv(t)
		if idle != "" {
			exec(t, e, fmt.Sprintf("SET 'table.exec.source.idle-timeout' = '%s'", idle))
		}
		for name, dir := range map[string]string{"a": a, "b": b} {
			exec(t, e, fmt.Sprintf(`CREATE TABLE %s (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
				'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv', 'source.monitor-interval' = '10 ms')`, name, dir))
		}
		exec(t, e, "CREATE VIEW u AS SELECT * FROM a UNION ALL SELECT * FROM b")
		return e, b
	}
	const query = `SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end`

	t.Run("without the timeout the silent input holds the windows", func(t *testing.T) {
		e, _ := setup(t, "")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		res, err := e.ExecuteSQL(ctx, query)
		if err == nil {
			var got []string
			for _, row := range res.Changes() {
				got = append(got, fmt.Sprint(row))
			}
			require.Empty(t, got)
			_ = res.Close()
			return
		}
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})

	t.Run("with the timeout the windows fire", func(t *testing.T) {
		e, b := setup(t, "50 ms")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := e.ExecuteSQL(ctx, query)
		require.NoError(t, err)
		var got []string
		for _, row := range res.Changes() {
			got = append(got, fmt.Sprint(row))
			if len(got) == 2 {
				// The silent input wakes up (active again): its row at
				// 10:03:05 and a's watermark move the minimum past 10:03.
				writeCSV(t, b, "b1.csv", "z,2024-01-01 10:02:30", "z,2024-01-01 10:03:05")
			}
			if len(got) == 3 {
				break
			}
		}
		require.NoError(t, res.Close())
		sort.Strings(got)
		at := func(min int) string { // window_start as its canonical value (µs)
			return fmt.Sprint(time.Date(2024, 1, 1, 10, min, 0, 0, time.UTC).UnixMicro())
		}
		require.Equal(t, []string{"[" + at(0) + " 2]", "[" + at(1) + " 1]", "[" + at(2) + " 2]"}, got)
	})
}

// TestMonitoredSourceCheckpointedPartitions streams a monitored
// directory into a partitioned filesystem sink under checkpointing: the
// rows of a file become visible at a checkpoint taken while the source
// waits for the next file (the barrier does not wait for new input), and
// a partition is committed (_SUCCESS) once the watermark passed its time
// plus the commit delay.
func TestMonitoredSourceCheckpointedPartitions(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeCSV(t, in, "a.csv", "1,2024-01-01 10:00:10", "2,2024-01-01 10:00:20")
	e, _ := newStreamEnv(t)
	for _, s := range []string{
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '20 ms'",
		"SET 'execution.checkpointing.dir' = '" + filepath.Join(t.TempDir(), "chk") + "'",
		fmt.Sprintf(`CREATE TABLE src (v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
			'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv', 'source.monitor-interval' = '10 ms')`, in),
		fmt.Sprintf(`CREATE TABLE snk (v BIGINT, ts TIMESTAMP(3), dt STRING, hm STRING) PARTITIONED BY (dt, hm) WITH (
			'connector' = 'filesystem', 'path' = 'file://%s', 'format' = 'csv',
			'sink.partition-commit.trigger' = 'partition-time', 'sink.partition-commit.delay' = '1 min',
			'sink.partition-commit.policy.kind' = 'success-file',
			'partition.time-extractor.timestamp-pattern' = '$dt $hm:00')`, out),
	} {
		exec(t, e, s)
	}
	res := exec(t, e, "INSERT INTO snk SELECT v, ts, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM src")
	require.True(t, res.Submitted())
	defer func() { exec(t, e, "STOP JOB '"+res.JobID()+"'") }()

	p0 := filepath.Join(out, "dt=2024-01-01", "hm=10%3A00")
	p1 := filepath.Join(out, "dt=2024-01-01", "hm=10%3A01")
	lines := func(dir string) []string {
		files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
		var got []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l != "" {
					got = append(got, l)
				}
			}
		}
		sort.Strings(got)
		return got
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	require.Eventually(t, func() bool { return len(lines(p0)) == 2 }, 10*time.Second, 10*time.Millisecond,
		"the rows of a.csv are committed while the source waits")
	require.False(t, exists(filepath.Join(p0, "_SUCCESS")))

	writeCSV(t, in, "b.csv", "3,2024-01-01 10:01:30")
	require.Eventually(t, func() bool { return exists(filepath.Join(p0, "_SUCCESS")) }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return len(lines(p1)) == 1 }, 10*time.Second, 10*time.Millisecond)
	require.False(t, exists(filepath.Join(p1, "_SUCCESS")))
	// CSV lines "v,ts": the partition columns are not in the files.
	require.Equal(t, []string{"1,2024-01-01 10:00:10", "2,2024-01-01 10:00:20"}, lines(p0))
}
