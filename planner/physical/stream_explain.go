package physical

import (
	"strings"
)

// ExplainStream prints a streaming physical plan in the layout of
// ExplainWith; with ChangelogMode every node shows its changelog mode
// (a sink's as NONE).
func ExplainStream(n Node, opts ExplainOptions) string {
	var b strings.Builder
	var walk func(n Node, prefix string, last []bool)
	walk = func(n Node, prefix string, last []bool) {
		attrs := n.Explain(opts.Execution)
		if opts.ChangelogMode {
			if attrs != "" {
				attrs += ", "
			}
			mode := n.Mode().String()
			if mode == "" {
				mode = "NONE"
			}
			attrs += "changelogMode=[" + mode + "]"
		}
		b.WriteString(prefix + n.Name() + "(" + attrs + ")")
		if opts.EstimatedCost {
			b.WriteString(costString(n)) // cost.go
		}
		b.WriteString("\n")
		ch := n.Children()
		for i, c := range ch {
			var p strings.Builder
			for _, l := range last {
				if l {
					p.WriteString("   ")
				} else {
					p.WriteString(":  ")
				}
			}
			isLast := i == len(ch)-1
			if isLast {
				p.WriteString("+- ")
			} else {
				p.WriteString(":- ")
			}
			walk(c, p.String(), append(append([]bool(nil), last...), isLast))
		}
	}
	walk(n, "", nil)
	return b.String()
}

// IsStream reports whether a physical plan contains streaming-only nodes.
func IsStream(n Node) bool {
	if s, ok := n.(StreamOnly); ok && s.StreamOnly() {
		return true
	}
	for _, c := range n.Children() {
		if IsStream(c) {
			return true
		}
	}
	return false
}
