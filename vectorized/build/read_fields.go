package build

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
)

// Read fields of ROW columns (connectors.SourceSpec.ReadFields).
//
// ReadFields walks a physical plan from the root down and computes, for
// each output column of each node, what of it is read above: nothing, all
// of it, or (for a ROW column) only some of its top-level fields. The
// root's columns are read whole. The demand passes down
//
//   - through a Calc (and a WatermarkCalc): an output column that is a bare
//     column reference hands its demand to that input column; every other
//     expression, projected or in the condition, reads what it uses;
//   - through the nodes whose output columns are their input columns
//     unchanged: WatermarkAssigner (its expression and rowtime column are
//     uses), MiniBatchAssigner, Exchange (its hash keys are read whole).
//
// In an expression, $FIELD(column, i) (a literal i) reads field i of the
// column; any other reference to a column — a bare reference in a
// condition, a function argument, a cast, IS NULL — reads it whole, as do
// expressions of kinds this file does not know. Every other node (joins,
// aggregates, sinks, unions, sorts, …) reads all columns of its inputs.
// Granularity is one level: $FIELD(col, i) reads field i whole, nested
// ROW included.
//
// Plans are trees in practice, but a node shared by several parents (a
// DAG) gets the union of their demands: a node's demand only grows, and
// its inputs are visited again whenever it grows.

// colUse is what is read of one column: all of it, or the listed fields
// (none: the column is not read).
type colUse struct {
	all    bool
	fields map[int]bool
}

func (u *colUse) addAll() bool {
	if u.all {
		return false
	}
	u.all, u.fields = true, nil
	return true
}

func (u *colUse) addField(i int) bool {
	if u.all || u.fields[i] {
		return false
	}
	if u.fields == nil {
		u.fields = map[int]bool{}
	}
	u.fields[i] = true
	return true
}

func (u *colUse) merge(v colUse) bool {
	if v.all {
		return u.addAll()
	}
	changed := false
	for i := range v.fields {
		if u.addField(i) {
			changed = true
		}
	}
	return changed
}

// ReadFields returns, for each TableSourceScan of plan, the
// connectors.SourceSpec.ReadFields of its output columns: for each ROW
// column read only in part, which of its top-level fields are read; nil
// entries (all read) for the other columns, and a nil slice when every
// column is read whole. Scans missing from the map read everything.
func ReadFields(plan physical.Node) map[*physical.TableSourceScan][][]bool {
	a := &readAnalysis{acc: map[physical.Node][]colUse{}}
	if plan != nil {
		a.push(plan, allUses(len(plan.Schema())))
	}
	out := map[*physical.TableSourceScan][][]bool{}
	for n, uses := range a.acc {
		scan, ok := n.(*physical.TableSourceScan)
		if !ok {
			continue
		}
		var rf [][]bool
		for i, f := range scan.Out {
			if i >= len(uses) || uses[i].all || f.Type.Kind != types.Row {
				continue
			}
			if rf == nil {
				rf = make([][]bool, len(scan.Out))
			}
			read := make([]bool, len(f.Type.Fields))
			for j := range uses[i].fields {
				if j >= 0 && j < len(read) {
					read[j] = true
				}
			}
			rf[i] = read
		}
		out[scan] = rf
	}
	return out
}

// readAnalysis accumulates the demand on each node's output columns.
type readAnalysis struct {
	acc map[physical.Node][]colUse
}

func allUses(n int) []colUse {
	u := make([]colUse, n)
	for i := range u {
		u[i].all = true
	}
	return u
}

// push adds demand d on n's output columns and, when n's demand grew,
// passes it down to n's inputs.
func (a *readAnalysis) push(n physical.Node, d []colUse) {
	cur, seen := a.acc[n]
	if !seen {
		cur = make([]colUse, len(n.Schema()))
	}
	changed := !seen
	if len(d) != len(cur) { // not expected: read everything
		d = allUses(len(cur))
	}
	for i := range d {
		if cur[i].merge(d[i]) {
			changed = true
		}
	}
	a.acc[n] = cur
	if changed {
		a.pushDown(n, cur)
	}
}

// pushDown passes the demand d on n's output to n's inputs.
func (a *readAnalysis) pushDown(n physical.Node, d []colUse) {
	switch n := n.(type) {
	case *physical.TableSourceScan:
		return
	case *physical.Calc:
		a.pushCalc(n, d)
		return
	case *physical.WatermarkCalc:
		a.pushCalc(&n.Calc, d)
		return
	case *physical.WatermarkAssigner:
		in := passThrough(n.Input, d)
		if in != nil && n.Rowtime >= 0 && n.Rowtime < len(in) {
			in[n.Rowtime].addAll()
			if exprUses(n.Expr, in) {
				a.push(n.Input, in)
				return
			}
		}
	case *physical.MiniBatchAssigner:
		if in := passThrough(n.Input, d); in != nil {
			a.push(n.Input, in)
			return
		}
	case *physical.Exchange:
		if in := passThrough(n.Input, d); in != nil {
			ok := true
			for _, k := range n.Keys {
				if k < 0 || k >= len(in) {
					ok = false
					break
				}
				in[k].addAll()
			}
			if ok {
				a.push(n.Input, in)
				return
			}
		}
	}
	// Any other node (or an unexpected shape): its inputs are read whole.
	for _, c := range n.Children() {
		a.push(c, allUses(len(c.Schema())))
	}
}

// passThrough returns a copy of d as the demand on input, or nil when the
// input's columns are not the node's (not expected).
func passThrough(input physical.Node, d []colUse) []colUse {
	if input == nil || len(input.Schema()) != len(d) {
		return nil
	}
	in := make([]colUse, len(d))
	for i := range d {
		in[i].merge(d[i])
	}
	return in
}

func (a *readAnalysis) pushCalc(n *physical.Calc, d []colUse) {
	in := make([]colUse, len(n.Input.Schema()))
	ok := len(d) == len(n.Projection)
	for i, e := range n.Projection {
		if !ok {
			break
		}
		if c, isRef := e.(*logical.ColumnRef); isRef && c.Index >= 0 && c.Index < len(in) {
			in[c.Index].merge(d[i]) // passed through: read as the output is
			continue
		}
		// Evaluated whether or not its output is read.
		ok = exprUses(e, in)
	}
	if ok && n.Condition != nil {
		ok = exprUses(n.Condition, in)
	}
	if !ok {
		in = allUses(len(in))
	}
	a.push(n.Input, in)
}

// exprUses adds what e reads of its input columns to in. It returns false
// when e holds something it does not understand (the caller then reads
// everything).
func exprUses(e logical.Expr, in []colUse) bool {
	switch x := e.(type) {
	case nil:
		return true
	case *logical.Literal:
		return true
	case *logical.ColumnRef:
		if x.Index < 0 || x.Index >= len(in) {
			return false
		}
		in[x.Index].addAll()
		return true
	case *logical.Call:
		if x.Name == "$FIELD" && len(x.Args) == 2 {
			c, isRef := x.Args[0].(*logical.ColumnRef)
			l, isLit := x.Args[1].(*logical.Literal)
			if isRef && isLit && c.Index >= 0 && c.Index < len(in) && c.T.Kind == types.Row {
				if i, isInt := l.Value.(int32); isInt && int(i) >= 0 && int(i) < len(c.T.Fields) {
					in[c.Index].addField(int(i))
					return true
				}
			}
		}
		for _, arg := range x.Args {
			if !exprUses(arg, in) {
				return false
			}
		}
		return true
	case *logical.Cast, *logical.Case:
		for _, ch := range e.Children() {
			if !exprUses(ch, in) {
				return false
			}
		}
		return true
	}
	return false
}
