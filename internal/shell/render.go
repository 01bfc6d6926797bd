package shell

import (
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/changelog"
)

// defaultMaxWidth caps query columns as sql-client.display.max-column-width
// does by default.
const defaultMaxWidth = 30

// Grid is a result laid out as text cells: the header and the rows, every
// value already formatted as the SQL client prints it.
type Grid struct {
	Header []string
	Rows   [][]string
}

// NewGrid formats the rows of res. With op, a first column "op" holds the
// row kind of each row (+I for every row of a batch result).
func NewGrid(res *core.TableResult, op bool) Grid {
	var kinds []changelog.RowKind
	if op {
		kinds = res.RowKinds()
	}
	return GridOf(res, res.Rows(), kinds)
}

// GridOf formats rows of res's schema (say a materialized view of a
// streaming result) with res's formatting; with kinds (one per row) a
// first column "op" shows them.
func GridOf(res *core.TableResult, rows [][]any, kinds []changelog.RowKind) Grid {
	schema := res.Schema()
	var g Grid
	if kinds != nil {
		g.Header = append(g.Header, "op")
	}
	g.Header = append(g.Header, schema.Names()...)
	for i, row := range rows {
		cells := make([]string, 0, len(g.Header))
		if kinds != nil {
			k := changelog.Insert
			if i < len(kinds) {
				k = kinds[i]
			}
			cells = append(cells, k.String())
		}
		for j, f := range schema {
			var v any
			if j < len(row) {
				v = row[j]
			}
			cells = append(cells, res.Format(v, f.Type))
		}
		g.Rows = append(g.Rows, cells)
	}
	return g
}

// Lines renders rows [from, to) of g in the tableau layout (bordered,
// right-aligned), with column widths computed over all rows and capped at
// maxWidth display columns (0: no cap). The widths do not depend on the
// range, so consecutive pages line up.
func (g Grid) Lines(from, to, maxWidth int) []string {
	widths := make([]int, len(g.Header))
	for j, h := range g.Header {
		widths[j] = runewidth.StringWidth(h)
	}
	for _, row := range g.Rows {
		for j, c := range row {
			if w := runewidth.StringWidth(c); w > widths[j] {
				widths[j] = w
			}
		}
	}
	if maxWidth > 0 {
		for j := range widths {
			widths[j] = min(widths[j], maxWidth)
		}
	}
	var border strings.Builder
	border.WriteByte('+')
	for _, w := range widths {
		border.WriteString(strings.Repeat("-", w+2))
		border.WriteByte('+')
	}
	line := func(cells []string) string {
		var b strings.Builder
		b.WriteByte('|')
		for j, c := range cells {
			if runewidth.StringWidth(c) > widths[j] {
				if widths[j] < 3 {
					c = strings.Repeat(".", widths[j])
				} else {
					c = runewidth.Truncate(c, widths[j], "...")
				}
			}
			b.WriteByte(' ')
			b.WriteString(strings.Repeat(" ", widths[j]-runewidth.StringWidth(c)))
			b.WriteString(c)
			b.WriteString(" |")
		}
		return b.String()
	}
	from = max(0, min(from, len(g.Rows)))
	to = max(from, min(to, len(g.Rows)))
	out := []string{border.String(), line(g.Header), border.String()}
	for _, row := range g.Rows[from:to] {
		out = append(out, line(row))
	}
	return append(out, border.String())
}
