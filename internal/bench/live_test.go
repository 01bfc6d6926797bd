package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRunLiveEveryClient watches the unbounded GROUP BY briefly through
// every path of `tablerun bench live`: each one reports a first row
// (blackhole none), changes, and RSS and heap samples; the live views time
// their redraws.
func TestRunLiveEveryClient(t *testing.T) {
	for _, c := range LiveClients {
		t.Run(c, func(t *testing.T) {
			r, err := RunLive(context.Background(), LiveConfig{Client: c, Keys: 100, Rate: 20000, Duration: 1200 * time.Millisecond, Sample: 300 * time.Millisecond})
			require.NoError(t, err)
			require.NotEmpty(t, r.RSS)
			require.Len(t, r.Heap, len(r.RSS))
			require.Greater(t, r.RSS[0], int64(0))
			line := FormatLive(r)
			require.True(t, strings.HasPrefix(line, c), line)
			if c == "blackhole" {
				require.Zero(t, r.FirstRow)
				return
			}
			require.Greater(t, r.FirstRow, time.Duration(0), line)
			require.Less(t, r.FirstRow, 1200*time.Millisecond, line)
			if c != "arrow" {
				require.Greater(t, r.Changes, int64(0), line)
			}
			if c == "table" || c == "kernel" {
				require.NotEmpty(t, r.Gaps, line)
				require.Greater(t, r.Gaps[0], time.Duration(0), line)
				require.Contains(t, line, "between redraws: median ")
			}
		})
	}
}
