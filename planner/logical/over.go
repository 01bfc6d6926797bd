package logical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// OverCall is one window function of an OVER clause: ROW_NUMBER, RANK,
// DENSE_RANK (no arguments) or an aggregate (COUNT, COUNT_STAR, SUM, AVG,
// MIN, MAX) over the frame.
type OverCall struct {
	// Name is the upper-case function name; COUNT(*) is "COUNT_STAR".
	Name string
	// Args are input column indexes.
	Args []int
	// T is the result type.
	T types.Type
}

// String prints the call as Calcite does, e.g. ROW_NUMBER() or SUM($2).
func (c OverCall) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = fmt.Sprintf("$%d", a)
	}
	name := c.Name
	if name == "COUNT_STAR" {
		name = "COUNT"
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// IsRanking reports whether the call is ROW_NUMBER, RANK or DENSE_RANK.
func (c OverCall) IsRanking() bool {
	switch c.Name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK":
		return true
	}
	return false
}

// Window computes window functions over partitions of its input (Calcite's
// LogicalWindow): the output is the input's columns followed by one column
// per call. Every call shares the partitioning, the order and the frame.
// The frame always ends at the current row; it starts at the partition's
// first row (UNBOUNDED PRECEDING). Rows selects a ROWS frame (peers of the
// current row excluded), otherwise RANGE (peers included). Without order
// keys the frame is the whole partition. A Bounded ROWS frame starts
// Preceding rows before the current row instead.
type Window struct {
	Input         Node
	PartitionKeys []int
	OrderKeys     []SortKey
	Rows          bool
	Bounded       bool
	Preceding     int64
	Calls         []OverCall
	Out           types.Schema
}

// Schema implements Node.
func (n *Window) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *Window) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Window) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// FrameString prints the frame as Flink's plans do, e.g. "RANG BETWEEN
// UNBOUNDED PRECEDING AND CURRENT ROW".
func (n *Window) FrameString() string {
	if len(n.OrderKeys) == 0 {
		return "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
	}
	if n.Rows && n.Bounded {
		return fmt.Sprintf("ROWS BETWEEN %d PRECEDING AND CURRENT ROW", n.Preceding)
	}
	if n.Rows {
		return "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
	}
	return "RANG BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
}

// Describe implements Node.
func (n *Window) Describe() (string, string) {
	keys := make([]string, len(n.PartitionKeys))
	for i, k := range n.PartitionKeys {
		keys[i] = fmt.Sprint(k)
	}
	order := make([]string, len(n.OrderKeys))
	for i, k := range n.OrderKeys {
		dir := " ASC"
		if k.Desc {
			dir = " DESC"
		}
		order[i] = fmt.Sprint(k.Index) + dir
	}
	calls := make([]string, len(n.Calls))
	for i, c := range n.Calls {
		calls[i] = c.String()
	}
	return "LogicalWindow", fmt.Sprintf("window#0=[window(partition {%s} order by [%s] %s aggs [%s])]",
		strings.Join(keys, ", "), strings.Join(order, ", "), strings.ToLower(n.FrameString()), strings.Join(calls, ", "))
}

var _ Node = (*Window)(nil)
