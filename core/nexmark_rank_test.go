package core

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNexmarkRankStreamingMatchesBatch runs the Top-N and deduplication
// Nexmark queries (q9 winning bids, q18 last bid, q19 top-10 prices) over a
// bounded generator: the materialized streaming changelog equals the
// batch result.
func TestNexmarkRankStreamingMatchesBatch(t *testing.T) {
	for _, q := range []string{"q9", "q18", "q19"} {
		t.Run(q, func(t *testing.T) {
			stmts := nexmarkScript(t, q, 5000)
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
			require.NotEmpty(t, want)
			require.Equal(t, want, got)
			t.Logf("%s: %d result rows from %d changes", q, len(want), n)
		})
	}
}
