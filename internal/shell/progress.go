package shell

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/tablerun/tablerun/core"
)

// Timing of the live progress line.
const (
	// progressDelay is how long a statement runs before its progress line
	// appears: quick statements print nothing.
	progressDelay = 500 * time.Millisecond
	// progressInterval is how often the line is redrawn.
	progressInterval = 200 * time.Millisecond
)

// clearLine moves to the start of the line and erases it.
const clearLine = "\r\x1b[2K"

// isTerminalOutput reports whether out is a terminal, the condition for
// the progress line.
func isTerminalOutput(out io.Writer) bool {
	f, ok := out.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine is the terminal line the progress of a running statement
// is drawn on. What the statement's print connector writes (through
// guard) erases the line first, and the next redraw starts on a fresh one.
type progressLine struct {
	mu    sync.Mutex
	out   io.Writer
	shown bool
	// width returns the terminal's width (0: unknown); a longer text is
	// cut so that the line never wraps (a wrapped line would not erase).
	width func() int
}

// draw replaces the line's text (ASCII).
func (l *progressLine) draw(text string) {
	if l.width != nil {
		if w := l.width(); w > 1 && len(text) >= w {
			text = text[:w-1]
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprint(l.out, clearLine+text)
	l.shown = true
}

// erase clears the line if it shows.
func (l *progressLine) erase() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eraseLocked()
}

func (l *progressLine) eraseLocked() {
	if l.shown {
		fmt.Fprint(l.out, clearLine)
		l.shown = false
	}
}

// guard returns a writer that erases the line before writing to w.
func (l *progressLine) guard(w io.Writer) io.Writer { return &guardedWriter{l: l, w: w} }

// guardedWriter is progressLine.guard's writer.
type guardedWriter struct {
	l *progressLine
	w io.Writer
}

// Write implements io.Writer.
func (g *guardedWriter) Write(p []byte) (int, error) {
	g.l.mu.Lock()
	defer g.l.mu.Unlock()
	g.l.eraseLocked()
	return g.w.Write(p)
}

// enableProgress turns the progress line on for the session: it is drawn
// on out, and the environment's print output is routed through guards
// that erase it first.
func (s *session) enableProgress() {
	s.line = &progressLine{out: s.out}
	if f, ok := s.out.(*os.File); ok {
		s.line.width = func() int {
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	stdout, stderr := s.env.Output()
	s.env.SetOutput(s.line.guard(stdout), s.line.guard(stderr))
}

// startProgress shows a live progress line (rows read by the statement's
// sources, rows/s, elapsed time) while a statement runs, when the session
// has progress enabled. It returns the context to run the statement with
// and a function that stops the line and erases it; call it before
// printing anything else.
func (s *session) startProgress(ctx context.Context) (context.Context, func()) {
	if s.line == nil {
		return ctx, func() {}
	}
	ctx, p := core.WithProgress(ctx)
	delay, every := s.progressDelay, s.progressEvery
	if delay <= 0 {
		delay = progressDelay
	}
	if every <= 0 {
		every = progressInterval
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		timer := time.NewTimer(delay)
		defer timer.Stop()
		for {
			select {
			case <-stop:
				return
			case <-timer.C:
			}
			s.line.draw(progressText(p.RowsRead(), time.Since(start)))
			timer.Reset(every)
		}
	}()
	return ctx, func() {
		close(stop)
		<-done
		s.line.erase()
	}
}

// progressText is the progress line's text, e.g.
// "[RUNNING] 1,234,567 rows read | 2.47M rows/s | 0.5s elapsed".
func progressText(rows int64, elapsed time.Duration) string {
	rate := 0.0
	if secs := elapsed.Seconds(); secs > 0 {
		rate = float64(rows) / secs
	}
	return fmt.Sprintf("[RUNNING] %s rows read | %s rows/s | %s elapsed (Ctrl-C to cancel)",
		groupDigits(rows), compactNumber(rate), elapsed.Round(100*time.Millisecond))
}

// groupDigits writes n with thousands separators.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := false
	if n < 0 {
		neg, s = true, s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// compactNumber writes a rate with a k/M/G suffix and three significant
// digits.
func compactNumber(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 2, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
