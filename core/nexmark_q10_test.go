package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNexmarkQ10 runs Nexmark q10 (a partitioned filesystem sink with a
// partition-time commit and the success-file policy) in streaming mode,
// then reads the written table back in batch mode: it equals the batch
// evaluation of q10's SELECT. The files lie in `dt=…/hm=…` directories
// (':' escaped as %3A), hold no partition columns, and every partition
// is committed (_SUCCESS) at the end of the bounded input.
func TestNexmarkQ10(t *testing.T) {
	for _, par := range []int{1, 2} {
		t.Run(fmt.Sprintf("parallelism %d", par), func(t *testing.T) { nexmarkQ10(t, par) })
	}
}

func nexmarkQ10(t *testing.T, par int) {
	dir := t.TempDir()
	stmts := nexmarkScript(t, "q10", 3000)
	for i, s := range stmts {
		// 10 events per second of event time: 3000 events span several
		// minutes, so several hm partitions.
		stmts[i] = strings.NewReplacer("${SUBMIT_TIME}", "run1", "'10000000'", "'10'").Replace(s)
		stmts[i] = rebaseNexmarkOutput(stmts[i], dir)
	}
	batch := NewTableEnvironment(InBatchMode())
	query := runNexmark(t, batch, stmts)
	res, err := batch.ExecuteSQL(context.Background(), query)
	require.NoError(t, err)
	want := canon(res.Rows())
	require.NotEmpty(t, want)

	stream := NewTableEnvironment(InStreamingMode())
	exec(t, stream, fmt.Sprintf("SET 'table.exec.resource.default-parallelism' = '%d'", par))
	for _, s := range stmts {
		_, err := stream.ExecuteSQL(context.Background(), s)
		require.NoError(t, err, s)
	}

	out := filepath.Join(dir, "data", "output", "run1", "bid")
	parts, err := filepath.Glob(filepath.Join(out, "dt=*", "hm=*"))
	require.NoError(t, err)
	require.Greater(t, len(parts), 3)
	for _, p := range parts {
		require.Contains(t, filepath.Base(p), "%3A", p)
		_, err := os.Stat(filepath.Join(p, "_SUCCESS"))
		require.NoError(t, err, "partition %s is committed", p)
		files, err := filepath.Glob(filepath.Join(p, "part-*"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		data, err := os.ReadFile(files[0])
		require.NoError(t, err)
		line, _, _ := strings.Cut(string(data), "\n")
		require.Len(t, strings.Split(line, ","), 5, "no partition columns in the files: %q", line)
	}

	res, err = batch.ExecuteSQL(context.Background(), "SELECT * FROM nexmark_q10")
	require.NoError(t, err)
	require.Equal(t, want, canon(res.Rows()))
	t.Logf("q10: %d rows in %d partitions", len(want), len(parts))
}

// rebaseNexmarkOutput points the statement's ${NEXMARK_DIR}-based paths
// (substituted with a fresh temporary directory by nexmarkScript) at dir.
func rebaseNexmarkOutput(s, dir string) string {
	const marker = "/data/output/"
	i := strings.Index(s, marker)
	if i < 0 {
		return s
	}
	start := strings.LastIndex(s[:i], "file://")
	if start < 0 {
		return s
	}
	return s[:start] + "file://" + dir + s[i:]
}
