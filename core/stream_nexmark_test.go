package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/parser"
)

const nexmarkDir = "../../shared/nexmark/queries"

// nexmarkScript returns the statements of one Nexmark query run over a
// bounded generator: the generator DDL, the views and the query file, with
// the upstream runner's placeholders substituted.
func nexmarkScript(t testing.TB, q string, events int) []string {
	t.Helper()
	var parts []string
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql", q + ".sql"} {
		b, err := os.ReadFile(filepath.Join(nexmarkDir, f))
		if err != nil {
			t.Skipf("nexmark queries not available: %v", err)
		}
		parts = append(parts, string(b))
	}
	text := strings.NewReplacer(
		"${TPS}", "10000000", "${EVENTS_NUM}", fmt.Sprint(events),
		"${PERSON_PROPORTION}", "1", "${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46",
		"${NEXMARK_TABLE}", "datagen", "${NEXMARK_DIR}", t.TempDir(),
	).Replace(strings.Join(parts, ";\n"))
	stmts, err := parser.ParseScript(text)
	require.NoError(t, err)
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = s.Text
	}
	return out
}

var insertSelect = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*)*INSERT\s+INTO\s+\S+\s+(.*)$`)

// runNexmark runs the DDL of a Nexmark script and returns the query of its
// INSERT (the SELECT without the sink).
func runNexmark(t testing.TB, e *TableEnvironment, stmts []string) string {
	t.Helper()
	query := ""
	for _, s := range stmts {
		if m := insertSelect.FindStringSubmatch(s); m != nil {
			query = m[1]
			continue
		}
		_, err := e.ExecuteSQL(context.Background(), s)
		require.NoError(t, err, s)
	}
	require.NotEmpty(t, query)
	return query
}

// TestNexmarkStreamingMatchesBatch runs the Nexmark queries the streaming
// runtime supports over a bounded generator and checks that the
// materialized changelog equals the batch result.
func TestNexmarkStreamingMatchesBatch(t *testing.T) {
	for _, q := range []string{"q0", "q1", "q2", "q3", "q4", "q15", "q16", "q17", "q20", "q21", "q22", "q23"} {
		t.Run(q, func(t *testing.T) { compareNexmarkStreamingBatch(t, q, 5000) })
	}
}

// compareNexmarkStreamingBatch runs Nexmark query q over events generated
// events in batch mode and in streaming mode, materializes the streaming
// changelog (every retraction must hit a live row) and checks that it
// equals the batch result. It returns the batch result, canonicalized.
func compareNexmarkStreamingBatch(t *testing.T, q string, events int) []string {
	t.Helper()
	stmts := nexmarkScript(t, q, events)
	batch := NewTableEnvironment(InBatchMode())
	query := runNexmark(t, batch, stmts)
	res, err := batch.ExecuteSQL(context.Background(), query)
	require.NoError(t, err)
	want := canon(res.Rows())

	stream := NewTableEnvironment(InStreamingMode())
	runNexmark(t, stream, stmts)
	res, err = stream.ExecuteSQL(context.Background(), query)
	require.NoError(t, err)
	live := map[string]int{}
	n := 0
	for k, row := range res.Changes() {
		n++
		key := fmt.Sprintf("%v", row)
		if k.IsRetraction() {
			require.Positive(t, live[key], "retracting a row that is not there: %s", key)
			live[key]--
		} else {
			live[key]++
		}
	}
	require.NoError(t, res.Err())
	var got []string
	for k, c := range live {
		for range c {
			got = append(got, k)
		}
	}
	sort.Strings(got)
	require.Len(t, got, len(want))
	if len(want) > 0 {
		require.Equal(t, want, got)
	}
	t.Logf("%s: %d result rows from %d changes", q, len(want), n)
	return want
}

// BenchmarkNexmarkStreaming measures the streaming runtime on a few
// Nexmark queries (100 K events each).
func BenchmarkNexmarkStreaming(b *testing.B) {
	const events = 100_000
	for _, q := range []string{"q0", "q4", "q15", "q16", "q17", "q20"} {
		b.Run(q, func(b *testing.B) {
			stmts := nexmarkScript(b, q, events)
			for b.Loop() {
				// The upstream way: the INSERT into a blackhole sink.
				e := NewTableEnvironment(InStreamingMode())
				for _, s := range stmts {
					_, err := e.ExecuteSQL(context.Background(), s)
					require.NoError(b, err, s)
				}
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
