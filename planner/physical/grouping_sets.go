package physical

import (
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// hasGroupingSets reports an aggregate that needs the grouping-sets plan:
// two or more grouping sets, or GROUPING / GROUPING_ID calls.
func hasGroupingSets(x *logical.Aggregate) bool {
	if len(x.GroupSets) > 1 {
		return true
	}
	for _, a := range x.Aggs {
		if logical.IsGroupingCall(a.Name) {
			return true
		}
	}
	return false
}

// groupingSetsAggregate plans an aggregate over grouping sets as Flink
// does (ExpandUtil):
//
//	Calc(select=[b, c, a, CASE(($e = 0), 0, 1) AS gb])
//	+- HashAggregate(groupBy=[b, c, $e], select=[b, c, $e, AVG(a) AS a])
//	   +- Expand(projects=[{a, b, c, 0 AS $e}, {a, b, null AS c, 1 AS $e}, {a, null AS b, null AS c, 3 AS $e}])
//
// The Expand emits every input row once per set with the keys the set
// leaves out NULL and the set's expand id in $e; the aggregate groups by
// the keys and $e. An aggregate argument that is such a key reads a copy
// of the column that is never NULL. GROUPING / GROUPING_ID calls are CASE
// expressions over $e in the Calc on top (constant 0 with one set).
func groupingSetsAggregate(x *logical.Aggregate, in Node) Node {
	nk := len(x.GroupKeys)
	inS := in.Schema()
	keyPos := map[int]int{}
	for p, k := range x.GroupKeys {
		keyPos[k] = p
	}
	multi := len(x.GroupSets) > 1
	var aggIn = in
	groupKeys := append([]int(nil), x.GroupKeys...)
	copyOf := map[int]int{}
	if multi {
		nulled := map[int]bool{}
		for p, k := range x.GroupKeys {
			if !logical.KeyInAllSets(x.GroupSets, p) {
				nulled[k] = true
			}
		}
		out := append(types.Schema(nil), inS...)
		for k := range nulled {
			out[k].Type = out[k].Type.WithNullable(true)
		}
		for _, a := range x.Aggs {
			if logical.IsGroupingCall(a.Name) {
				continue
			}
			cols := append([]int(nil), a.Args...)
			if a.Filter >= 0 {
				cols = append(cols, a.Filter)
			}
			for _, c := range cols {
				if _, done := copyOf[c]; nulled[c] && !done {
					copyOf[c] = len(out)
					out = append(out, types.Field{Name: inS[c].Name + "_0", Type: inS[c].Type})
				}
			}
		}
		eIdx := len(out)
		bigint := types.BigIntT.WithNullable(false)
		out = append(out, types.Field{Name: "$e", Type: bigint})
		out = uniquifySchema(out)
		projects := make([][]logical.Expr, len(x.GroupSets))
		for s, set := range x.GroupSets {
			inSet := map[int]bool{}
			for _, p := range set {
				inSet[x.GroupKeys[p]] = true
			}
			row := make([]logical.Expr, 0, len(out))
			for i, f := range inS {
				if nulled[i] && !inSet[i] {
					row = append(row, &logical.Literal{Value: nil, T: out[i].Type})
					continue
				}
				row = append(row, &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type})
			}
			for i := len(inS); i < eIdx; i++ {
				for c, j := range copyOf {
					if j == i {
						row = append(row, &logical.ColumnRef{Index: c, Name: inS[c].Name, T: inS[c].Type})
					}
				}
			}
			row = append(row, &logical.Literal{Value: logical.ExpandID(set, nk), T: bigint})
			projects[s] = row
		}
		aggIn = &Expand{Input: in, Projects: projects, Out: out}
		groupKeys = append(groupKeys, eIdx)
	}
	var aggs []logical.AggCall
	var aggOut types.Schema
	for i := 0; i < nk; i++ {
		aggOut = append(aggOut, x.Out[i])
	}
	if multi {
		aggOut = append(aggOut, types.Field{Name: "$e", Type: types.BigIntT.WithNullable(false)})
	}
	width := len(aggOut)
	realIdx := map[int]int{}
	for i, a := range x.Aggs {
		if logical.IsGroupingCall(a.Name) {
			continue
		}
		c := a
		c.Args = make([]int, len(a.Args))
		for j, arg := range a.Args {
			c.Args[j] = arg
			if d, ok := copyOf[arg]; ok {
				c.Args[j] = d
			}
		}
		if d, ok := copyOf[a.Filter]; ok && a.Filter >= 0 {
			c.Filter = d
		}
		realIdx[i] = len(aggs)
		aggs = append(aggs, c)
		aggOut = append(aggOut, x.Out[nk+i])
	}
	aggOut = uniquifySchema(aggOut)
	ha := batchWindowAggregate(&HashAggregate{Input: aggIn, GroupKeys: groupKeys, Aggs: aggs, Out: aggOut})
	proj := make([]logical.Expr, 0, len(x.Out))
	for i := 0; i < nk; i++ {
		proj = append(proj, &logical.ColumnRef{Index: i, Name: aggOut[i].Name, T: aggOut[i].Type})
	}
	var eRef *logical.ColumnRef
	if multi {
		eRef = &logical.ColumnRef{Index: nk, Name: "$e", T: aggOut[nk].Type}
	}
	for i, a := range x.Aggs {
		if j, ok := realIdx[i]; ok {
			idx := width + j
			proj = append(proj, &logical.ColumnRef{Index: idx, Name: aggOut[idx].Name, T: aggOut[idx].Type})
			continue
		}
		pos := make([]int, len(a.Args))
		for j, arg := range a.Args {
			pos[j] = keyPos[arg]
		}
		proj = append(proj, groupingExpr(pos, x.GroupSets, nk, eRef))
	}
	return &Calc{Input: ha, Projection: proj, Out: x.Out}
}

// groupingExpr computes GROUPING / GROUPING_ID over the key positions pos
// from the expand id e, as Calcite simplifies Flink's CASE: the last set's
// value is the ELSE, trailing sets with that value add no branch, and
// consecutive sets with one value share a branch (SEARCH($e, Sarg[0, 1])).
func groupingExpr(pos []int, sets [][]int, nk int, e *logical.ColumnRef) logical.Expr {
	bigint := types.BigIntT.WithNullable(false)
	lit := func(v int64) logical.Expr { return &logical.Literal{Value: v, T: bigint} }
	if e == nil || len(sets) < 2 {
		return lit(0)
	}
	n := len(sets)
	vals := make([]int64, n)
	for s, set := range sets {
		vals[s] = logical.GroupingValue(pos, set)
	}
	last := n - 1
	for last > 0 && vals[last-1] == vals[n-1] {
		last--
	}
	var whens []logical.When
	boolean := types.BooleanT.WithNullable(false)
	for s := 0; s < last; {
		end := s + 1
		for end < last && vals[end] == vals[s] {
			end++
		}
		args := []logical.Expr{e}
		for t := s; t < end; t++ {
			args = append(args, lit(logical.ExpandID(sets[t], nk)))
		}
		var cond logical.Expr = logical.NewCall(function.OpEquals, boolean, args...)
		if len(args) > 2 {
			cond = logical.NewCall(function.OpIn, boolean, args...)
		}
		whens = append(whens, logical.When{Cond: cond, Then: lit(vals[s])})
		s = end
	}
	if len(whens) == 0 {
		return lit(vals[n-1])
	}
	return &logical.Case{Whens: whens, Else: lit(vals[n-1]), T: bigint}
}

// uniquifySchema renames duplicate column names as uniquify does.
func uniquifySchema(s types.Schema) types.Schema {
	names := uniquify(s.Names())
	out := append(types.Schema(nil), s...)
	for i := range out {
		out[i].Name = names[i]
	}
	return out
}

// windowAggregateOverExpand is windowAggregate for grouping sets over a
// windowing table function: Flink merges the window function into the
// WindowAggregate and keeps the Expand below it, over the window
// function's input and the time column:
//
//	WindowAggregate(groupBy=[supplier_id, $e], window=[TUMBLE(time_col=[bidtime], …)], …)
//	+- Exchange(distribution=[hash[supplier_id, $e]])
//	   +- Expand(projects=[{supplier_id, price, 0 AS $e, bidtime}, {null AS supplier_id, price, 1 AS $e, bidtime}])
//
// window_start and window_end must be in every set; ok is false otherwise
// (the aggregate stays a GroupAggregate).
func windowAggregateOverExpand(x *HashAggregate, e *Expand) (Node, bool) {
	var projs []logical.Expr
	var cond logical.Expr
	var wtf *WindowTableFunction
	switch c := e.Input.(type) {
	case *Calc:
		wtf, _ = c.Input.(*WindowTableFunction)
		projs, cond = c.Projection, c.Condition
	case *WindowTableFunction:
		wtf = c
		projs = identityProj(c.Out)
	}
	if wtf == nil {
		return nil, false
	}
	w := len(wtf.Input.Schema())
	eCol := len(e.Out) - 1
	// the expression over the window function each Expand column copies
	synth := make([]logical.Expr, len(e.Out))
	for j := range e.Out {
		if j == eCol {
			synth[j] = &logical.Literal{Value: int64(0), T: e.Out[j].Type}
			continue
		}
		nulled := false
		for _, p := range e.Projects {
			if r, ok := p[j].(*logical.ColumnRef); ok {
				synth[j] = projs[r.Index]
			} else {
				nulled = true
			}
		}
		if synth[j] == nil {
			return nil, false
		}
		if r, ok := synth[j].(*logical.ColumnRef); ok && r.Index >= w && nulled {
			return nil, false // a window column some set leaves out
		}
	}
	r, ok := windowAggregate(x, &Calc{Input: wtf, Projection: synth, Condition: cond, Out: e.Out})
	if !ok {
		return nil, false
	}
	top, ok := r.(*Calc)
	if !ok {
		return nil, false
	}
	wa, ok := top.Input.(*WindowAggregate)
	if !ok {
		return nil, false
	}
	ex, ok := wa.Input.(*Exchange)
	if !ok {
		return nil, false
	}
	base, ok := ex.Input.(*Calc)
	if !ok {
		return nil, false
	}
	// the first columns of base are the Expand's columns that are not
	// window columns, in order; the placeholder of $e is among them
	var cols []int
	for j := range e.Out {
		if r, ok := synth[j].(*logical.ColumnRef); ok && r.Index >= w {
			continue
		}
		cols = append(cols, j)
	}
	ePos := -1
	for i, j := range cols {
		if j == eCol {
			ePos = i
		}
	}
	if ePos < 0 || len(base.Projection) < len(cols) {
		return nil, false
	}
	// drop the placeholder from the Calc; the Expand puts $e back there
	below := *base
	below.Projection = append(append([]logical.Expr(nil), base.Projection[:ePos]...), base.Projection[ePos+1:]...)
	below.Out = append(append(types.Schema(nil), base.Out[:ePos]...), base.Out[ePos+1:]...)
	out := append(types.Schema(nil), base.Out...)
	projects := make([][]logical.Expr, len(e.Projects))
	for p, proj := range e.Projects {
		row := make([]logical.Expr, len(out))
		for i := range out {
			src := i
			if i > ePos {
				src = i - 1
			}
			if i == ePos {
				row[i] = proj[eCol]
				out[i] = e.Out[eCol]
				continue
			}
			row[i] = &logical.ColumnRef{Index: src, Name: below.Out[src].Name, T: below.Out[src].Type}
			if i < len(cols) {
				if l, isLit := proj[cols[i]].(*logical.Literal); isLit && l.Value == nil {
					row[i] = &logical.Literal{Value: nil, T: out[i].Type.WithNullable(true)}
					out[i].Type = out[i].Type.WithNullable(true)
				}
			}
		}
		projects[p] = row
	}
	for _, row := range projects {
		for i, x := range row {
			if l, isLit := x.(*logical.Literal); isLit && l.Value == nil {
				l.T = out[i].Type
			}
		}
	}
	var belowNode Node = &below
	if b, ok := belowNode.(*Calc); ok && b.Condition == nil && isIdentityProjection(b.Projection, b.Input.Schema()) {
		belowNode = b.Input
	}
	exp := &Expand{Input: belowNode, Projects: projects, Out: out}
	nex := *ex
	nex.Input = exp
	nwa := *wa
	nwa.Input = &nex
	ntop := *top
	ntop.Input = &nwa
	return &ntop, true
}
