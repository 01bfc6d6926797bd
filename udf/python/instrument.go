package python

import (
	"sort"
	"strings"

	"github.com/go-python/gpython/ast"
	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"
)

// tickCall is prefixed to the condition of every while loop so a loop
// that never calls a function still notices a timeout:
// `while cond:` becomes `while __tablerun_tick__() and cond:`. The tick
// returns True, so the condition's value is unchanged; the prefix binds
// looser than every operator but `or`, `if-else` and lambda, where
// prefixing the leftmost operand keeps the value too. Lines do not move.
const tickCall = "__tablerun_tick__() and "

// instrument returns src with while-loop conditions prefixed by the tick
// call. If src does not parse it is returned unchanged (the compiler then
// reports the syntax error).
func instrument(src, filename string) string {
	mod, err := parser.Parse(strings.NewReader(src), filename, py.ExecMode)
	if err != nil {
		return src
	}
	type ins struct{ line, col int }
	var at []ins
	ast.Walk(mod, func(n ast.Ast) bool {
		if w, ok := n.(*ast.While); ok && w.Test != nil {
			at = append(at, ins{w.Test.GetLineno(), w.Test.GetColOffset()})
		}
		return true
	})
	if len(at) == 0 {
		return src
	}
	lines := strings.SplitAfter(src, "\n")
	sort.Slice(at, func(i, j int) bool {
		if at[i].line != at[j].line {
			return at[i].line < at[j].line
		}
		return at[i].col > at[j].col
	})
	for _, a := range at {
		if a.line < 1 || a.line > len(lines) {
			return src
		}
		l := lines[a.line-1]
		if a.col < 0 || a.col > len(l) {
			return src
		}
		lines[a.line-1] = l[:a.col] + tickCall + l[a.col:]
	}
	return strings.Join(lines, "")
}
