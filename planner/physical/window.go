package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// WatermarkAssigner computes the watermark of a table with a WATERMARK FOR
// declaration (Flink's WatermarkAssigner): after each batch it emits the
// largest value of Expr seen so far as a watermark; rows pass unchanged.
type WatermarkAssigner struct {
	Input Node
	// Rowtime is the index of the rowtime column.
	Rowtime int
	// Expr is the watermark expression over the input.
	Expr logical.Expr
}

// WindowTableFunction assigns windows (Flink's WindowTableFunction): every
// input row once per window it belongs to, followed by window_start,
// window_end and window_time.
type WindowTableFunction struct {
	Input  Node
	Window logical.WindowSpec
	Out    types.Schema
}

// WindowAggregate is the window aggregation over a windowing table
// function (Flink's WindowAggregate): it assigns the windows itself,
// buffers the aggregates per window and key, and emits a window's rows
// (+I only) when the watermark passes its end, or at the end of the
// input; then the window's state is freed. Rows of windows that already
// fired are late and dropped. The output is the group keys, the
// aggregates, window_start, window_end and, with WindowTime,
// window_time.
type WindowAggregate struct {
	Input     Node
	GroupKeys []int // over Input (no window columns)
	Aggs      []logical.AggCall
	Window    logical.WindowSpec // TimeCol over Input
	// WindowTime adds window_time (a rowtime attribute) to the output.
	WindowTime bool
	Out        types.Schema
}

// Schema implements Node.
func (n *WatermarkAssigner) Schema() types.Schema { return n.Input.Schema() }

// Children implements Node.
func (n *WatermarkAssigner) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WatermarkAssigner) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *WatermarkAssigner) Name() string { return "WatermarkAssigner" }

// Mode implements Node.
func (n *WatermarkAssigner) Mode() changelog.Mode { return n.Input.Mode() }

// Schema implements Node.
func (n *WindowTableFunction) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *WindowTableFunction) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WindowTableFunction) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *WindowTableFunction) Name() string { return "WindowTableFunction" }

// Mode implements Node.
func (n *WindowTableFunction) Mode() changelog.Mode { return n.Input.Mode() }

// Schema implements Node.
func (n *WindowAggregate) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *WindowAggregate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WindowAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *WindowAggregate) Name() string { return "WindowAggregate" }

// Mode implements Node: a window's result is final when it fires.
func (n *WindowAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

var (
	_ Node = (*WatermarkAssigner)(nil)
	_ Node = (*WindowTableFunction)(nil)
	_ Node = (*WindowAggregate)(nil)
)

// window translates the logical window nodes.
func (t *translator) window(n logical.Node) (Node, error) {
	in, err := t.node(n.Children()[0])
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *logical.WatermarkAssigner:
		return &WatermarkAssigner{Input: in, Rowtime: x.Rowtime, Expr: x.Expr}, nil
	case *logical.WindowTableFunction:
		return &WindowTableFunction{Input: in, Window: x.Window, Out: x.Out}, nil
	}
	return nil, fmt.Errorf("not supported yet: physical translation of %T", n)
}

// refsFrom reports whether e reads a column at index lo or above.
func refsFrom(e logical.Expr, lo int) bool {
	for i := range logical.InputRefs(e) {
		if i >= lo {
			return true
		}
	}
	return false
}

// windowAggregate turns a streaming aggregate over a windowing table
// function whose group keys include window_start and window_end into a
// WindowAggregate (under a Calc that restores the aggregate's column
// order). in is the aggregate's (converted) input: the windowing function
// or a Calc over it whose projections read window columns only as plain
// column references and whose condition reads none. ok is false when the
// aggregate is not a window aggregation: it stays a GroupAggregate.
func windowAggregate(x *HashAggregate, in Node) (Node, bool) {
	if e, ok := in.(*Expand); ok {
		return windowAggregateOverExpand(x, e) // grouping_sets.go
	}
	var calc *Calc
	var wtf *WindowTableFunction
	switch c := in.(type) {
	case *Calc:
		calc = c
		wtf, _ = c.Input.(*WindowTableFunction)
	case *WindowTableFunction:
		wtf = c
	}
	if wtf == nil || !wtf.Input.Mode().IsInsertOnly() {
		return nil, false
	}
	base := wtf.Input.Schema()
	w := len(base)
	var projs []logical.Expr
	var cond logical.Expr
	aggIn := in.Schema()
	if calc != nil {
		projs, cond = calc.Projection, calc.Condition
	} else {
		for i, f := range wtf.Out {
			projs = append(projs, &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type})
		}
	}
	if cond != nil && refsFrom(cond, w) {
		return nil, false
	}
	winOf := make([]int, len(projs))
	for j, p := range projs {
		winOf[j] = -1
		if c, ok := p.(*logical.ColumnRef); ok && c.Index >= w {
			winOf[j] = c.Index - w
			continue
		}
		if refsFrom(p, w) {
			return nil, false
		}
	}
	startKey, endKey, timeKey := -1, -1, -1
	var others []int
	for _, k := range x.GroupKeys {
		switch winOf[k] {
		case 0:
			if startKey >= 0 {
				return nil, false
			}
			startKey = k
		case 1:
			if endKey >= 0 {
				return nil, false
			}
			endKey = k
		case 2:
			if timeKey >= 0 {
				return nil, false
			}
			timeKey = k
		default:
			others = append(others, k)
		}
	}
	if startKey < 0 || endKey < 0 {
		return nil, false
	}
	for _, a := range x.Aggs {
		for _, arg := range a.Args {
			if winOf[arg] >= 0 {
				return nil, false
			}
		}
		if a.Filter >= 0 && winOf[a.Filter] >= 0 {
			return nil, false
		}
	}
	// the aggregate's new input: the non-window projections over the
	// windowing function's input, and the time column
	newIdx := make([]int, len(projs))
	var np []logical.Expr
	var nout types.Schema
	timeIdx := -1
	for j, p := range projs {
		newIdx[j] = -1
		if winOf[j] >= 0 {
			continue
		}
		newIdx[j] = len(np)
		if c, ok := p.(*logical.ColumnRef); ok && c.Index == wtf.Window.TimeCol && timeIdx < 0 {
			timeIdx = len(np)
		}
		np = append(np, p)
		nout = append(nout, aggIn[j])
	}
	if timeIdx < 0 {
		f := base[wtf.Window.TimeCol]
		timeIdx = len(np)
		np = append(np, &logical.ColumnRef{Index: wtf.Window.TimeCol, Name: f.Name, T: f.Type})
		nout = append(nout, f)
	}
	// SESSION's partition columns
	pkeys := make([]int, len(wtf.Window.PartitionKeys))
	for i, pk := range wtf.Window.PartitionKeys {
		pkeys[i] = -1
		for j, p := range np {
			if c, ok := p.(*logical.ColumnRef); ok && c.Index == pk {
				pkeys[i] = j
				break
			}
		}
		if pkeys[i] < 0 {
			f := base[pk]
			pkeys[i] = len(np)
			np = append(np, &logical.ColumnRef{Index: pk, Name: f.Name, T: f.Type})
			nout = append(nout, f)
		}
	}
	var input Node = wtf.Input
	if cond != nil || !isIdentityProjection(np, base) {
		c := &Calc{Input: wtf.Input, Projection: np, Condition: cond, Out: nout}
		input = c
		if ic, ok := wtf.Input.(*Calc); ok {
			if m, ok := mergeCalcs(c, ic); ok {
				input = m
			}
		}
	} else {
		nout = base
	}
	keys := make([]int, len(others))
	var out types.Schema
	for i, k := range others {
		keys[i] = newIdx[k]
	}
	for i, k := range x.GroupKeys {
		if k != startKey && k != endKey && k != timeKey {
			out = append(out, x.Out[i])
		}
	}
	aggs := make([]logical.AggCall, len(x.Aggs))
	for i, a := range x.Aggs {
		c := a
		c.Args = make([]int, len(a.Args))
		for j, arg := range a.Args {
			c.Args[j] = newIdx[arg]
		}
		if a.Filter >= 0 {
			c.Filter = newIdx[a.Filter]
		}
		aggs[i] = c
		out = append(out, x.Out[len(x.GroupKeys)+i])
	}
	win := wtf.Window
	win.TimeCol, win.TimeName, win.PartitionKeys = timeIdx, nout[timeIdx].Name, pkeys
	win.Proctime = isProctime(input, timeIdx)
	nwin := 2
	if timeKey >= 0 {
		nwin = 3
	}
	out = append(out, wtf.Out[w:w+nwin]...)
	wa := &WindowAggregate{Input: &Exchange{Input: input, Keys: keys}, GroupKeys: keys, Aggs: aggs, Window: win, WindowTime: timeKey >= 0, Out: out}
	nk, na := len(keys), len(aggs)
	top := make([]logical.Expr, len(x.Out))
	pos := 0
	for i, k := range x.GroupKeys {
		idx := 0
		switch k {
		case startKey:
			idx = nk + na
		case endKey:
			idx = nk + na + 1
		case timeKey:
			idx = nk + na + 2
		default:
			idx = pos
			pos++
		}
		top[i] = &logical.ColumnRef{Index: idx, Name: out[idx].Name, T: out[idx].Type}
	}
	for i := range aggs {
		idx := nk + i
		top[len(x.GroupKeys)+i] = &logical.ColumnRef{Index: idx, Name: out[idx].Name, T: out[idx].Type}
	}
	return &Calc{Input: wa, Projection: top, Out: x.Out}, true
}

// isIdentityProjection reports whether exprs read the columns of in in
// order.
func isIdentityProjection(exprs []logical.Expr, in types.Schema) bool {
	if len(exprs) != len(in) {
		return false
	}
	for i, e := range exprs {
		c, ok := e.(*logical.ColumnRef)
		if !ok || c.Index != i {
			return false
		}
	}
	return true
}

// pureRefs reports whether a Calc only selects columns.
func pureRefs(c *Calc) bool {
	if c.Condition != nil {
		return false
	}
	for _, e := range c.Projection {
		if _, ok := e.(*logical.ColumnRef); !ok {
			return false
		}
	}
	return true
}

// mergeCalcs fuses outer over inner into one Calc when one of them only
// selects columns (so no expression is evaluated twice or reordered with
// a condition); ok is false otherwise.
func mergeCalcs(outer, inner *Calc) (*Calc, bool) {
	switch {
	case pureRefs(outer):
		proj := make([]logical.Expr, len(outer.Projection))
		seen := map[int]bool{}
		for i, e := range outer.Projection {
			idx := e.(*logical.ColumnRef).Index
			p := inner.Projection[idx]
			if _, ref := p.(*logical.ColumnRef); !ref && seen[idx] {
				return nil, false // would compute an expression twice
			}
			seen[idx] = true
			proj[i] = p
		}
		return &Calc{Input: inner.Input, Projection: proj, Condition: inner.Condition, Out: outer.Out}, true
	case pureRefs(inner):
		proj := make([]logical.Expr, len(outer.Projection))
		for i, e := range outer.Projection {
			proj[i] = inline(e, inner.Projection)
		}
		var cond logical.Expr
		if outer.Condition != nil {
			cond = inline(outer.Condition, inner.Projection)
		}
		return &Calc{Input: inner.Input, Projection: proj, Condition: cond, Out: outer.Out}, true
	}
	return nil, false
}

// mergeWindowCalc fuses a Calc with the Calc that restores the column
// order over a WindowAggregate, as Flink prints one Calc there.
func mergeWindowCalc(n Node) Node {
	outer, ok := n.(*Calc)
	if !ok {
		return n
	}
	inner, ok := outer.Input.(*Calc)
	if !ok {
		return n
	}
	if _, ok := inner.Input.(*WindowAggregate); !ok {
		return n
	}
	if m, ok := mergeCalcs(outer, inner); ok {
		return m
	}
	return n
}

// batchWindowAggregate turns a batch aggregate over a SESSION window table
// function into a WindowAggregate (sessions depend on the other rows of
// their partition, so the window table function cannot assign them
// alone). Other windows stay a HashAggregate over the WindowTableFunction:
// in batch mode the windows are computed over all data either way.
func batchWindowAggregate(x *HashAggregate) Node {
	var wtf *WindowTableFunction
	switch c := x.Input.(type) {
	case *Calc:
		wtf, _ = c.Input.(*WindowTableFunction)
	case *WindowTableFunction:
		wtf = c
	}
	if wtf == nil || wtf.Window.Kind != logical.Session {
		return x
	}
	if w, ok := windowAggregate(x, x.Input); ok {
		return w
	}
	return x
}

// isProctime reports whether column col of n is a processing-time
// attribute: PROCTIME() (planned as CURRENT_TIMESTAMP) passed through
// Calcs and the nodes that keep their input's columns.
func isProctime(n Node, col int) bool {
	switch x := n.(type) {
	case *Calc:
		if col < 0 || col >= len(x.Projection) {
			return false
		}
		switch e := x.Projection[col].(type) {
		case *logical.ColumnRef:
			return isProctime(x.Input, e.Index)
		case *logical.Call:
			switch strings.ToUpper(e.Name) {
			case "CURRENT_TIMESTAMP", "PROCTIME", "NOW", "LOCALTIMESTAMP":
				return len(e.Args) == 0
			}
		}
		return false
	case *WatermarkAssigner, *Exchange:
		return isProctime(n.Children()[0], col)
	}
	return false
}

// WatermarkCalc is a Calc whose expressions call CURRENT_WATERMARK: its
// operator tracks the watermarks that pass and gives the current one to
// the expressions. EXPLAIN prints it as the Calc it is.
type WatermarkCalc struct {
	Calc
}

// Schema implements Node.
func (n *WatermarkCalc) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *WatermarkCalc) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WatermarkCalc) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *WatermarkCalc) Name() string { return "Calc" }

// Mode implements Node.
func (n *WatermarkCalc) Mode() changelog.Mode { return n.Input.Mode() }

var _ Node = (*WatermarkCalc)(nil)

// callsCurrentWatermark reports whether e calls CURRENT_WATERMARK.
func callsCurrentWatermark(e logical.Expr) bool {
	found := false
	if e != nil {
		logical.Walk(e, func(x logical.Expr) bool {
			if c, ok := x.(*logical.Call); ok && c.Name == "CURRENT_WATERMARK" {
				found = true
			}
			return !found
		})
	}
	return found
}

// withCurrentWatermark turns a streaming Calc that calls
// CURRENT_WATERMARK into a WatermarkCalc.
func withCurrentWatermark(n Node) Node {
	c, ok := n.(*Calc)
	if !ok {
		return n
	}
	uses := callsCurrentWatermark(c.Condition)
	for _, p := range c.Projection {
		uses = uses || callsCurrentWatermark(p)
	}
	if !uses {
		return n
	}
	return &WatermarkCalc{Calc: *c}
}

// Explain implements Node.
func (x *WatermarkCalc) Explain(execution bool) string {
	return x.Calc.Explain(execution)
}

// Explain implements Node.
func (x *WatermarkAssigner) Explain(execution bool) string {
	exprStr := exprStrFor(execution)
	names := x.Input.Schema().Names()
	return fmt.Sprintf("rowtime=[%s], watermark=[%s]", colName(names, x.Rowtime), exprStr(x.Expr, names))
}

// Explain implements Node.
func (x *WindowTableFunction) Explain(execution bool) string {
	return "window=[" + x.Window.String() + "]"
}

// Explain implements Node.
func (x *WindowAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	var keys, sel []string
	for _, k := range x.GroupKeys {
		keys = append(keys, colName(in, k))
	}
	sel = append(sel, keys...)
	for _, a := range x.Aggs {
		sel = append(sel, AggString(a, in)+" AS "+a.Alias)
	}
	nk := len(x.GroupKeys) + len(x.Aggs)
	sel = append(sel, "start('w$) AS "+x.Out[nk].Name, "end('w$) AS "+x.Out[nk+1].Name)
	if x.WindowTime {
		sel = append(sel, "rowtime('w$) AS "+x.Out[nk+2].Name)
	}
	s := ""
	if len(keys) > 0 {
		s = "groupBy=[" + strings.Join(keys, ", ") + "], "
	}
	return s + "window=[" + x.Window.String() + "], select=[" + strings.Join(sel, ", ") + "]"
}

// Capabilities (node.go).

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *WatermarkCalc) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *WatermarkCalc) ParallelSafe() bool { return true }

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *WindowTableFunction) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *WindowTableFunction) ParallelSafe() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *WatermarkAssigner) ParallelSafe() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *WindowAggregate) ParallelSafe() bool { return true }

// EstimateRows implements Estimator: the input's rows (not Calc's, which
// WatermarkCalc embeds).
func (n *WatermarkCalc) EstimateRows(in []float64) float64 { return in[0] }

// Cost implements Coster: Calcite's default (not Calc's).
func (n *WatermarkCalc) Cost(rows float64) (cpu, io float64) { return rows, 0 }
