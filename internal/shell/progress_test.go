package shell

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProgressText(t *testing.T) {
	cases := []struct {
		rows    int64
		elapsed time.Duration
		want    string
	}{
		{0, 0, "[RUNNING] 0 rows read | 0 rows/s | 0s elapsed (Ctrl-C to cancel)"},
		{999, time.Second, "[RUNNING] 999 rows read | 999 rows/s | 1s elapsed (Ctrl-C to cancel)"},
		{12345, 500 * time.Millisecond, "[RUNNING] 12,345 rows read | 24.7k rows/s | 500ms elapsed (Ctrl-C to cancel)"},
		{1234567, 1234 * time.Millisecond, "[RUNNING] 1,234,567 rows read | 1.00M rows/s | 1.2s elapsed (Ctrl-C to cancel)"},
		{5_000_000_000, 2 * time.Second, "[RUNNING] 5,000,000,000 rows read | 2.50G rows/s | 2s elapsed (Ctrl-C to cancel)"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			require.Equal(t, c.want, progressText(c.rows, c.elapsed))
		})
	}
}

func TestGroupDigits(t *testing.T) {
	cases := []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {100, "100"}, {1000, "1,000"}, {123456, "123,456"},
		{1234567, "1,234,567"}, {-1234, "-1,234"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, groupDigits(c.n), c.n)
	}
}

// TestProgressLine runs a long statement with the progress line forced on:
// the line redraws in place with a growing row count while it runs and is
// erased before the outcome prints; quick statements print no line.
func TestProgressLine(t *testing.T) {
	pr, pw := io.Pipe()
	s, _, sigs := newTestSession(pr, "tableau")
	out := &syncBuffer{}
	s.out = out
	s.enableProgress()
	s.progressDelay, s.progressEvery = 50*time.Millisecond, 20*time.Millisecond
	done := make(chan error, 1)
	go func() { done <- s.loop(context.Background()) }()
	_, err := io.WriteString(pw, "SELECT 1 AS one;\n"+
		"CREATE TABLE big (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000000000');\n"+
		"SELECT COUNT(*) FROM big;\n")
	require.NoError(t, err)
	// Wait for a few redraws with rows read, then cancel.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), clearLine+"[RUNNING]") < 4 {
		require.True(t, time.Now().Before(deadline), "no progress line:\n%q", out.String())
		time.Sleep(20 * time.Millisecond)
	}
	sigs <- os.Interrupt
	for !strings.Contains(out.String(), "[INFO] Query canceled.") {
		require.True(t, time.Now().Before(deadline), "the statement was not cancelled:\n%q", out.String())
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, pw.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the shell did not end")
	}
	text := out.String()
	// The quick statements before the long one printed no progress line.
	first := strings.Index(text, clearLine)
	require.Greater(t, first, strings.Index(text, "Execute statement succeeded"))
	// The line is erased right before the outcome.
	require.Contains(t, text, clearLine+"[INFO] Query canceled.")
	// The counts grow.
	var counts []string
	for _, part := range strings.Split(text, clearLine)[1:] {
		if rest, ok := strings.CutPrefix(part, "[RUNNING] "); ok {
			counts = append(counts, strings.Fields(rest)[0])
		}
	}
	require.GreaterOrEqual(t, len(counts), 3)
	require.NotEqual(t, counts[0], counts[len(counts)-1], "the row count does not grow: %v", counts)
}

// TestProgressLineGuard checks that what a print connector writes while the
// line shows erases it first, and that erasing twice writes nothing more.
func TestProgressLineGuard(t *testing.T) {
	var term, other strings.Builder
	l := &progressLine{out: &term}
	g := l.guard(&term)
	h := l.guard(&other)
	l.draw("[RUNNING] 1 rows read")
	_, err := g.Write([]byte("+I[1]\n"))
	require.NoError(t, err)
	_, err = g.Write([]byte("+I[2]\n"))
	require.NoError(t, err)
	l.draw("[RUNNING] 2 rows read")
	_, err = h.Write([]byte("err\n"))
	require.NoError(t, err)
	l.erase()
	require.Equal(t, clearLine+"[RUNNING] 1 rows read"+clearLine+"+I[1]\n+I[2]\n"+clearLine+"[RUNNING] 2 rows read"+clearLine, term.String())
	require.Equal(t, "err\n", other.String())
}

func TestProgressLineWidth(t *testing.T) {
	cases := []struct {
		width int
		want  string
	}{
		{0, "[RUNNING] 12 rows read"},
		{80, "[RUNNING] 12 rows read"},
		{22, "[RUNNING] 12 rows rea"},
		{10, "[RUNNING]"},
	}
	for _, c := range cases {
		var b strings.Builder
		l := &progressLine{out: &b, width: func() int { return c.width }}
		l.draw("[RUNNING] 12 rows read")
		require.Equal(t, clearLine+c.want, b.String(), c.width)
	}
}
