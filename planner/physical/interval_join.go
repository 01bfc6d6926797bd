package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// IntervalJoin is Flink's interval join (StreamPhysicalIntervalJoin): a
// join of two insert-only inputs whose condition bounds the time attribute
// of one side by the other's,
//
//	l.rt BETWEEN r.rt - INTERVAL '5' SECOND AND r.rt + INTERVAL '5' SECOND
//
// so that leftTime - rightTime lies in [LeftLowerBound, LeftUpperBound]
// (milliseconds). A row is kept only as long as a row of the other side
// can still match it: with event time until the watermark passes its
// bound, with processing time until the clock does. Its output is
// append-only, also for outer joins: a row of an outer side without a
// match is emitted padded with NULLs when its bound expires. Both time
// columns stay time attributes in the output.
type IntervalJoin struct {
	Left, Right Node
	// Kind is inner, left, right or full.
	Kind                logical.JoinKind
	LeftKeys, RightKeys []int
	// Cond is the join condition without the equality keys, over
	// Left ++ Right, time bounds included (nil: none).
	Cond logical.Expr
	// IsRowTime: event-time (true) or processing-time attributes.
	IsRowTime                      bool
	LeftLowerBound, LeftUpperBound int64
	LeftTimeIndex, RightTimeIndex  int
	Out                            types.Schema
}

// Schema implements Node.
func (n *IntervalJoin) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *IntervalJoin) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren implements Node.
func (n *IntervalJoin) WithChildren(ch []Node) Node {
	c := *n
	c.Left, c.Right = ch[0], ch[1]
	return &c
}

// Name implements Node.
func (n *IntervalJoin) Name() string { return "IntervalJoin" }

// Mode implements Node: insert-only (unmatched outer rows are emitted
// once, when their bound expires, and never retracted).
func (n *IntervalJoin) Mode() changelog.Mode { return changelog.InsertOnly }

var _ Node = (*IntervalJoin)(nil)

// timeJoin plans the time-bounded joins of a streaming plan: a temporal
// table join (LookupJoin, temporal_join.go), a window join
// (window_join.go) and an interval join. ok is false for any other node.
func timeJoin(n Node, conv []Node) (Node, bool, error) {
	switch x := n.(type) {
	case *HashJoin:
		if x.Temporal {
			if j, ok, err := temporalJoin(x, conv); ok { // temporal_rowtime_join.go
				return j, ok, err
			}
			j, err := lookupJoin(n, conv)
			return j, true, err
		}
		if x.NullAwareAnti {
			return nullAwareWindowJoin(x, conv) // stream_not_in.go
		}
		if j, ok, err := windowJoin(x, conv); ok { // window_join.go
			return j, ok, err
		}
		j, ok := intervalJoin(x.Kind, x.LeftKeys, x.RightKeys, x.Extra, x.Out, conv)
		return j, ok, nil
	case *NestedLoopJoin:
		if x.Temporal {
			j, err := lookupJoin(n, conv)
			return j, true, err
		}
		if x.NullAwareAnti {
			return nil, false, nil
		}
		j, ok := intervalJoin(x.Kind, nil, nil, x.Cond, x.Out, conv)
		return j, ok, nil
	}
	return nil, false, nil
}

// intervalJoin returns an IntervalJoin when cond bounds a time attribute
// of one input by one of the other (both event time or both processing
// time) from below and above and both inputs are insert-only.
func intervalJoin(kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema, conv []Node) (Node, bool) {
	if cond == nil || kind == logical.SemiJoin || kind == logical.AntiJoin {
		return nil, false
	}
	left, right := conv[0], conv[1]
	if !left.Mode().IsInsertOnly() || !right.Mode().IsInsertOnly() {
		return nil, false
	}
	nLeft := len(left.Schema())
	type bounds struct {
		lo, hi       int64
		hasLo, hasHi bool
	}
	found := map[[2]int]*bounds{}
	var order [][2]int
	for _, c := range logical.Conjuncts(cond) {
		li, ri, op, k, ok := timeBound(c, nLeft)
		if !ok {
			continue
		}
		key := [2]int{li, ri}
		b := found[key]
		if b == nil {
			b = &bounds{}
			found[key] = b
			order = append(order, key)
		}
		switch op {
		case ">=", ">":
			if op == ">" {
				k++
			}
			if !b.hasLo || k > b.lo {
				b.lo, b.hasLo = k, true
			}
		case "<=", "<":
			if op == "<" {
				k--
			}
			if !b.hasHi || k < b.hi {
				b.hi, b.hasHi = k, true
			}
		}
	}
	for _, key := range order {
		b := found[key]
		if !b.hasLo || !b.hasHi {
			continue
		}
		la, ra := timeAttrOf(left, key[0]), timeAttrOf(right, key[1])
		if la == NoTime || la != ra {
			continue
		}
		lt, rt := left.Schema()[key[0]].Type, right.Schema()[key[1]].Type
		if !lt.EqualIgnoringNull(rt) {
			continue
		}
		return &IntervalJoin{
			Left: &Exchange{Input: left, Keys: lk}, Right: &Exchange{Input: right, Keys: rk},
			Kind: kind, LeftKeys: lk, RightKeys: rk, Cond: cond,
			IsRowTime: la == RowtimeAttr, LeftLowerBound: b.lo, LeftUpperBound: b.hi,
			LeftTimeIndex: key[0], RightTimeIndex: key[1], Out: out,
		}, true
	}
	return nil, false
}

// timeBound reads a conjunct a OP b where a and b are each a timestamp
// column plus or minus a constant day-time interval, one over the left
// input and one over the right, as leftTime - rightTime OP k.
func timeBound(c logical.Expr, nLeft int) (li, ri int, op string, k int64, ok bool) {
	call, isCall := c.(*logical.Call)
	if !isCall || len(call.Args) != 2 {
		return 0, 0, "", 0, false
	}
	op = call.Name
	switch op {
	case ">=", ">", "<=", "<":
	default:
		return 0, 0, "", 0, false
	}
	i, a, ok1 := timeTerm(call.Args[0])
	j, b, ok2 := timeTerm(call.Args[1])
	if !ok1 || !ok2 {
		return 0, 0, "", 0, false
	}
	switch {
	case i < nLeft && j >= nLeft: // L + a OP R + b  <=>  L - R OP b - a
		return i, j - nLeft, op, b - a, true
	case i >= nLeft && j < nLeft: // R + a OP L + b  <=>  L - R flip(OP) a - b
		flip := map[string]string{">=": "<=", ">": "<", "<=": ">=", "<": ">"}
		return j, i - nLeft, flip[op], a - b, true
	}
	return 0, 0, "", 0, false
}

// timeTerm reads col, col + interval, interval + col or col - interval.
func timeTerm(e logical.Expr) (col int, offset int64, ok bool) {
	switch x := e.(type) {
	case *logical.ColumnRef:
		k := x.T.Kind
		return x.Index, 0, k == types.Timestamp || k == types.TimestampLTZ
	case *logical.Call:
		if len(x.Args) != 2 || (x.Name != "+" && x.Name != "-") {
			return 0, 0, false
		}
		c, ok1 := x.Args[0].(*logical.ColumnRef)
		v, ok2 := intervalMillis(x.Args[1])
		if !ok1 || !ok2 {
			if x.Name == "-" {
				return 0, 0, false
			}
			c, ok1 = x.Args[1].(*logical.ColumnRef)
			v, ok2 = intervalMillis(x.Args[0])
			if !ok1 || !ok2 {
				return 0, 0, false
			}
		}
		if k := c.T.Kind; k != types.Timestamp && k != types.TimestampLTZ {
			return 0, 0, false
		}
		if x.Name == "-" {
			v = -v
		}
		return c.Index, v, true
	}
	return 0, 0, false
}

func intervalMillis(e logical.Expr) (int64, bool) {
	l, ok := e.(*logical.Literal)
	if !ok || l.T.Kind != types.IntervalDayTime {
		return 0, false
	}
	v, ok := l.Value.(int64)
	return v, ok
}

// Explain implements Node: it prints Flink's attributes of an IntervalJoin.
func (x *IntervalJoin) Explain(execution bool) string {
	left, right := x.Left, x.Right
	if e, ok := left.(*Exchange); ok {
		left = e.Input
	}
	if e, ok := right.(*Exchange); ok {
		right = e.Input
	}
	hj := &HashJoin{Left: left, Right: right, Kind: x.Kind, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: x.Cond, Out: x.Out}
	s := strings.TrimSuffix(hj.Explain(execution), ", build=[right]")
	bounds := fmt.Sprintf("windowBounds=[isRowTime=%t, leftLowerBound=%d, leftUpperBound=%d, leftTimeIndex=%d, rightTimeIndex=%d], ",
		x.IsRowTime, x.LeftLowerBound, x.LeftUpperBound, x.LeftTimeIndex, x.RightTimeIndex)
	i := strings.Index(s, "where=[")
	if i < 0 {
		return s
	}
	return s[:i] + bounds + s[i:]
}

// timeJoinAttr returns the time attribute of output column i of the joins
// that keep them (Flink's): an interval join keeps both inputs', a
// temporal or lookup join its left (probe) input's.
func timeJoinAttr(n Node, i int) TimeAttr {
	var left, right Node
	switch x := n.(type) {
	case *IntervalJoin:
		left, right = x.Left, x.Right
	case *TemporalJoin:
		left = x.Left
	case *LookupJoin:
		left = x.Input
	default:
		return NoTime
	}
	if nl := len(left.Schema()); i >= nl {
		if right == nil {
			return NoTime
		}
		return timeAttrOf(right, i-nl)
	}
	return timeAttrOf(left, i)
}
