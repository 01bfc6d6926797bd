package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		in   []time.Duration
		p    int
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 50, 7 * time.Millisecond},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 99, 4 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, percentile(tt.in, tt.p), "%v p%d", tt.in, tt.p)
	}
}

func TestReportFormatting(t *testing.T) {
	measured := Result{Query: "q15", Label: "enabled=true", Events: 1000, Runs: 1, EventsPerSec: 5000, EventsPerCoreSec: 4000,
		Elapsed: 200 * time.Millisecond, CPU: 250 * time.Millisecond, PeakRSSBytes: 50 << 20, HeapInUseBytes: 20 << 20,
		LatencyP50: 1234 * time.Microsecond, LatencyP99: 15*time.Millisecond + 678*time.Microsecond, LatencySamples: 40, StateBytes: 3 << 20}
	unmeasured := Result{Query: "q15", Label: "enabled=false", Events: 1000, Runs: 1, EventsPerSec: 5000, EventsPerCoreSec: 2000, StateBytes: -1}
	small := measured
	small.StateBytes = 1536
	small.LatencyP50, small.LatencyP99 = 800*time.Nanosecond, 2*time.Second+300*time.Microsecond
	tests := []struct {
		name string
		r    Result
		want []string
	}{
		{"measured", measured, []string{"latency p50 1.23ms p99 15.68ms (40 samples)", "state 3.0 MiB", "peak RSS 50.0 MiB"}},
		{"not measured", unmeasured, []string{"latency p50 n/a p99 n/a (0 samples)", "state n/a"}},
		{"small", small, []string{"latency p50 1µs p99 2s", "state 1.5 KiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := FormatLine(tt.r)
			for _, w := range tt.want {
				require.Contains(t, line, w)
			}
		})
	}
	var b bytes.Buffer
	WriteTable(&b, []Result{unmeasured, measured})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 6)
	require.Regexp(t, `^\| options +\| events/s \| events/s/core \| vs first \| +p50 \| +p99 \| elapsed \| +cpu \| peak RSS \| +heap \| +state \|$`, lines[1])
	require.Contains(t, lines[3], "|     n/a |")
	require.Regexp(t, `\| +1\.23ms \| +15\.68ms \|.*\| +3\.0 MiB \|$`, lines[4])
	require.Contains(t, lines[4], "2.00x")
	svg := RenderSVG("q15", []Result{unmeasured, measured})
	require.Contains(t, svg, "latency p50 n/a, p99 n/a; state n/a")
	require.Contains(t, svg, "latency p50 1.23ms, p99 15.68ms; state 3.0 MiB")
}

// TestRunReportsLatencyAndState checks the measured figures of real runs
// when the runtime reports them (vectorized/build's RunProbe hooks): p50
// <= p99, and an aggregation has state while a projection has (almost)
// none.
func TestRunReportsLatencyAndState(t *testing.T) {
	needQueries(t)
	for _, tc := range []struct {
		query    string
		opts     [][2]string
		hasState bool
	}{
		{"q0", nil, false},
		{"q15", nil, true},
		{"q15", impliedOptions([][2]string{{"table.exec.mini-batch.size", "1000"}}), true},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res, err := Run(context.Background(), Config{QueriesDir: queriesDir, Query: tc.query, Events: 20_000, Runs: 1, Options: tc.opts})
			require.NoError(t, err)
			if res.LatencySamples == 0 && res.StateBytes < 0 {
				t.Skip("the runtime does not call the RunProbe hooks yet (vectorized/build/bench_probe.go)")
			}
			require.Positive(t, res.LatencySamples)
			require.Positive(t, res.LatencyP50)
			require.LessOrEqual(t, res.LatencyP50, res.LatencyP99)
			require.Less(t, res.LatencyP99, time.Minute)
			if tc.hasState {
				require.Greater(t, res.StateBytes, int64(10_000)) // the distinct values
			} else {
				require.Less(t, res.StateBytes, int64(1024)) // a watermark at most
			}
			require.Contains(t, FormatLine(res), "latency p50 ")
		})
	}
}
