package ast

// Hint is one entry of a /*+ ... */ hint, e.g. OPTIONS('k'='v') or
// BROADCAST(t1, t2).
type Hint struct {
	Pos
	// Name is upper-cased (OPTIONS, BROADCAST, LOOKUP, ...).
	Name string
	// Options holds key/value arguments ('k'='v').
	Options []Option
	// Args holds plain (identifier or string) arguments.
	Args []string
}

// SelectItem is one item of a select list: an expression with an optional
// alias, or a star (`*` or `t.*`).
type SelectItem struct {
	Pos
	Expr  Expr
	Alias string
	// Star is set for `*` or `qualifier.*`; Expr is nil then.
	Star bool
	// Qualifier is the `t` of `t.*` (nil for a bare `*`).
	Qualifier []string
}

// NamedWindow is one `name AS (spec)` entry of a WINDOW clause.
type NamedWindow struct {
	Pos
	Name string
	Spec *WindowSpec
}

// Select is SELECT [DISTINCT|ALL] items [FROM ...] [WHERE ...] [GROUP BY ...]
// [HAVING ...] [WINDOW ...].
type Select struct {
	Pos
	Hints    []Hint
	Distinct bool
	Items    []SelectItem
	// From is nil for SELECT without FROM.
	From    TableRef
	Where   Expr
	GroupBy []Expr
	Having  Expr
	Windows []NamedWindow
}

// SetOpKind is the operator of a SetOp.
type SetOpKind string

// Set operators.
const (
	Union     SetOpKind = "UNION"
	Intersect SetOpKind = "INTERSECT"
	Except    SetOpKind = "EXCEPT"
)

// SetOp is left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] right.
type SetOp struct {
	Pos
	Op    SetOpKind
	All   bool
	Left  Query
	Right Query
}

// Values is VALUES (row), (row), ... Each row is a list of expressions; a
// bare `VALUES 1, 2` gives one-element rows.
type Values struct {
	Pos
	Rows [][]Expr
}

// CTE is one `name [(cols)] AS (query)` of a WITH clause.
type CTE struct {
	Pos
	Name    string
	Columns []string
	Query   Query
}

// With is WITH ctes body.
type With struct {
	Pos
	CTEs []CTE
	Body Query
}

// OrderItem is one ORDER BY item.
type OrderItem struct {
	Pos
	Expr Expr
	Desc bool
	// NullsFirst is nil when NULLS FIRST/LAST was not written.
	NullsFirst *bool
}

// QueryExpr is a query body with ORDER BY, LIMIT / FETCH and OFFSET.
// FETCH FIRST|NEXT n ROW[S] ONLY is stored in Limit.
type QueryExpr struct {
	Pos
	Body    Query
	OrderBy []OrderItem
	Limit   Expr
	Offset  Expr
}

func (*Select) queryNode()    {}
func (*SetOp) queryNode()     {}
func (*Values) queryNode()    {}
func (*With) queryNode()      {}
func (*QueryExpr) queryNode() {}

// TableName is a named table in FROM, with optional hints, FOR SYSTEM_TIME
// AS OF and alias.
type TableName struct {
	Pos
	Name  ObjectName
	Hints []Hint
	// ForSystemTimeAsOf is the expression of FOR SYSTEM_TIME AS OF e.
	ForSystemTimeAsOf Expr
	Alias             string
	ColumnAliases     []string
}

// SubqueryRef is [LATERAL] (query) [AS] alias [(cols)].
type SubqueryRef struct {
	Pos
	Lateral       bool
	Query         Query
	Alias         string
	ColumnAliases []string
}

// ValuesRef is (VALUES ...) [AS] alias [(cols)].
type ValuesRef struct {
	Pos
	Values        *Values
	Alias         string
	ColumnAliases []string
}

// JoinKind is the kind of a Join.
type JoinKind string

// Join kinds.
const (
	InnerJoin JoinKind = "INNER"
	LeftJoin  JoinKind = "LEFT"
	RightJoin JoinKind = "RIGHT"
	FullJoin  JoinKind = "FULL"
	CrossJoin JoinKind = "CROSS"
)

// Join is left [NATURAL] kind JOIN right [ON cond | USING (cols)]. Comma
// joins (FROM a, b) are CROSS joins.
type Join struct {
	Pos
	Kind    JoinKind
	Natural bool
	Left    TableRef
	Right   TableRef
	On      Expr
	Using   []string
}

// TableFunctionRef is TABLE(f(args)) or LATERAL TABLE(f(args)) in FROM,
// e.g. TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' MINUTES)).
type TableFunctionRef struct {
	Pos
	Lateral       bool
	Call          *FunctionCall
	Alias         string
	ColumnAliases []string
}

// UnnestRef is UNNEST(exprs) [WITH ORDINALITY] [AS] alias [(cols)].
type UnnestRef struct {
	Pos
	Exprs          []Expr
	WithOrdinality bool
	Alias          string
	ColumnAliases  []string
}

func (*TableName) tableRefNode()        {}
func (*SubqueryRef) tableRefNode()      {}
func (*ValuesRef) tableRefNode()        {}
func (*Join) tableRefNode()             {}
func (*TableFunctionRef) tableRefNode() {}
func (*UnnestRef) tableRefNode()        {}
