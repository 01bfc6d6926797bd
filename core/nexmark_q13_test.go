package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// q13Script returns the statements of Nexmark q13 with the side input
// written as upstream's SideInputGenerator does (10,000 lines "i,i") under
// a temporary ${FLINK_HOME}/data. The side table keeps its legacy connector
// descriptor ('connector.type' = 'filesystem', 'connector.path',
// 'format.type'): the connector registry translates it.
func q13Script(t testing.TB, events int) []string {
	t.Helper()
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, "data"), 0o755))
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, "data", "side_input.txt"), []byte(b.String()), 0o644))
	legacy := strings.NewReplacer("${FLINK_HOME}", home)
	stmts := nexmarkScript(t, "q13", events)
	found := false
	for i, s := range stmts {
		if strings.Contains(s, "side_input") && strings.Contains(s, "connector.type") {
			found = true
		}
		stmts[i] = legacy.Replace(s)
	}
	require.True(t, found, "q13.sql no longer declares the legacy side_input table")
	return stmts
}

// TestNexmarkQ13 runs Nexmark q13 (a processing-time temporal join of the
// bids with a bounded side table, planned as Flink's LookupJoin) in
// streaming mode and checks it against the batch evaluation of the same
// SQL, where the temporal join is a regular join.
func TestNexmarkQ13(t *testing.T) {
	const events = 5000
	stmts := q13Script(t, events)
	batch := NewTableEnvironment(InBatchMode())
	query := runNexmark(t, batch, stmts)
	res, err := batch.ExecuteSQL(context.Background(), query)
	require.NoError(t, err)
	want := canon(res.Rows())
	require.NotEmpty(t, want)

	stream := NewTableEnvironment(InStreamingMode())
	runNexmark(t, stream, stmts)
	plan, err := stream.ExecuteSQL(context.Background(), "EXPLAIN "+query)
	require.NoError(t, err)
	text := fmt.Sprint(plan.Rows())
	require.Contains(t, text, "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=$f")
	res, err = stream.ExecuteSQL(context.Background(), query)
	require.NoError(t, err)
	var got []string
	for k, row := range res.Changes() {
		require.False(t, k.IsRetraction(), "q13 is append-only")
		got = append(got, fmt.Sprintf("%v", row))
	}
	require.NoError(t, res.Err())
	sort.Strings(got)
	require.Equal(t, want, got)
	t.Logf("q13: %d rows\n%s", len(got), text)

	// The INSERT into the blackhole sink runs as upstream's does.
	for _, s := range stmts {
		if insertSelect.MatchString(s) {
			_, err := stream.ExecuteSQL(context.Background(), s)
			require.NoError(t, err)
		}
	}
}

// BenchmarkNexmarkQ13Streaming measures q13 (100 K events) in streaming
// mode, the upstream way: the INSERT into the blackhole sink.
func BenchmarkNexmarkQ13Streaming(b *testing.B) {
	const events = 100_000
	stmts := q13Script(b, events)
	for b.Loop() {
		e := NewTableEnvironment(InStreamingMode())
		for _, s := range stmts {
			_, err := e.ExecuteSQL(context.Background(), s)
			require.NoError(b, err, s)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
