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
// root's columns are read whole. A column a node passes through unchanged
// (same values, possibly repeated, reordered, filtered or padded with
// NULLs) hands its demand to the input column; every other use of an
// input column — a key, a condition, an aggregate's argument, a time
// attribute — reads it whole, except $FIELD(column, i) in an expression.
// The demand passes down
//
//   - through a Calc (and a WatermarkCalc) and an Expand: an output column
//     that is a bare column reference hands its demand to that input
//     column; an output column nothing reads whose expression is only a
//     field access ($FIELD of a column with literal indexes, which cannot
//     fail) reads nothing; every other expression, projected or in the
//     condition, reads what it uses;
//   - through the nodes whose output columns are their input columns
//     unchanged: WatermarkAssigner (its expression and rowtime column are
//     uses), MiniBatchAssigner, Exchange (its hash keys are read whole),
//     Limit, Sort and SortLimit (sort keys read whole);
//   - through the nodes that output their input columns followed by new
//     ones: WindowTableFunction (the time column and a session's partition
//     keys are read whole), Rank (partition and order keys read whole),
//     Deduplicate (keys and the time column read whole), OverAggregate
//     (partition and order keys and the calls' arguments read whole) and
//     Correlate (the call's arguments and the condition are expressions);
//   - through the joins (HashJoin, NestedLoopJoin, Join, IntervalJoin,
//     WindowJoin, TemporalJoin, LookupJoin): the output is the left
//     columns then the right ones (the left ones only for a semi or anti
//     join); equality keys, time columns, window bounds and primary keys
//     are read whole, the condition is an expression over left ++ right.
//     A LookupJoin's temporal table is no child: its scan reads all;
//   - through Union (batch and streaming): output column i is column i of
//     every input;
//   - into the one-phase and local aggregates (HashAggregate,
//     LocalHashAggregate, GroupAggregate, LocalGroupAggregate,
//     WindowAggregate, LocalWindowAggregate), which output no input column:
//     the group keys, the calls' arguments and filters and the window's
//     time column and partition keys are read whole, the other input
//     columns not at all.
//
// Global and merge aggregates, SetOp (hashes whole rows), sinks (write
// whole rows) and every other node read all columns of their inputs
// whole, as does any node whose shape is not the expected one (a column
// count or index that does not fit).
//
// Why a column nothing reads may hold anything: operators that match rows
// by whole-row equality (a join's or Rank's state taking a retraction)
// see the same NULLs in the insertion and in its retraction, as the
// source leaves the same fields NULL in every row; two rows that became
// equal differ only in columns nothing reads.
//
// In an expression, $FIELD(column, i) (a literal i) reads field i of the
// column; any other reference to a column — a bare reference in a
// condition, a function argument, a cast, IS NULL — reads it whole, as do
// expressions of kinds this file does not know. Granularity is one level:
// $FIELD(col, i) reads field i whole, nested ROW included.
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
	return analyseReads(plan).readFields()
}

// analyseReads runs the demand analysis over plan.
func analyseReads(plan physical.Node) *readAnalysis {
	a := &readAnalysis{acc: map[physical.Node][]colUse{}}
	if plan != nil {
		a.push(plan, allUses(len(plan.Schema())))
	}
	return a
}

// unreadColumns returns which output columns of n nothing above reads at
// all (nil when every column is read or n was not analysed): an operator
// may fill those with anything of the column's type.
func (a *readAnalysis) unreadColumns(n physical.Node) []bool {
	uses, ok := a.acc[n]
	if !ok {
		return nil
	}
	var out []bool
	for i, u := range uses {
		if u.all || len(u.fields) > 0 {
			continue
		}
		if out == nil {
			out = make([]bool, len(uses))
		}
		out[i] = true
	}
	return out
}

func (a *readAnalysis) readFields() map[*physical.TableSourceScan][][]bool {
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
	ch := n.Children()
	if _, isScan := n.(*physical.TableSourceScan); isScan {
		return
	}
	if in, ok := inputDemand(n, d); ok && len(in) == len(ch) {
		for i, c := range ch {
			a.push(c, in[i])
		}
		return
	}
	// Any other node (or an unexpected shape): its inputs are read whole.
	for _, c := range ch {
		a.push(c, allUses(len(c.Schema())))
	}
}

// inputDemand returns the demand on each of n's children (in the order of
// Children) given the demand d on n's output; ok is false for a node it
// does not know or one of an unexpected shape.
func inputDemand(n physical.Node, d []colUse) (in [][]colUse, ok bool) {
	one := func(u []colUse, ok bool) ([][]colUse, bool) {
		if !ok || u == nil {
			return nil, false
		}
		return [][]colUse{u}, true
	}
	switch n := n.(type) {
	case *physical.Calc:
		return one(calcDemand(n.Input, [][]logical.Expr{n.Projection}, n.Condition, d))
	case *physical.WatermarkCalc:
		return one(calcDemand(n.Input, [][]logical.Expr{n.Projection}, n.Condition, d))
	case *physical.Expand:
		return one(calcDemand(n.Input, n.Projects, nil, d))
	case *physical.WatermarkAssigner:
		u := passThrough(n.Input, d)
		return one(u, u != nil && readWhole(u, n.Rowtime) && exprUses(n.Expr, u))
	case *physical.MiniBatchAssigner:
		return one(passThrough(n.Input, d), true)
	case *physical.Exchange:
		u := passThrough(n.Input, d)
		return one(u, readWhole(u, n.Keys...))
	case *physical.Limit:
		return one(passThrough(n.Input, d), true)
	case *physical.Sort:
		u := passThrough(n.Input, d)
		return one(u, readSortKeys(u, n.Keys))
	case *physical.SortLimit:
		u := passThrough(n.Input, d)
		return one(u, readSortKeys(u, n.Keys))
	case *physical.WindowTableFunction:
		u := prefixThrough(n.Input, d, 3)
		return one(u, readWhole(u, n.Window.TimeCol) && readWhole(u, n.Window.PartitionKeys...))
	case *physical.Rank:
		extra := 0
		if n.OutputRank {
			extra = 1
		}
		u := prefixThrough(n.Input, d, extra)
		return one(u, readWhole(u, n.PartitionKeys...) && readSortKeys(u, n.OrderKeys))
	case *physical.Deduplicate:
		u := prefixThrough(n.Input, d, 0)
		return one(u, readWhole(u, n.Keys...) && readWhole(u, n.TimeCol))
	case *physical.OverAggregate:
		u := prefixThrough(n.Input, d, len(n.Calls))
		ok := readWhole(u, n.PartitionKeys...) && readSortKeys(u, n.OrderKeys)
		for _, c := range n.Calls {
			ok = ok && readWhole(u, c.Args...)
		}
		return one(u, ok)
	case *physical.Correlate:
		return one(correlateDemand(n, d))
	case *physical.Union:
		return unionDemand(n.Inputs, d)
	case *physical.StreamUnion:
		return unionDemand(n.Inputs, d)
	case *physical.HashJoin:
		return joinDemand(n.Left, n.Right, n.Kind, d, n.LeftKeys, n.RightKeys, n.Extra, nil, nil)
	case *physical.NestedLoopJoin:
		return joinDemand(n.Left, n.Right, n.Kind, d, nil, nil, n.Cond, nil, nil)
	case *physical.StreamJoin:
		return joinDemand(n.Left, n.Right, n.Kind, d, n.LeftKeys, n.RightKeys, n.Extra, nil, nil)
	case *physical.IntervalJoin:
		return joinDemand(n.Left, n.Right, n.Kind, d, n.LeftKeys, n.RightKeys, n.Cond,
			[]int{n.LeftTimeIndex}, []int{n.RightTimeIndex})
	case *physical.WindowJoin:
		return joinDemand(n.Left, n.Right, n.Kind, d, n.LeftKeys, n.RightKeys, n.Extra,
			[]int{n.LeftStart, n.LeftEnd}, []int{n.RightStart, n.RightEnd})
	case *physical.TemporalJoin:
		return joinDemand(n.Left, n.Right, n.Kind, d, n.LeftKeys, n.RightKeys, n.Extra,
			[]int{n.LeftTimeIndex}, append([]int{n.RightTimeIndex}, n.PrimaryKey...))
	case *physical.LookupJoin:
		if n.Temporal == nil {
			return nil, false
		}
		// The temporal side is no child: only the input's demand is kept.
		in, ok := joinDemand(n.Input, n.Temporal, n.Kind, d, n.InputKeys, n.TemporalKeys, n.Extra, nil, nil)
		if !ok {
			return nil, false
		}
		return in[:1], true
	case *physical.HashAggregate:
		return one(aggDemand(n.Input, n.GroupKeys, n.Aggs, nil))
	case *physical.LocalHashAggregate:
		return one(aggDemand(n.Input, n.GroupKeys, n.Aggs, nil))
	case *physical.GroupAggregate:
		return one(aggDemand(n.Input, n.GroupKeys, n.Aggs, nil))
	case *physical.LocalGroupAggregate:
		return one(aggDemand(n.Input, n.GroupKeys, n.Aggs, nil))
	case *physical.WindowAggregate:
		return one(aggDemand(n.Input, n.GroupKeys, n.Aggs, &n.Window))
	case *physical.LocalWindowAggregate:
		return one(aggDemand(n.Input, n.GroupKeys, n.Aggs, &n.Window))
	}
	return nil, false
}

// passThrough returns a copy of d as the demand on input, or nil when the
// input's columns are not the node's (not expected).
func passThrough(input physical.Node, d []colUse) []colUse {
	if input == nil || len(input.Schema()) != len(d) {
		return nil
	}
	return prefixThrough(input, d, 0)
}

// prefixThrough is the demand on input of a node whose output is input's
// columns followed by extra new ones: a copy of the first columns of d,
// or nil when the counts do not fit.
func prefixThrough(input physical.Node, d []colUse, extra int) []colUse {
	if input == nil {
		return nil
	}
	n := len(input.Schema())
	if len(d) != n+extra {
		return nil
	}
	in := make([]colUse, n)
	for i := range in {
		in[i].merge(d[i])
	}
	return in
}

// readWhole marks columns cols of in read whole; false when in is nil or
// an index is out of range.
func readWhole(in []colUse, cols ...int) bool {
	if in == nil {
		return false
	}
	for _, c := range cols {
		if c < 0 || c >= len(in) {
			return false
		}
		in[c].addAll()
	}
	return true
}

func readSortKeys(in []colUse, keys []logical.SortKey) bool {
	if in == nil {
		return false
	}
	for _, k := range keys {
		if !readWhole(in, k.Index) {
			return false
		}
	}
	return true
}

// calcDemand is the demand on the input of a Calc (one projection list)
// or an Expand (one per copy; each list has one expression per output
// column) with condition cond.
func calcDemand(input physical.Node, projs [][]logical.Expr, cond logical.Expr, d []colUse) ([]colUse, bool) {
	if input == nil {
		return nil, false
	}
	in := make([]colUse, len(input.Schema()))
	for _, proj := range projs {
		if len(proj) != len(d) {
			return nil, false
		}
		for i, e := range proj {
			if c, isRef := e.(*logical.ColumnRef); isRef && c.Index >= 0 && c.Index < len(in) {
				in[c.Index].merge(d[i]) // passed through: read as the output is
				continue
			}
			if !d[i].all && len(d[i].fields) == 0 && fieldAccess(e, len(in)) {
				continue // not read, and computing it cannot fail
			}
			if !exprUses(e, in) {
				return nil, false
			}
		}
	}
	if !exprUses(cond, in) {
		return nil, false
	}
	return in, true
}

// fieldAccess reports whether e is a literal, a column of an input of n
// columns, or $FIELD of one with a literal index, nested any depth:
// expressions that evaluate to NULL or a value whatever the input holds,
// and never fail.
func fieldAccess(e logical.Expr, n int) bool {
	switch x := e.(type) {
	case *logical.Literal:
		return true
	case *logical.ColumnRef:
		return x.Index >= 0 && x.Index < n
	case *logical.Call:
		if x.Name != "$FIELD" || len(x.Args) != 2 || x.Args[0].Type().Kind != types.Row {
			return false
		}
		l, isLit := x.Args[1].(*logical.Literal)
		if !isLit {
			return false
		}
		i, isInt := l.Value.(int32)
		return isInt && int(i) >= 0 && int(i) < len(x.Args[0].Type().Fields) && fieldAccess(x.Args[0], n)
	}
	return false
}

// correlateDemand: a Correlate outputs its input's columns followed by
// the function's; the call's arguments read the input, the condition
// reads the output.
func correlateDemand(n *physical.Correlate, d []colUse) ([]colUse, bool) {
	if n.Input == nil || n.Call == nil || len(d) != len(n.Out) || len(n.Out) < len(n.Input.Schema()) {
		return nil, false
	}
	out := make([]colUse, len(d))
	for i := range d {
		out[i].merge(d[i])
	}
	if !exprUses(n.Cond, out) {
		return nil, false
	}
	in := out[:len(n.Input.Schema())]
	for _, arg := range n.Call.Args {
		if !exprUses(arg, in) {
			return nil, false
		}
	}
	return in, true
}

// unionDemand: output column i is column i of every input.
func unionDemand(inputs []physical.Node, d []colUse) ([][]colUse, bool) {
	in := make([][]colUse, len(inputs))
	for i, c := range inputs {
		if in[i] = passThrough(c, d); in[i] == nil {
			return nil, false
		}
	}
	return in, true
}

// joinDemand is the demand on the two inputs of a join whose output is
// left ++ right (left only for a semi or anti join): keys and the extra
// columns (time attributes, window bounds, primary keys) are read whole;
// cond is an expression over left ++ right.
func joinDemand(left, right physical.Node, kind logical.JoinKind, d []colUse, lkeys, rkeys []int, cond logical.Expr,
	lextra, rextra []int) ([][]colUse, bool) {
	if left == nil || right == nil {
		return nil, false
	}
	nl, nr := len(left.Schema()), len(right.Schema())
	both := make([]colUse, nl+nr)
	switch kind {
	case logical.SemiJoin, logical.AntiJoin:
		if len(d) != nl {
			return nil, false
		}
	case logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin:
		if len(d) != nl+nr {
			return nil, false
		}
	default:
		return nil, false
	}
	for i := range d {
		both[i].merge(d[i])
	}
	l, r := both[:nl:nl], both[nl:]
	if !readWhole(l, lkeys...) || !readWhole(r, rkeys...) || !readWhole(l, lextra...) || !readWhole(r, rextra...) ||
		!exprUses(cond, both) {
		return nil, false
	}
	return [][]colUse{l, r}, true
}

// aggDemand is the demand on the input of an aggregate that outputs no
// input column as it is (group keys are read whole): the group keys, the
// calls' arguments and filters, and a window's time column and partition
// keys.
func aggDemand(input physical.Node, keys []int, aggs []logical.AggCall, w *logical.WindowSpec) ([]colUse, bool) {
	if input == nil {
		return nil, false
	}
	in := make([]colUse, len(input.Schema()))
	ok := readWhole(in, keys...)
	for _, c := range aggs {
		ok = ok && readWhole(in, c.Args...)
		if c.Filter >= 0 {
			ok = ok && readWhole(in, c.Filter)
		}
	}
	if w != nil {
		ok = ok && readWhole(in, w.TimeCol) && readWhole(in, w.PartitionKeys...)
	}
	return in, ok
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
