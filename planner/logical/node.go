package logical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// Node is an immutable relational plan node. Column references inside a
// node's expressions index the concatenated schema of its inputs.
type Node interface {
	// Schema is the output schema.
	Schema() types.Schema
	// Children returns the inputs.
	Children() []Node
	// WithChildren returns a copy with the inputs replaced.
	WithChildren(ch []Node) Node
	// Describe returns the node's name and attributes for EXPLAIN, e.g.
	// ("LogicalFilter", "condition=[>($1, 10)]").
	Describe() (name string, attrs string)
}

// Scan reads a catalog table through its connector.
type Scan struct {
	// Table is the identifier and resolved definition of the table.
	Table *catalog.ResolvedTable
	// Projection lists the physical columns read, as indexes into
	// Table.PhysicalSchema(); nil reads all of them in order.
	Projection []int
	// Filters are the predicates the connector accepted
	// (catalog.Abilities.ApplyFilters), over the scan's output schema. The
	// source applies them, fully or partially: the ones it applies only
	// partially stay in a Filter above as well.
	Filters []Expr
	// Limit is the number of rows the source may stop after
	// (catalog.Abilities.LimitPushDown); 0 means none. A Limit above
	// stays.
	Limit int64
	// Out is the output schema (the projected physical columns).
	Out types.Schema
}

// ScanDigest prints what was pushed into a scan as Flink's
// TableSourceTable digest does, after the table path: ", filter=[…]",
// ", project=[…]", ", limit=[…]". filters are the accepted predicates
// printed by the caller (several are nested in and(…, …) as Flink's
// FilterPushDownSpec prints them); project is nil when the scan reads
// every column.
func ScanDigest(filters []string, project []string, limit int64) string {
	return ScanDigestMetadata(filters, project, nil, limit)
}

// ScanDigestMetadata is ScanDigest with the metadata keys the scan reads
// (", metadata=[…]" after project, as Flink's ReadingMetadataSpec).
func ScanDigestMetadata(filters []string, project []string, metadata []string, limit int64) string {
	var s string
	if len(filters) > 0 {
		f := filters[0]
		for _, g := range filters[1:] {
			f = "and(" + f + ", " + g + ")"
		}
		s += ", filter=[" + f + "]"
	}
	if project != nil {
		s += ", project=[" + strings.Join(project, ", ") + "]"
	}
	if metadata != nil {
		s += ", metadata=[" + strings.Join(metadata, ", ") + "]"
	}
	if limit > 0 {
		s += fmt.Sprintf(", limit=[%d]", limit)
	}
	return s
}

// ScanColumns splits what a scan of t reading proj (indexes into
// t.Table.SourceSchema(); nil: every physical column) with output out
// prints: the physical columns read (nil when the projection is nil, or
// when onlyPartial and it reads every physical column in order) and the
// metadata keys read (nil when none).
func ScanColumns(t *catalog.ResolvedTable, proj []int, out types.Schema, onlyPartial bool) (project, metadata []string) {
	if proj == nil {
		return nil, nil
	}
	nphys := len(t.PhysicalSchema())
	meta := t.Table.MetadataColumns(false)
	full := true
	project = []string{}
	for i, p := range proj {
		if p >= nphys {
			if p-nphys < len(meta) {
				metadata = append(metadata, meta[p-nphys].Key())
			}
			continue
		}
		full = full && p == len(project)
		if i < len(out) {
			project = append(project, out[i].Name)
		}
	}
	if onlyPartial && full && len(project) == nphys {
		project = nil
	}
	return project, metadata
}

// Values produces constant rows.
type Values struct {
	Rows [][]Expr // each a constant-foldable expression
	Out  types.Schema
}

// Project computes one expression per output column.
type Project struct {
	Input Node
	Exprs []Expr
	Out   types.Schema
}

// Filter keeps the rows where Cond is TRUE.
type Filter struct {
	Input Node
	Cond  Expr
}

// AggCall is one aggregate function call of an Aggregate.
type AggCall struct {
	Name     string // COUNT, SUM, AVG, MIN, MAX, … (COUNT with no Args is COUNT(*))
	Args     []int  // input column indexes
	Distinct bool
	Filter   int // input column index of the BOOLEAN filter, or -1
	T        types.Type
	Alias    string // output column name
	// User marks a user-defined aggregate function (Name is its registry
	// key); Mergeable that its accumulators merge (two-phase capable).
	User, Mergeable bool
	// Def is the aggregate's resolved definition: a built-in's
	// (function.BuiltinAggregate, function.AggCount, …), a user
	// aggregate's, or an internal one (SingleValueDef, the grouping
	// functions'). Its AggregateResultType gave T.
	Def *function.Definition
}

// String prints the call as Flink's plans do: "SUM($1)", "COUNT(DISTINCT $0)".
func (a AggCall) String() string {
	args := make([]string, len(a.Args))
	for i, x := range a.Args {
		args[i] = fmt.Sprintf("$%d", x)
	}
	s := a.Name + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	s += strings.Join(args, ", ") + ")"
	if a.Filter >= 0 {
		s += fmt.Sprintf(" FILTER $%d", a.Filter)
	}
	return s
}

// Aggregate groups by input columns and computes aggregates. The output is
// the group columns (in GroupKeys order) followed by the aggregates.
type Aggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []AggCall
	Out       types.Schema
	// GroupSets, when there are two or more, are the grouping sets of
	// GROUPING SETS, ROLLUP or CUBE: each a sorted list of positions in
	// GroupKeys, the sets ordered by their expand id (grouping_sets.go).
	// A group key missing from some set is nullable in Out. Aggs may then
	// hold GROUPING / GROUPING_ID calls (Args are positions in GroupKeys).
	GroupSets [][]int
}

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds. Semi and Anti joins output only the left columns.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
)

// String prints the kind as Flink's plans do (joinType=[InnerJoin]).
func (k JoinKind) String() string {
	return [...]string{"InnerJoin", "LeftOuterJoin", "RightOuterJoin", "FullOuterJoin", "LeftSemiJoin", "LeftAntiJoin"}[k]
}

// Join joins two inputs. Cond reads the left columns then the right
// columns; nil is a cross join. Output: left ++ right columns (left only for
// Semi/Anti), with outer sides made nullable.
type Join struct {
	Left, Right Node
	Kind        JoinKind
	Cond        Expr
	// NullAwareAnti marks an anti join that implements NOT IN: a NULL on
	// either side of an equality key makes the condition unknown, so a left
	// row is dropped when the right side has a NULL key.
	NullAwareAnti bool
	// Temporal marks a temporal table join (JOIN t FOR SYSTEM_TIME AS OF
	// <left time attribute>): Right is the temporal table. As of
	// processing time (a lookup join) batch plans join it as a regular
	// join; as of event time Cond holds the TemporalJoinCondition marker
	// (temporal.go).
	Temporal bool
	Out      types.Schema
}

// SortKey orders by one input column.
type SortKey struct {
	Index      int
	Desc       bool
	NullsFirst bool
}

// String prints "$0 ASC" or "$1 DESC-nulls-first" style keys.
func (k SortKey) String() string {
	dir := "ASC"
	if k.Desc {
		dir = "DESC"
	}
	s := fmt.Sprintf("$%d %s", k.Index, dir)
	// Flink's default: ASC NULLS FIRST, DESC NULLS LAST.
	if k.NullsFirst == k.Desc {
		if k.NullsFirst {
			s += "-nulls-first"
		} else {
			s += "-nulls-last"
		}
	}
	return s
}

// Sort orders all rows.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit skips Offset rows and keeps at most Fetch (Fetch < 0: no limit).
type Limit struct {
	Input  Node
	Offset int64
	Fetch  int64
}

// Union concatenates inputs of the same schema (UNION ALL); UNION without
// ALL is Union under an Aggregate on all columns.
type Union struct {
	Inputs []Node
	Out    types.Schema
}

// SetOpKind is INTERSECT or EXCEPT.
type SetOpKind uint8

// Set operation kinds.
const (
	Intersect SetOpKind = iota
	Except
)

// SetOp is INTERSECT [ALL] or EXCEPT [ALL] of two inputs with the same
// schema; rows compare with IS NOT DISTINCT FROM.
type SetOp struct {
	Left, Right Node
	Kind        SetOpKind
	All         bool
}

// Sink writes its input to a catalog table. The input schema already
// matches the table's physical columns (the validator inserts casts).
type Sink struct {
	Input Node
	Table *catalog.ResolvedTable
	// Overwrite is INSERT OVERWRITE.
	Overwrite bool
}

// Schema implementations.

// Schema implements Node.
func (n *Scan) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Values) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Project) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Filter) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Aggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Join) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Sort) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Limit) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Union) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *SetOp) Schema() types.Schema { return n.Left.Schema() }

// Schema implements Node.
func (n *Sink) Schema() types.Schema {
	return types.Schema{{Name: "EXPR$0", Type: types.BigIntT.WithNullable(false)}}
}

// Children implementations.

// Children implements Node.
func (n *Scan) Children() []Node { return nil }

// Children implements Node.
func (n *Values) Children() []Node { return nil }

// Children implements Node.
func (n *Project) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Filter) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Aggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Join) Children() []Node { return []Node{n.Left, n.Right} }

// Children implements Node.
func (n *Sort) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Limit) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Union) Children() []Node { return n.Inputs }

// Children implements Node.
func (n *SetOp) Children() []Node { return []Node{n.Left, n.Right} }

// Children implements Node.
func (n *Sink) Children() []Node { return []Node{n.Input} }

// WithChildren implementations.

// WithChildren implements Node.
func (n *Scan) WithChildren([]Node) Node { return n }

// WithChildren implements Node.
func (n *Values) WithChildren([]Node) Node { return n }

// WithChildren implements Node.
func (n *Project) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Filter) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Aggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Join) WithChildren(ch []Node) Node { c := *n; c.Left, c.Right = ch[0], ch[1]; return &c }

// WithChildren implements Node.
func (n *Sort) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Limit) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Union) WithChildren(ch []Node) Node {
	c := *n
	c.Inputs = append([]Node(nil), ch...)
	return &c
}

// WithChildren implements Node.
func (n *SetOp) WithChildren(ch []Node) Node { c := *n; c.Left, c.Right = ch[0], ch[1]; return &c }

// WithChildren implements Node.
func (n *Sink) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Describe implementations, in Calcite's logical vocabulary.

// Describe implements Node.
func (n *Scan) Describe() (string, string) {
	s := "table=[[" + n.Table.ID.Catalog + ", " + n.Table.ID.Database + ", " + n.Table.ID.Object
	filters := make([]string, len(n.Filters))
	for i, f := range n.Filters {
		filters[i] = f.String()
	}
	project, metadata := ScanColumns(n.Table, n.Projection, n.Out, false)
	return "LogicalTableScan", s + ScanDigestMetadata(filters, project, metadata, n.Limit) + "]]"
}

// Describe implements Node.
func (n *Values) Describe() (string, string) {
	rows := make([]string, len(n.Rows))
	for i, r := range n.Rows {
		rows[i] = "{ " + exprList(r) + " }"
	}
	return "LogicalValues", "tuples=[[" + strings.Join(rows, ", ") + "]]"
}

// Describe implements Node.
func (n *Project) Describe() (string, string) {
	parts := make([]string, len(n.Exprs))
	for i, e := range n.Exprs {
		parts[i] = n.Out[i].Name + "=[" + e.String() + "]"
	}
	return "LogicalProject", strings.Join(parts, ", ")
}

// Describe implements Node.
func (n *Filter) Describe() (string, string) {
	return "LogicalFilter", "condition=[" + n.Cond.String() + "]"
}

// Describe implements Node.
func (n *Aggregate) Describe() (string, string) {
	keys := make([]string, len(n.GroupKeys))
	for i, k := range n.GroupKeys {
		keys[i] = fmt.Sprint(k)
	}
	s := "group=[{" + strings.Join(keys, ", ") + "}]"
	if len(n.GroupSets) > 1 {
		s += ", groups=[" + groupSetsString(n.GroupKeys, n.GroupSets) + "]"
	}
	for _, a := range n.Aggs {
		s += ", " + a.Alias + "=[" + a.String() + "]"
	}
	return "LogicalAggregate", s
}

// Describe implements Node.
func (n *Join) Describe() (string, string) {
	cond := "true"
	if n.Cond != nil {
		cond = n.Cond.String()
	}
	kind := [...]string{"inner", "left", "right", "full", "semi", "anti"}[n.Kind]
	return "LogicalJoin", "condition=[" + cond + "], joinType=[" + kind + "]"
}

// Describe implements Node.
func (n *Sort) Describe() (string, string) {
	return "LogicalSort", sortAttrs(n.Keys, n.Input.Schema())
}

// Describe implements Node.
func (n *Limit) Describe() (string, string) {
	s := fmt.Sprintf("offset=[%d]", n.Offset)
	if n.Fetch >= 0 {
		s += fmt.Sprintf(", fetch=[%d]", n.Fetch)
	}
	return "LogicalSort", s
}

// Describe implements Node.
func (n *Union) Describe() (string, string) { return "LogicalUnion", "all=[true]" }

// Describe implements Node.
func (n *SetOp) Describe() (string, string) {
	name := "LogicalIntersect"
	if n.Kind == Except {
		name = "LogicalMinus"
	}
	return name, fmt.Sprintf("all=[%t]", n.All)
}

// Describe implements Node.
func (n *Sink) Describe() (string, string) {
	return "LogicalSink", "table=[" + n.Table.ID.String() + "], fields=[" + strings.Join(n.Input.Schema().Names(), ", ") + "]"
}

func exprList(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func sortAttrs(keys []SortKey, in types.Schema) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
	}
	return "sort0=[" + strings.Join(parts, ", ") + "]"
}

// Explain prints a plan tree, one node per line, children indented by two
// spaces, as Flink's "== Abstract Syntax Tree ==" section does.
func Explain(n Node) string {
	var b strings.Builder
	var walk func(Node, int)
	walk = func(n Node, depth int) {
		name, attrs := n.Describe()
		b.WriteString(strings.Repeat("   ", depth))
		if depth > 0 {
			b.WriteString("")
		}
		if depth > 0 {
			b.WriteString("+- ")
		}
		b.WriteString(name)
		b.WriteString("(")
		b.WriteString(attrs)
		b.WriteString(")\n")
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

var (
	_ Node = (*Scan)(nil)
	_ Node = (*Values)(nil)
	_ Node = (*Project)(nil)
	_ Node = (*Filter)(nil)
	_ Node = (*Aggregate)(nil)
	_ Node = (*Join)(nil)
	_ Node = (*Sort)(nil)
	_ Node = (*Limit)(nil)
	_ Node = (*Union)(nil)
	_ Node = (*SetOp)(nil)
	_ Node = (*Sink)(nil)
)
