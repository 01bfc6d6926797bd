package physical

import (
	"strings"
)

// DescribeStream is Describe for streaming plans: it knows the streaming
// nodes (GroupAggregate, Exchange, Union, Sink) and defers to Describe for
// the rest.
func DescribeStream(n Node, execution bool) string {
	if s, ok := describeMiniBatch(n); ok {
		return s
	}
	if s, ok := describeTimeJoin(n, execution); ok { // interval_join.go
		return s
	}
	if s, ok := describeDistinctSplit(n, execution); ok { // stream_distinct_split.go
		return s
	}
	switch x := n.(type) {
	case *GroupAggregate:
		in := uniquify(x.Input.Schema().Names())
		var sel []string
		keys := make([]string, len(x.GroupKeys))
		for i, k := range x.GroupKeys {
			keys[i] = colName(in, k)
			item := keys[i]
			if i < len(x.Out) && x.Out[i].Name != keys[i] {
				item += " AS " + x.Out[i].Name
			}
			sel = append(sel, item)
		}
		retract := x.NeedRetraction()
		for _, a := range x.Aggs {
			item := AggString(a, in)
			if retract {
				// Flink's retracting aggregate functions: COUNT_RETRACT(*)…
				item = strings.ToUpper(a.Name) + "_RETRACT" + item[len(a.Name):]
			}
			sel = append(sel, item+" AS "+a.Alias)
		}
		s := ""
		if len(keys) > 0 {
			s = "groupBy=[" + strings.Join(keys, ", ") + "], "
		}
		return s + "select=[" + strings.Join(sel, ", ") + "]"
	case *Exchange:
		if len(x.Keys) == 0 {
			return "distribution=[single]"
		}
		in := uniquify(x.Input.Schema().Names())
		keys := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = colName(in, k)
		}
		return "distribution=[hash[" + strings.Join(keys, ", ") + "]]"
	case *StreamUnion:
		return "all=[true], union=[" + strings.Join(x.Out.Names(), ", ") + "]"
	case *StreamJoin:
		left, right := x.Left, x.Right
		if e, ok := left.(*Exchange); ok {
			left = e.Input
		}
		if e, ok := right.(*Exchange); ok {
			right = e.Input
		}
		hj := &HashJoin{Left: left, Right: right, Kind: x.Kind, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: x.Extra, Out: x.Out}
		if len(x.NullSafe) > 0 {
			return nullSafeJoinDescribe(x, left, right, execution) // stream_setop.go
		}
		s := strings.TrimSuffix(Describe(hj, execution), ", build=[right]")
		return s + ", leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey]"
	case *StreamSink:
		return "table=[" + x.Table.ID.Summary() + "], fields=[" + strings.Join(x.Input.Schema().Names(), ", ") + "]"
	}
	return Describe(n, execution)
}

// ExplainStream prints a streaming physical plan in the layout of
// ExplainWith; with ChangelogMode every node shows its changelog mode
// (a sink's as NONE).
func ExplainStream(n Node, opts ExplainOptions) string {
	var b strings.Builder
	var walk func(n Node, prefix string, last []bool)
	walk = func(n Node, prefix string, last []bool) {
		attrs := DescribeStream(n, opts.Execution)
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
	switch n.(type) {
	case *GroupAggregate, *Exchange, *StreamUnion, *StreamSink, *StreamJoin,
		*MiniBatchAssigner, *LocalGroupAggregate, *GlobalGroupAggregate:
		return true
	}
	for _, c := range n.Children() {
		if IsStream(c) {
			return true
		}
	}
	return false
}
