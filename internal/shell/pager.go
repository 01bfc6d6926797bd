package shell

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/tablerun/tablerun/core"
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

// page shows a query result in the table result mode. A result that fits
// on the screen prints as in tableau mode; a longer one is shown a page at
// a time on the alternate screen until the user quits with q (or Ctrl-C),
// after which the row count is printed.
func (s *session) page(res *core.TableResult) {
	g := NewGrid(res, false)
	height := s.pageHeight()
	// Borders (4 lines), the status line and a spare line.
	perPage := height - 6
	if len(g.Rows) <= perPage || perPage < 1 {
		_ = core.PrintClientResult(s.out, s.env.Config(), res, nil)
		fmt.Fprintln(s.out)
		return
	}
	restore := func() {}
	if f, ok := s.pageKeys.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if old, err := term.MakeRaw(int(f.Fd())); err == nil {
			restore = func() { _ = term.Restore(int(f.Fd()), old) }
		}
	}
	fmt.Fprint(s.out, enterAltScreen)
	pages := (len(g.Rows) + perPage - 1) / perPage
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
		fmt.Fprintf(&b, "Page %d/%d, rows %d-%d of %d.  %s", p+1, pages, from+1, to, len(g.Rows), pagerHelp)
		fmt.Fprint(s.out, b.String())
		if _, err := io.ReadFull(s.pageKeys, key); err != nil {
			break
		}
		quit := false
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
			quit = true
		}
		if quit {
			break
		}
	}
	fmt.Fprint(s.out, leaveAltScreen)
	restore()
	fmt.Fprintf(s.out, "%s (table view closed)\n\n", rowsInSet(len(g.Rows)))
}
