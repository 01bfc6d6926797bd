package kernel

import (
	"fmt"
	"html"
	"strings"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/shell"
)

// MaxHTMLRows caps the rows of an HTML result table; the text/plain
// rendering always has them all.
const MaxHTMLRows = 1000

// HTMLTable renders a result as an HTML table: a header row with the column
// names (the type in the title attribute), one row per result row with the
// values as the SQL client prints them (NULL as <NULL> in query results),
// numbers right-aligned, multi-line values (plans, DDL) in <pre>, and a footer
// line with the row count.
func HTMLTable(res *core.TableResult) string {
	g := shell.NewGrid(res, false)
	return htmlGrid(g, res.Schema(), false, rowCount(len(g.Rows), len(g.Rows) > MaxHTMLRows))
}

// rowCount is the footer of a result of n rows.
func rowCount(n int, capped bool) string {
	switch {
	case n == 0:
		return "Empty set"
	case capped:
		return fmt.Sprintf("%d rows in set (the first %d shown)", n, MaxHTMLRows)
	case n == 1:
		return "1 row in set"
	}
	return fmt.Sprintf("%d rows in set", n)
}

// htmlGrid renders g; schema gives the column types (after the op column
// when op is set).
func htmlGrid(g shell.Grid, schema types.Schema, op bool, footer string) string {
	typeOf := func(j int) (types.Type, bool) {
		if op {
			j--
		}
		if j < 0 || j >= len(schema) {
			return types.Type{}, false
		}
		return schema[j].Type, true
	}
	var b strings.Builder
	b.WriteString("<table class=\"tablerun-result\">\n<thead>\n<tr>")
	for j, h := range g.Header {
		title := ""
		if t, ok := typeOf(j); ok {
			title = fmt.Sprintf(" title=\"%s\"", html.EscapeString(t.String()))
		}
		fmt.Fprintf(&b, "<th%s>%s</th>", title, html.EscapeString(h))
	}
	b.WriteString("</tr>\n</thead>\n<tbody>\n")
	for i, row := range g.Rows {
		if i == MaxHTMLRows {
			break
		}
		b.WriteString("<tr>")
		for j, c := range row {
			if strings.Contains(c, "\n") {
				// Plans (EXPLAIN) and DDL (SHOW CREATE) keep their lines.
				fmt.Fprintf(&b, "<td style=\"text-align: left\"><pre>%s</pre></td>", html.EscapeString(c))
				continue
			}
			align := ""
			if t, ok := typeOf(j); ok && t.IsNumeric() {
				align = " style=\"text-align: right\""
			}
			fmt.Fprintf(&b, "<td%s>%s</td>", align, html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(footer))
	return b.String()
}
