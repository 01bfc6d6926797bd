package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// MatchElem is one variable of a MATCH_RECOGNIZE pattern as Flink's CEP
// compiles it (StreamExecMatch.PatternVisitor): strict contiguity
// between variables, Min..Max rows (Max -1: unbounded; Min 0: optional),
// Greedy for the greedy loops (Flink's greedy(): a loop leaves only for a
// row it cannot take).
type MatchElem struct {
	Var    string
	Min    int
	Max    int
	Greedy bool
}

// Match is Flink's StreamPhysicalMatch / BatchPhysicalMatch: pattern
// recognition over the rows of each partition ordered by a time
// attribute, one output row per match (insert-only).
type Match struct {
	Input Node
	Spec  *logical.Match
	Elems []MatchElem
	// Streaming is set in streaming mode; Rowtime when the order is event
	// time (rows wait for the watermark and are sorted), otherwise rows
	// are matched as they arrive (processing time). Batch mode sorts each
	// partition by its time column at the end of the input.
	Streaming bool
	Rowtime   bool
	Out       types.Schema
}

// Schema implements Node.
func (n *Match) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *Match) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Match) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *Match) Name() string { return "Match" }

// Mode implements Node: one row per match, never retracted.
func (n *Match) Mode() changelog.Mode { return changelog.InsertOnly }

var _ Node = (*Match)(nil)

func (t *translator) match(x *logical.Match) (Node, error) {
	in, err := t.node(x.Input)
	if err != nil {
		return nil, err
	}
	return &Match{Input: in, Spec: x, Out: x.Out}, nil
}

// CompileMatchPattern checks the MATCH_RECOGNIZE clause as Flink's
// StreamExecMatch does before it builds the CEP pattern, with its
// messages, and returns the pattern's variables.
func CompileMatchPattern(m *logical.Match) ([]MatchElem, error) {
	if m.AllRows {
		return nil, &TableError{Msg: "All rows per match mode is not supported yet."}
	}
	if m.Subsets {
		return nil, fmt.Errorf("not supported yet: SUBSET in MATCH_RECOGNIZE")
	}
	if m.StartAnchor || m.EndAnchor {
		return nil, fmt.Errorf("not supported yet: the anchors ^ and $ in PATTERN")
	}
	var elems []MatchElem
	seen := map[string]bool{}
	var walk func(p *logical.MatchPattern) error
	walk = func(p *logical.MatchPattern) error {
		switch p.Kind {
		case logical.PatternAlternation:
			return &TableError{Msg: fmt.Sprintf("Expression not supported: %s. Currently, CEP doesn't support branching patterns.", p)}
		case logical.PatternPermute:
			return &TableError{Msg: fmt.Sprintf("Expression not supported: %s. Currently, CEP doesn't support PERMUTE patterns.", p)}
		case logical.PatternExclusion:
			return &TableError{Msg: fmt.Sprintf("Expression not supported: %s. Currently, CEP doesn't support '{-' '-}' patterns.", p)}
		case logical.PatternConcatenation, logical.PatternGroup:
			if p.Quantified {
				inner := *p
				inner.Quantified = false
				return &TableError{Msg: fmt.Sprintf("Expression not supported: %s Group patterns are not supported yet.", &inner)}
			}
			for _, it := range p.Items {
				if err := walk(it); err != nil {
					return err
				}
			}
			return nil
		}
		if seen[p.Var] {
			return &TableError{Msg: "Pattern variables must be unique. That might change in the future."}
		}
		seen[p.Var] = true
		e := MatchElem{Var: p.Var, Min: 1, Max: 1}
		if p.Quantified {
			e.Min, e.Max = p.Min, p.Max
			optional := p.Min == 0 && p.Max == 1
			switch {
			case p.Min == 0 && p.Max != 1 && p.Max != -1:
				// Pattern.times(0, m) (CEP's Times.of)
				return &TableError{Msg: "The from should be a positive number greater than 0."}
			case optional && p.Reluctant:
				return &TableError{Msg: "Reluctant optional variables are not supported yet."}
			case !p.Reluctant && !optional && p.Min != p.Max:
				e.Greedy = true
			}
		}
		elems = append(elems, e)
		return nil
	}
	if err := walk(m.Pattern); err != nil {
		return nil, err
	}
	empty := true
	for _, e := range elems {
		if e.Min > 0 {
			empty = false
		}
	}
	if empty {
		return nil, &TableError{Msg: "Patterns that can produce empty matches are not supported. There must be at least one non-optional state."}
	}
	if elems[len(elems)-1].Greedy {
		return nil, &TableError{Msg: "Greedy quantifiers are not allowed as the last element of a Pattern yet. Finish your pattern with either a simple variable or reluctant quantifier."}
	}
	if m.HasWithin && m.WithinMonths {
		return nil, &TableError{Msg: "Only constant intervals with millisecond resolution are supported as time constraints of patterns."}
	}
	return elems, nil
}

// checkBatchMatch checks a batch-mode Match (BatchExecMatch) and compiles
// its pattern.
func checkBatchMatch(n *Match) error {
	m := n.Spec
	in := n.Input.Schema()
	if len(m.OrderKeys) == 0 {
		return &TableError{Msg: "You must specify non-empty order by."}
	}
	if !in[m.OrderKeys[0].Index].Type.IsTemporal() {
		return &TableError{Msg: "You must specify time point for order by as the first one."}
	}
	if m.OrderKeys[0].Desc {
		return &TableError{Msg: "Primary sort order of a table must be ascending on time."}
	}
	_, err := CompileMatchPattern(m)
	return err
}

// streamMatch converts a Match for streaming mode: the input is hashed
// by the partition keys (a single instance without them), the order must
// start with a time attribute ascending.
func streamMatch(x *Match, conv []Node) (Node, error) {
	in := conv[0]
	m := x.Spec
	if len(m.OrderKeys) == 0 {
		return nil, &TableError{Msg: "You must specify either rowtime or proctime for order by."}
	}
	ta := timeAttrOf(in, m.OrderKeys[0].Index) // over.go
	if ta == NoTime {
		return nil, &TableError{Msg: "You must specify either rowtime or proctime for order by as the first one."}
	}
	if m.OrderKeys[0].Desc {
		return nil, &TableError{Msg: "Primary sort order of a streaming table must be ascending on time."}
	}
	if err := checkConsumer("Match", in, changelog.InsertOnly); err != nil {
		return nil, err
	}
	elems, err := CompileMatchPattern(m)
	if err != nil {
		return nil, err
	}
	c := *x
	c.Input = &Exchange{Input: in, Keys: append([]int(nil), m.PartitionKeys...)}
	c.Elems, c.Streaming, c.Rowtime = elems, true, ta == RowtimeAttr
	return &c, nil
}

// Explain implements Node: a Match as Flink's StreamPhysicalMatch prints it.
func (x *Match) Explain(bool) string {
	m := x.Spec
	in := uniquify(x.Input.Schema().Names())
	var b strings.Builder
	if len(m.PartitionKeys) > 0 {
		b.WriteString("partitionBy=[" + colNames(in, m.PartitionKeys) + "], ")
	}
	b.WriteString("orderBy=[" + orderBy(m.OrderKeys, in) + "], ")
	measureNames := make([]string, len(m.Accesses))
	defineNames := make([]string, len(m.Accesses))
	for i, a := range m.Accesses {
		measureNames[i] = a.Text(in, false)
		defineNames[i] = a.Text(in, true)
	}
	ms := make([]string, len(m.Measures))
	for i, e := range m.Measures {
		ms[i] = "FINAL(" + exprString(e, measureNames, false) + ") AS " + m.MeasureNames[i]
	}
	b.WriteString("measures=[" + strings.Join(ms, ", ") + "], rowsPerMatch=[ONE ROW PER MATCH], after=[")
	if m.AfterVar != "" {
		b.WriteString(m.After + "(_UTF-16LE'" + m.AfterVar + "')")
	} else {
		b.WriteString(m.After)
	}
	b.WriteString("], pattern=[" + m.Pattern.String() + "], ")
	if m.HasWithin {
		fmt.Fprintf(&b, "within=[%d], ", m.Within)
	}
	ds := make([]string, len(m.Defines))
	for i, d := range m.Defines {
		ds[i] = d.Var + "=" + exprString(d.Cond, defineNames, false)
	}
	b.WriteString("define=[{" + strings.Join(ds, ", ") + "}])")
	s := b.String()
	return s[:len(s)-1]
}

// ParallelSafe implements ParallelSafe: a streaming Match may run as
// parallel instances, its input is hashed by the partition keys.
func (n *Match) ParallelSafe() bool { return n.Streaming }

// matchTimeAttr says whether output column i of a Match is a time
// attribute: a MATCH_ROWTIME() or MATCH_PROCTIME() measure.
func matchTimeAttr(x *Match, i int) TimeAttr {
	m := i - len(x.Spec.PartitionKeys)
	if m < 0 || m >= len(x.Spec.Measures) {
		return NoTime
	}
	if ref, ok := x.Spec.Measures[m].(*logical.ColumnRef); ok && ref.Index < len(x.Spec.Accesses) {
		switch x.Spec.Accesses[ref.Index].Kind {
		case logical.MatchRowtime:
			return RowtimeAttr
		case logical.MatchProctime:
			return ProctimeAttr
		}
	}
	return NoTime
}
