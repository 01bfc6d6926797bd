package shell

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/changelog"
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

// Materialize applies one change of a changelog to the rows of a
// materialized view: +I and +U add the row, -U and -D remove an equal
// row (the first one).
func Materialize(rows [][]any, kind changelog.RowKind, row []any) [][]any {
	switch kind {
	case changelog.Insert, changelog.UpdateAfter:
		return append(rows, row)
	}
	for i, r := range rows {
		if reflect.DeepEqual(r, row) {
			return append(rows[:i], rows[i+1:]...)
		}
	}
	return rows
}

// followInterval is the least time between two redraws of a live table.
const followInterval = 200 * time.Millisecond

// follow shows a streaming result in the table result mode: the
// materialized view, updated in place on the alternate screen as changes
// arrive (its last rows when it is longer than the screen), until the job
// ends or Ctrl-C stops it; then the final view pages as page does. It
// returns the job's error.
func (s *session) follow(res *core.TableResult, canceled func() bool) error {
	fmt.Fprint(s.out, enterAltScreen)
	var rows [][]any
	changes := 0
	var last time.Time
	draw := func() {
		g := GridOf(res, rows, nil)
		perPage := max(1, s.rowsPerPage())
		from := max(0, len(g.Rows)-perPage)
		var b strings.Builder
		b.WriteString(clearScreen)
		for _, l := range g.Lines(from, len(g.Rows), s.maxWidth()) {
			b.WriteString(l)
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Running: %d changes, %s.  Ctrl-C: stop", changes, rowsInSet(len(g.Rows)))
		fmt.Fprint(s.out, b.String())
		last = time.Now()
	}
	draw()
	for kind, row := range res.Changes() {
		changes++
		rows = Materialize(rows, kind, row)
		if time.Since(last) >= followInterval {
			draw()
		}
	}
	err := res.Err()
	state := "Finished"
	switch {
	case canceled():
		state, err = "Canceled", nil
	case err != nil:
		state = "Failed"
	}
	s.pageLoop(GridOf(res, rows, nil), fmt.Sprintf("%s after %d changes.  ", state, changes))
	fmt.Fprint(s.out, leaveAltScreen)
	fmt.Fprintf(s.out, "%s (%d changes, table view closed)\n\n", rowsInSet(len(rows)), changes)
	return err
}
