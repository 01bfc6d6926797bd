package core

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNexmarkWindowsStreamingMatchesBatch runs the Nexmark queries with
// window TVFs over a bounded generator in streaming mode (window
// aggregates fire on the watermark) and checks that the materialized
// changelog equals the batch result (windows over all data).
func TestNexmarkWindowsStreamingMatchesBatch(t *testing.T) {
	for _, q := range []string{"q5", "q7", "q8", "q11"} {
		t.Run(q, func(t *testing.T) {
			stmts := nexmarkScript(t, q, 5000)
			for i, s := range stmts {
				// 100 events per second: 5000 events span 50 s of event
				// time, so that many windows open, fire and close.
				stmts[i] = strings.ReplaceAll(s, "'10000000'", "'100'")
			}
			batch := NewTableEnvironment(InBatchMode())
			query := runNexmark(t, batch, stmts)
			res, err := batch.ExecuteSQL(context.Background(), query)
			require.NoError(t, err)
			want := canon(res.Rows())

			for _, bs := range []string{"4096", "50"} {
				// batches of 50 events: the watermark advances (and windows
				// fire) about 100 times during the run
				stream := NewTableEnvironment(InStreamingMode())
				exec(t, stream, "SET 'tablerun.exec.batch-size' = '"+bs+"'")
				runNexmark(t, stream, stmts)
				plan, err := stream.ExecuteSQL(context.Background(), "EXPLAIN "+query)
				require.NoError(t, err)
				require.Contains(t, fmt.Sprint(plan.Rows()), "WindowAggregate(")
				res, err = stream.ExecuteSQL(context.Background(), query)
				require.NoError(t, err)
				streamMatches(t, q+"/batch-size="+bs, res, want)
			}
		})
	}
}

// streamMatches checks that the changelog of res materializes to want
// (sorted rows).
func streamMatches(t *testing.T, q string, res *TableResult, want []string) {
	t.Helper()
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
	require.NotEmpty(t, want)
	require.Equal(t, want, got, q)
	t.Logf("%s: %d result rows from %d changes", q, len(want), n)
}

// TestNexmarkQ12ProcessingTime runs q12 (TUMBLE over PROCTIME()) in both
// modes. Its windows depend on the wall clock, so only the total of
// bid_count (the number of bids) is compared.
func TestNexmarkQ12ProcessingTime(t *testing.T) {
	stmts := nexmarkScript(t, "q12", 5000)
	total := func(e *TableEnvironment) int64 {
		query := runNexmark(t, e, stmts)
		res, err := e.ExecuteSQL(context.Background(), "SELECT SUM(bid_count) FROM ("+query+")")
		require.NoError(t, err)
		var last any
		for _, row := range res.Rows() {
			last = row[0]
		}
		n, ok := last.(int64)
		require.True(t, ok, "%v", last)
		return n
	}
	b := total(NewTableEnvironment(InBatchMode()))
	s := total(NewTableEnvironment(InStreamingMode()))
	require.Positive(t, b)
	require.Equal(t, b, s)
}
