package physical

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// OverAggregate computes window functions (OVER) over partitions of its
// input: the output is the input's columns followed by one column per
// call. In batch mode it sorts by partition and order keys and computes
// running values; in streaming mode (Streaming set) the order key is a
// time attribute ascending and each row is emitted once with the values of
// the frame ending at it.
type OverAggregate struct {
	Input         Node
	PartitionKeys []int
	OrderKeys     []logical.SortKey
	Rows          bool
	// Bounded ROWS frames start Preceding rows before the current row.
	Bounded   bool
	Preceding int64
	Calls     []logical.OverCall
	Out       types.Schema
	Streaming bool
	// Rowtime is set in streaming mode when the order key is an event-time
	// attribute: rows are emitted in event-time order on watermarks.
	Rowtime bool
}

// Rank is Top-N: it keeps the rows of each partition ranked 1..RankEnd by
// the order keys (ROW_NUMBER). The output is the input's columns, followed
// by the rank number when OutputRank is set. In streaming mode it is
// Flink's AppendFastStrategy over an insert-only input: a row entering the
// top N retracts the one it pushes out.
type Rank struct {
	Input         Node
	PartitionKeys []int
	OrderKeys     []logical.SortKey
	RankType      string // ROW_NUMBER
	RankEnd       int64
	OutputRank    bool
	Out           types.Schema
	Streaming     bool
	// Retract is set in streaming mode over an updating input (Flink's
	// RetractStrategy): the operator keeps every row of a partition.
	Retract bool
	// TieLast ranks a row before the rows it ties with: the batch form of
	// keeping the last row by a time attribute (deduplication), so that
	// batch and streaming agree on ties.
	TieLast bool
}

// Deduplicate keeps the first or the last row per key by a time attribute
// (streaming ROW_NUMBER() ... = 1 ordered by a time attribute).
type Deduplicate struct {
	Input    Node
	Keys     []int
	KeepLast bool
	Rowtime  bool
	TimeCol  int
	Out      types.Schema
}

// Schema implements Node.
func (n *OverAggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Rank) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Deduplicate) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *OverAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Rank) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Deduplicate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *OverAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Rank) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Deduplicate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *OverAggregate) Name() string { return "OverAggregate" }

// Name implements Node.
func (n *Rank) Name() string { return "Rank" }

// Name implements Node.
func (n *Deduplicate) Name() string { return "Deduplicate" }

// Mode implements Node.
func (n *OverAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node: in streaming mode any change, as Flink declares
// for every Rank (the operator emits +I/-D, or +I/-U/+U when the rank
// number is output over an insert-only input).
func (n *Rank) Mode() changelog.Mode {
	if !n.Streaming {
		return changelog.InsertOnly
	}
	return changelog.All
}

// Mode implements Node: keeping the first row by processing time only
// inserts; otherwise a row may be replaced (-U/+U).
func (n *Deduplicate) Mode() changelog.Mode {
	if !n.KeepLast && !n.Rowtime {
		return changelog.InsertOnly
	}
	return changelog.ModeInsert | changelog.ModeUpdateBefore | changelog.ModeUpdateAfter
}

func (t *translator) over(x *logical.Window) (Node, error) {
	in, err := t.node(x.Input)
	if err != nil {
		return nil, err
	}
	return &OverAggregate{Input: in, PartitionKeys: x.PartitionKeys, OrderKeys: x.OrderKeys, Rows: x.Rows,
		Bounded: x.Bounded, Preceding: x.Preceding, Calls: x.Calls, Out: x.Out}, nil
}

// topN turns Calc(rank <= N) over an OverAggregate computing one
// ROW_NUMBER into a Rank (Flink's FlinkLogicalRankRule): the rank bound
// leaves the condition, and the rank column is kept only if still used.
func topN(n Node, err error) (Node, error) {
	if err != nil {
		return n, err
	}
	c, ok := n.(*Calc)
	if !ok || c.Condition == nil {
		return n, nil
	}
	o, ok := c.Input.(*OverAggregate)
	if !ok || len(o.Calls) != 1 || o.Calls[0].Name != "ROW_NUMBER" || len(o.OrderKeys) == 0 {
		return n, nil
	}
	r := len(o.Input.Schema())
	end := int64(-1)
	var rest []logical.Expr
	for _, cj := range logical.Conjuncts(c.Condition) {
		if v, ok := rankBound(cj, r); ok && (end < 0 || v < end) {
			end = v
			continue
		}
		rest = append(rest, cj)
	}
	if end < 1 {
		return n, nil
	}
	used := false
	for _, e := range append(append([]logical.Expr(nil), c.Projection...), rest...) {
		if _, ok := logical.InputRefs(e)[r]; ok {
			used = true
		}
	}
	rk := &Rank{Input: o.Input, PartitionKeys: o.PartitionKeys, OrderKeys: o.OrderKeys, RankType: "ROW_NUMBER",
		RankEnd: end, OutputRank: used, Out: o.Input.Schema()}
	if used {
		rk.Out = o.Out
	}
	if end == 1 && !used && len(o.OrderKeys) == 1 && o.OrderKeys[0].Desc && timeAttrOf(o.Input, o.OrderKeys[0].Index) != NoTime {
		rk.TieLast = true
	}
	nc := *c
	nc.Input = rk
	nc.Condition = nil
	if len(rest) > 0 {
		nc.Condition = logical.And(rest...)
	}
	if nc.Condition == nil && isIdentityCalc(&nc) {
		return rk, nil
	}
	return &nc, nil
}

func isIdentityCalc(c *Calc) bool {
	in := c.Input.Schema()
	if len(c.Projection) != len(in) {
		return false
	}
	for i, e := range c.Projection {
		r, ok := e.(*logical.ColumnRef)
		if !ok || r.Index != i || i >= len(c.Out) || c.Out[i].Name != in[i].Name {
			return false
		}
	}
	return true
}

// rankBound recognizes $r <= N, $r < N, $r = 1 (either side) and returns
// the inclusive upper bound.
func rankBound(e logical.Expr, r int) (int64, bool) {
	call, ok := e.(*logical.Call)
	if !ok || len(call.Args) != 2 {
		return 0, false
	}
	op := call.Name
	a, b := call.Args[0], call.Args[1]
	if isRef(b, r) {
		a, b = b, a
		switch op {
		case "<=":
			op = ">="
		case "<":
			op = ">"
		case ">=":
			op = "<="
		case ">":
			op = "<"
		}
	}
	if !isRef(a, r) {
		return 0, false
	}
	v, ok := intLit(b)
	if !ok {
		return 0, false
	}
	switch op {
	case "<=":
		return v, true
	case "<":
		return v - 1, true
	case "=":
		if v == 1 {
			return 1, true
		}
	}
	return 0, false
}

func isRef(e logical.Expr, r int) bool {
	if c, ok := e.(*logical.Cast); ok {
		e = c.Arg
	}
	c, ok := e.(*logical.ColumnRef)
	return ok && c.Index == r
}

func intLit(e logical.Expr) (int64, bool) {
	if c, ok := e.(*logical.Cast); ok {
		e = c.Arg
	}
	l, ok := e.(*logical.Literal)
	if !ok {
		return 0, false
	}
	switch v := l.Value.(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// TimeAttr classifies a column as an event-time or processing-time
// attribute.
type TimeAttr uint8

// Time attribute kinds.
const (
	NoTime TimeAttr = iota
	RowtimeAttr
	ProctimeAttr
)

// timeAttrOf traces column i of n back to a watermark declaration or a
// PROCTIME() computation through projections and exchanges.
func timeAttrOf(n Node, i int) TimeAttr {
	switch x := n.(type) {
	case *WatermarkAssigner:
		if i == x.Rowtime {
			return RowtimeAttr
		}
		return timeAttrOf(x.Input, i)
	case *Calc:
		if i >= len(x.Projection) {
			return NoTime
		}
		switch e := x.Projection[i].(type) {
		case *logical.ColumnRef:
			return timeAttrOf(x.Input, e.Index)
		case *logical.Call:
			if strings.EqualFold(e.Name, "PROCTIME") {
				return ProctimeAttr
			}
		}
		// a computed rowtime column of the table below (batch plans
		// compute it in the Calc over the scan)
		if i < len(x.Out) && watermarkColumnBelow(x.Input, x.Out[i].Name) {
			return RowtimeAttr
		}
	case *Exchange:
		return timeAttrOf(x.Input, i)
	case *StreamUnion:
		return unionTimeAttr(x.Inputs, i)
	case *Union:
		return unionTimeAttr(x.Inputs, i)
	case *Match:
		return matchTimeAttr(x, i) // match.go
	case *IntervalJoin, *TemporalJoin, *LookupJoin:
		return timeJoinAttr(n, i) // interval_join.go
	case *WatermarkCalc:
		for _, c := range x.Children() {
			return timeAttrOf(c, i)
		}
	case *TableSourceScan:
		if x.Table == nil || x.Table.Table == nil || i >= len(x.Out) {
			return NoTime
		}
		t := x.Table.Table
		for _, c := range t.Columns {
			if c.Name != x.Out[i].Name {
				continue
			}
			if t.Watermark != nil && t.Watermark.Column == c.Name {
				return RowtimeAttr
			}
			if strings.Contains(strings.ToUpper(c.Expr), "PROCTIME()") {
				return ProctimeAttr
			}
		}
	}
	return NoTime
}

// unionTimeAttr: a column of UNION ALL is the time attribute its first
// input's column is, as in Flink, where the union's type is the least
// restrictive of the inputs' types and that is the first input's when
// they differ only in being a time attribute (its watermark is the
// smallest of the inputs').
func unionTimeAttr(inputs []Node, i int) TimeAttr {
	if len(inputs) == 0 {
		return NoTime
	}
	return timeAttrOf(inputs[0], i)
}

func watermarkColumnBelow(n Node, name string) bool {
	switch x := n.(type) {
	case *TableSourceScan:
		return x.Table != nil && x.Table.Table != nil && x.Table.Table.Watermark != nil && x.Table.Table.Watermark.Column == name
	case *Calc, *Exchange:
		return watermarkColumnBelow(n.Children()[0], name)
	}
	return false
}

// streamOver converts OverAggregate and Rank for streaming mode.
func streamOver(n Node, conv []Node) (Node, error) {
	in := conv[0]
	switch x := n.(type) {
	case *Rank:
		ex := &Exchange{Input: in, Keys: append([]int(nil), x.PartitionKeys...)}
		if !in.Mode().IsInsertOnly() {
			c := *x
			c.Input, c.Streaming, c.Retract, c.TieLast = ex, true, true, false
			return &c, nil
		}
		if x.RankEnd == 1 && !x.OutputRank && len(x.OrderKeys) == 1 {
			k := x.OrderKeys[0]
			if ta := timeAttrOf(in, k.Index); ta != NoTime && len(x.PartitionKeys) > 0 {
				return &Deduplicate{Input: ex, Keys: x.PartitionKeys, KeepLast: k.Desc, Rowtime: ta == RowtimeAttr, TimeCol: k.Index, Out: x.Out}, nil
			}
		}
		c := *x
		c.Input, c.Streaming = ex, true
		return &c, nil
	case *OverAggregate:
		if !in.Mode().IsInsertOnly() {
			return nil, fmt.Errorf("not supported yet: OVER aggregation over an updating input in streaming mode")
		}
		if len(x.OrderKeys) != 1 || x.OrderKeys[0].Desc {
			return nil, &TableError{Msg: "OVER windows' ordering in stream mode must be defined on a time attribute."}
		}
		ta := timeAttrOf(in, x.OrderKeys[0].Index)
		if ta == NoTime {
			return nil, &TableError{Msg: "OVER windows' ordering in stream mode must be defined on a time attribute."}
		}
		c := *x
		c.Input = &Exchange{Input: in, Keys: append([]int(nil), x.PartitionKeys...)}
		c.Streaming, c.Rowtime = true, ta == RowtimeAttr
		return &c, nil
	}
	return n.WithChildren(conv), nil
}

func colNames(names []string, idx []int) string {
	s := make([]string, len(idx))
	for i, k := range idx {
		s[i] = colName(names, k)
	}
	return strings.Join(s, ", ")
}

var (
	_ Node = (*OverAggregate)(nil)
	_ Node = (*Rank)(nil)
	_ Node = (*Deduplicate)(nil)
)

// Explain implements Node.
func (x *OverAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	var b strings.Builder
	if len(x.PartitionKeys) > 0 {
		b.WriteString("partitionBy=[" + colNames(in, x.PartitionKeys) + "], ")
	}
	b.WriteString("orderBy=[" + orderBy(x.OrderKeys, in) + "], ")
	w := &logical.Window{OrderKeys: x.OrderKeys, Rows: x.Rows, Bounded: x.Bounded, Preceding: x.Preceding}
	b.WriteString("window=[ " + w.FrameString() + "], select=[")
	sel := append([]string(nil), in...)
	for i, c := range x.Calls {
		args := make([]string, len(c.Args))
		for j, a := range c.Args {
			args[j] = colName(in, a)
		}
		name := c.Name
		if name == "COUNT_STAR" {
			name, args = "COUNT", []string{"*"}
		}
		alias := fmt.Sprintf("w0$o%d", i)
		sel = append(sel, name+"("+strings.Join(args, ", ")+") AS "+alias)
	}
	b.WriteString(strings.Join(sel, ", ") + "]")
	return b.String()
}

// Explain implements Node.
func (x *Rank) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	var b strings.Builder
	switch {
	case x.Retract:
		b.WriteString("strategy=[RetractStrategy], ")
	case x.Streaming:
		b.WriteString("strategy=[AppendFastStrategy], ")
	}
	b.WriteString("rankType=[" + x.RankType + "], rankRange=[rankStart=1, rankEnd=" + strconv.FormatInt(x.RankEnd, 10) + "], ")
	b.WriteString("partitionBy=[" + colNames(in, x.PartitionKeys) + "], orderBy=[" + orderBy(x.OrderKeys, in) + "], ")
	if !x.Streaming {
		b.WriteString("global=[true], ")
	}
	sel := append([]string(nil), in...)
	if x.OutputRank {
		sel = append(sel, "w0$o0")
	}
	b.WriteString("select=[" + strings.Join(sel, ", ") + "]")
	return b.String()
}

// Explain implements Node.
func (x *Deduplicate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	keep, order := "FirstRow", "PROCTIME"
	if x.KeepLast {
		keep = "LastRow"
	}
	if x.Rowtime {
		order = "ROWTIME"
	}
	return "keep=[" + keep + "], key=[" + colNames(in, x.Keys) + "], order=[" + order + "]"
}

// Capabilities (node.go).

// ParallelSafe implements ParallelSafe.
func (n *Rank) ParallelSafe() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *Deduplicate) ParallelSafe() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *OverAggregate) ParallelSafe() bool { return true }
