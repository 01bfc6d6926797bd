package physical

import (
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// WindowJoin is Flink's window join (StreamPhysicalWindowJoin): a join of
// two windowed inputs (a windowing table function or a window
// aggregation, with the same windows) whose keys include
// window_start = window_start and window_end = window_end. It buffers the
// rows of each window on both sides and joins them when the watermark
// passes the window's end, then frees the window; rows of a window that
// already fired are late and dropped. Its output is append-only, also for
// outer joins (a row without a match is emitted padded with NULLs when
// its window fires).
type WindowJoin struct {
	Left, Right Node
	// Kind is any join kind but the null-aware anti join.
	Kind logical.JoinKind
	// LeftKeys and RightKeys are the equality keys, window start and end
	// included.
	LeftKeys, RightKeys []int
	// Extra is the rest of the condition over Left ++ Right (nil: none).
	Extra logical.Expr
	// LeftWindow and RightWindow are the windows; the *Start and *End
	// fields are the columns of their bounds.
	LeftWindow, RightWindow logical.WindowSpec
	LeftStart, LeftEnd      int
	RightStart, RightEnd    int
	// LocalTime: the windows are aligned in the session time zone (the
	// time attribute is a TIMESTAMP_LTZ), so window_end is a wall-clock
	// time there.
	LocalTime bool
	Out       types.Schema
}

// Schema implements Node.
func (n *WindowJoin) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *WindowJoin) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren implements Node.
func (n *WindowJoin) WithChildren(ch []Node) Node {
	c := *n
	c.Left, c.Right = ch[0], ch[1]
	return &c
}

// Name implements Node.
func (n *WindowJoin) Name() string { return "WindowJoin" }

// Mode implements Node.
func (n *WindowJoin) Mode() changelog.Mode { return changelog.InsertOnly }

var _ Node = (*WindowJoin)(nil)

// windowColumn is what windowColumnOf finds: column i is the start (1) or
// end (2) of the windows of spec.
type windowColumn struct {
	spec  logical.WindowSpec
	role  int
	local bool
}

// windowColumnOf traces column i of n to the window_start or window_end
// of a windowing table function or window aggregation.
func windowColumnOf(n Node, i int) (windowColumn, bool) {
	switch x := n.(type) {
	case *WindowTableFunction:
		w := len(x.Input.Schema())
		if i == w || i == w+1 {
			local := x.Input.Schema()[x.Window.TimeCol].Type.Kind == types.TimestampLTZ
			return windowColumn{spec: x.Window, role: i - w + 1, local: local}, true
		}
		return windowColumnOf(x.Input, i)
	case *WindowAggregate:
		nk := len(x.GroupKeys) + len(x.Aggs)
		if i == nk || i == nk+1 {
			local := x.Input.Schema()[x.Window.TimeCol].Type.Kind == types.TimestampLTZ
			return windowColumn{spec: x.Window, role: i - nk + 1, local: local}, true
		}
	case *Calc:
		if i < len(x.Projection) {
			if c, ok := x.Projection[i].(*logical.ColumnRef); ok {
				return windowColumnOf(x.Input, c.Index)
			}
		}
	case *Exchange:
		return windowColumnOf(x.Input, i)
	}
	return windowColumn{}, false
}

// sameWindows reports whether two inputs have the same windows.
func sameWindows(a, b logical.WindowSpec) bool {
	return a.Kind == b.Kind && a.Size == b.Size && a.Slide == b.Slide && a.Step == b.Step && a.Offset == b.Offset && a.Proctime == b.Proctime
}

// windowJoin returns a WindowJoin when the keys of a join pair the window
// starts and the window ends of two inputs with the same windows. ok is
// false for any other join.
func windowJoin(x *HashJoin, conv []Node) (Node, bool, error) {
	if x.NullAwareAnti || x.Temporal {
		return nil, false, nil
	}
	left, right := conv[0], conv[1]
	if !left.Mode().IsInsertOnly() || !right.Mode().IsInsertOnly() {
		return nil, false, nil
	}
	ls, le, rs, re := -1, -1, -1, -1
	var lw, rw windowColumn
	var rest []int // key positions that are no window bound
	for k := range x.LeftKeys {
		a, okA := windowColumnOf(left, x.LeftKeys[k])
		b, okB := windowColumnOf(right, x.RightKeys[k])
		if !okA || !okB || a.role != b.role || a.spec.Kind == logical.Session || !sameWindows(a.spec, b.spec) {
			rest = append(rest, k)
			continue
		}
		lw, rw = a, b
		if a.role == 1 && ls < 0 {
			ls, rs = x.LeftKeys[k], x.RightKeys[k]
		} else if a.role == 2 && le < 0 {
			le, re = x.LeftKeys[k], x.RightKeys[k]
		} else {
			rest = append(rest, k)
		}
	}
	if ls < 0 || le < 0 {
		return nil, false, nil
	}
	if lw.spec.Proctime {
		return nil, true, &TableError{Msg: "Processing time Window Join is not supported yet."}
	}
	var lk, rk []int
	for _, k := range rest {
		lk = append(lk, x.LeftKeys[k])
		rk = append(rk, x.RightKeys[k])
	}
	return &WindowJoin{
		Left: &Exchange{Input: left, Keys: lk}, Right: &Exchange{Input: right, Keys: rk},
		Kind: x.Kind, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: x.Extra,
		LeftWindow: lw.spec, RightWindow: rw.spec, LeftStart: ls, LeftEnd: le, RightStart: rs, RightEnd: re,
		LocalTime: lw.local, Out: x.Out,
	}, true, nil
}

// attachedWindow prints a window as Flink's window-attached strategy:
// TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s]).
func attachedWindow(w logical.WindowSpec, start, end string) string {
	s := w.String()
	i := strings.Index(s, "time_col=[")
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], "], ")
	if j < 0 {
		return s
	}
	return s[:i] + "win_start=[" + start + "], win_end=[" + end + "], " + s[i+j+3:]
}

// Explain implements Node: it prints Flink's attributes of a WindowJoin; where
// shows the condition without the window bounds.
func (x *WindowJoin) Explain(execution bool) string {
	exprStr := ExprString
	if execution {
		exprStr = ExecExprString
	}
	ln, rn := x.Left.Schema().Names(), x.Right.Schema().Names()
	names := joinNames(x.Left.Schema(), x.Right.Schema())
	nLeft := len(ln)
	var conds []logical.Expr
	for k := range x.LeftKeys {
		if x.LeftKeys[k] == x.LeftStart || x.LeftKeys[k] == x.LeftEnd {
			continue
		}
		conds = append(conds, logical.NewCall(function.OpEquals, types.BooleanT,
			&logical.ColumnRef{Index: x.LeftKeys[k]}, &logical.ColumnRef{Index: nLeft + x.RightKeys[k]}))
	}
	if x.Extra != nil {
		conds = append(conds, logical.Conjuncts(x.Extra)...)
	}
	var cond logical.Expr = &logical.Literal{Value: true, T: types.BooleanT}
	if len(conds) == 1 {
		cond = conds[0]
	} else if len(conds) > 1 {
		cond = logical.NewCall(function.OpAnd, types.BooleanT, conds...)
	}
	return "leftWindow=[" + attachedWindow(x.LeftWindow, colName(ln, x.LeftStart), colName(ln, x.LeftEnd)) +
		"], rightWindow=[" + attachedWindow(x.RightWindow, colName(rn, x.RightStart), colName(rn, x.RightEnd)) +
		"], joinType=[" + x.Kind.String() + "], where=[" + exprStr(cond, names) +
		"], select=[" + strings.Join(outNames(x.Left, x.Right, x.Kind, names), ", ") + "]"
}
