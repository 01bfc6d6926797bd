package core

import (
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
			require.NotEmpty(t, compareNexmarkStreamingBatch(t, q, 5000))
		})
	}
}
