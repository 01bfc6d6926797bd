package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWriteEvents writes a small events file and checks its lines: one
// JSON object per event, the generator's proportions (1 person, 3
// auctions, 46 bids in 50), exactly one of the three rows set.
func TestWriteEvents(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteEvents(context.Background(), "", dir, EventsSpec{Events: 500, TPS: 100})
	require.NoError(t, err)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	kinds := map[int]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			EventType int                        `json:"event_type"`
			Person    map[string]any             `json:"person"`
			Auction   map[string]any             `json:"auction"`
			Bid       map[string]json.RawMessage `json:"bid"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		kinds[ev.EventType]++
		set := 0
		for _, r := range []bool{ev.Person != nil, ev.Auction != nil, ev.Bid != nil} {
			if r {
				set++
			}
		}
		require.Equal(t, 1, set, sc.Text())
		if ev.Bid != nil {
			require.True(t, strings.HasPrefix(string(ev.Bid["dateTime"]), `"20`), sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, map[int]int{0: 10, 1: 30, 2: 460}, kinds)

	// the queries read it back: q1 over the file gives one row per bid
	stmts, err := FileScript("", "q1", path, t.TempDir())
	require.NoError(t, err)
	q, ok := AsQuery(stmts[len(stmts)-1])
	require.True(t, ok)
	require.True(t, strings.HasPrefix(strings.TrimSpace(q), "SELECT"), q)
}

func TestAsQuery(t *testing.T) {
	q, ok := AsQuery("-- c\nINSERT INTO nexmark_q1 (a, b)\nSELECT a, b FROM t")
	require.True(t, ok)
	require.Equal(t, "-- c\nSELECT a, b FROM t", q)
	_, ok = AsQuery("CREATE TABLE x (a INT)")
	require.False(t, ok)
}

// TestProcCPU reads this process's CPU time the way --vs flink reads the
// TaskManager's: it grows with work and agrees with getrusage.
func TestProcCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	c0, err := procCPU(os.Getpid())
	require.NoError(t, err)
	x := 0
	for i := 0; i < 300_000_000; i++ {
		x += i % 7
	}
	require.NotZero(t, x)
	c1, err := procCPU(os.Getpid())
	require.NoError(t, err)
	require.Greater(t, c1, c0)
	ru := cpuTime()
	require.InDelta(t, ru.Seconds(), c1.Seconds(), 0.5)
}
