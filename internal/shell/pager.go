package shell

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
)

// Escape sequences of the pager: the terminal's alternate screen, so that
// the view disappears when it is closed, as Flink's table mode does.
const (
	enterAltScreen = "\x1b[?1049h\x1b[H\x1b[2J"
	clearScreen    = "\x1b[H\x1b[2J"
	leaveAltScreen = "\x1b[?1049l"
)

// enableTerminalPager makes the session page table-mode results on the
// terminal.
func (s *session) enableTerminalPager() {
	s.pageKeys = os.Stdin
	s.pageHeight = func() int {
		_, h, err := term.GetSize(int(os.Stdout.Fd()))
		if err != nil || h <= 0 {
			return 24
		}
		return h
	}
}

// pagerHelp names the keys of the table-mode pager.
const pagerHelp = "Space/Enter/n: next page  b/p: previous page  q: quit"

// rowsPerPage is the number of rows a page shows: the screen less the
// borders (4 lines), the status line and a spare line.
func (s *session) rowsPerPage() int { return s.pageHeight() - 6 }

// page shows a query result in the table result mode. A result that fits
// on the screen prints as in tableau mode; a longer one is shown a page at
// a time on the alternate screen until the user quits with q (or Ctrl-C),
// after which the row count is printed.
func (s *session) page(res *core.TableResult) {
	g := NewGrid(res, false)
	perPage := s.rowsPerPage()
	if len(g.Rows) <= perPage || perPage < 1 {
		_ = core.PrintClientResult(s.out, s.env.Config(), res, nil)
		fmt.Fprintln(s.out)
		return
	}
	fmt.Fprint(s.out, enterAltScreen)
	s.pageLoop(g, "")
	fmt.Fprint(s.out, leaveAltScreen)
	fmt.Fprintf(s.out, "%s (table view closed)\n\n", rowsInSet(len(g.Rows)))
}

// pageLoop shows g a page at a time on the (alternate) screen until q.
// The status line starts with status.
func (s *session) pageLoop(g Grid, status string) {
	perPage := max(1, s.rowsPerPage())
	restore := func() {}
	if f, ok := s.pageKeys.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if old, err := term.MakeRaw(int(f.Fd())); err == nil {
			restore = func() { _ = term.Restore(int(f.Fd()), old) }
		}
	}
	defer restore()
	pages := max(1, (len(g.Rows)+perPage-1)/perPage)
	p := 0
	key := make([]byte, 1)
	for {
		from := p * perPage
		to := min(from+perPage, len(g.Rows))
		var b strings.Builder
		b.WriteString(clearScreen)
		for _, l := range g.Lines(from, to, s.maxWidth()) {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
		fmt.Fprintf(&b, "%sPage %d/%d, rows %d-%d of %d.  %s", status, p+1, pages, min(from+1, to), to, len(g.Rows), pagerHelp)
		fmt.Fprint(s.out, b.String())
		if _, err := io.ReadFull(s.pageKeys, key); err != nil {
			return
		}
		switch key[0] {
		case ' ', '\r', '\n', 'n', 'j':
			if p+1 < pages {
				p++
			}
		case 'b', 'p', 'k':
			if p > 0 {
				p--
			}
		case 'q', 'Q', 0x03:
			return
		}
	}
}

// followInterval is the longest a change waits before the live table
// shows it (core.Result.Follow flushes at most this long after a batch).
const followInterval = 100 * time.Millisecond

// cutNote says how many rows the view's cap dropped ("" when none).
func cutNote(v *core.View, maxRows int) string {
	if v.Cut() == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d oldest rows dropped: %s is %d)", v.Cut(), config.KeyMaxTableResultRows, maxRows)
}

// WatchTable is the live part of the table result mode: it materializes
// res in a core.View (the current rows only, at most maxRows of them) and
// redraws its last height-6 rows on w (clear screen, bordered grid with
// columns capped at maxWidth, a status line) no later than followInterval
// after a change, until the job ends; ctx ends it early (the job is
// closed). A batch of changes is applied whole before a redraw, and a view
// between a -U and its +U is not drawn. It returns the view and the
// job's error.
func WatchTable(ctx context.Context, w io.Writer, res *core.TableResult, maxRows, height, maxWidth int) (*core.View, error) {
	view := core.NewView(maxRows)
	draw := func() error {
		if view.Pending() {
			return nil
		}
		g := GridOf(res, view.Last(max(1, height-6)), nil)
		var b strings.Builder
		b.WriteString(clearScreen)
		for _, l := range g.Lines(0, len(g.Rows), maxWidth) {
			b.WriteString(l)
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Running: %d changes, %s%s.  Ctrl-C: stop", view.Changes(), rowsInSet(view.Len()), cutNote(view, maxRows))
		_, err := io.WriteString(w, b.String())
		return err
	}
	_ = draw()
	err := res.Follow(ctx, followInterval, func(b core.ChangeBatch) error {
		view.ApplyBatch(b)
		return nil
	}, draw)
	return view, err
}

// follow shows a streaming result in the table result mode: WatchTable on
// the alternate screen until the job ends or Ctrl-C stops it; then the
// final view pages as page does. It returns the job's error.
func (s *session) follow(res *core.TableResult, canceled func() bool) error {
	fmt.Fprint(s.out, enterAltScreen)
	maxRows := s.env.Config().MaxTableResultRows()
	view, err := WatchTable(context.Background(), s.out, res, maxRows, s.pageHeight(), s.maxWidth())
	state := "Finished"
	switch {
	case canceled() || core.IsCanceled(err):
		state, err = "Canceled", nil
	case err != nil:
		state = "Failed"
	}
	s.pageLoop(GridOf(res, view.Rows(), nil), fmt.Sprintf("%s after %d changes%s.  ", state, view.Changes(), cutNote(view, maxRows)))
	fmt.Fprint(s.out, leaveAltScreen)
	fmt.Fprintf(s.out, "%s (%d changes, table view closed)\n\n", rowsInSet(view.Len()), view.Changes())
	if state == "Canceled" {
		fmt.Fprint(s.out, core.MsgQueryCanceled+"\n\n")
	}
	return err
}
