package ast

// Identifier is a possibly compound name: col, t.col or r.f.g. The
// validator decides which parts name a table and which a field.
type Identifier struct {
	Pos
	Parts []string
}

// LiteralKind is the kind of a Literal.
type LiteralKind int

// Literal kinds.
const (
	// IntegerLit is an exact numeric without point or exponent; Text is the
	// original digits.
	IntegerLit LiteralKind = iota
	// DecimalLit is an exact numeric with a decimal point, e.g. 1.50.
	DecimalLit
	// ApproxLit is an approximate numeric with an exponent, e.g. 1e3.
	ApproxLit
	// StringLit is a character string; Text is the value with '' unescaped.
	StringLit
	// BinaryLit is X'...'; Text is the hex digits.
	BinaryLit
	// BoolLit is TRUE or FALSE; Text is "TRUE" or "FALSE".
	BoolLit
	// NullLit is NULL; Text is "NULL".
	NullLit
	// DateLit is DATE '...'; Text is the string value.
	DateLit
	// TimeLit is TIME '...'.
	TimeLit
	// TimestampLit is TIMESTAMP '...'.
	TimestampLit
	// TimestampLTZLit is TIMESTAMP_LTZ '...'.
	TimestampLTZLit
)

// Literal is a constant other than an interval.
type Literal struct {
	Pos
	Kind LiteralKind
	Text string
}

// IntervalQualifier is the unit part of an interval literal or type, e.g.
// DAY(2) TO SECOND(3). Precisions are -1 when not written.
type IntervalQualifier struct {
	// Start is YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND,
	// MILLISECOND, ... (plural forms like MINUTES are normalised).
	Start          string
	StartPrecision int
	// StartFracPrecision is the fractional precision of SECOND(p, f) when
	// SECOND is the only unit.
	StartFracPrecision int
	// End is the TO unit ("" when absent).
	End              string
	EndFracPrecision int
}

// IntervalLit is INTERVAL [-|+]'value' qualifier.
type IntervalLit struct {
	Pos
	// Negative is set for INTERVAL -'5' SECOND. A sign inside the string
	// (INTERVAL '-5' SECOND) is left in Value as written.
	Negative  bool
	Value     string
	Qualifier IntervalQualifier
}

// Symbol is a keyword used as an argument of a special function: the unit
// of EXTRACT / TIMESTAMPADD / TIMESTAMPDIFF / CEIL / FLOOR, the BOTH /
// LEADING / TRAILING flag of TRIM. Name is upper case.
type Symbol struct {
	Pos
	Name string
}

// Unary is a prefix operator: "-", "+" or "NOT".
type Unary struct {
	Pos
	Op   string
	Expr Expr
}

// Binary is a binary operator: + - * / % || = <> < <= > >= AND OR.
// `!=` is normalised to `<>`.
type Binary struct {
	Pos
	Op    string
	Left  Expr
	Right Expr
}

// Is is expr IS [NOT] NULL|TRUE|FALSE|UNKNOWN.
type Is struct {
	Pos
	Expr Expr
	Not  bool
	// Test is NULL, TRUE, FALSE or UNKNOWN.
	Test string
}

// IsDistinctFrom is left IS [NOT] DISTINCT FROM right.
type IsDistinctFrom struct {
	Pos
	Left  Expr
	Right Expr
	Not   bool
}

// Between is expr [NOT] BETWEEN [SYMMETRIC|ASYMMETRIC] low AND high.
type Between struct {
	Pos
	Expr      Expr
	Not       bool
	Symmetric bool
	Low       Expr
	High      Expr
}

// Like is expr [NOT] LIKE|ILIKE|SIMILAR TO pattern [ESCAPE e].
type Like struct {
	Pos
	Expr Expr
	Not  bool
	// Op is LIKE, ILIKE or SIMILAR TO.
	Op      string
	Pattern Expr
	Escape  Expr
}

// In is expr [NOT] IN (list).
type In struct {
	Pos
	Expr Expr
	Not  bool
	List []Expr
}

// InSubquery is expr [NOT] IN (query).
type InSubquery struct {
	Pos
	Expr  Expr
	Not   bool
	Query Query
}

// Exists is EXISTS (query).
type Exists struct {
	Pos
	Query Query
}

// ScalarSubquery is (query) used as an expression.
type ScalarSubquery struct {
	Pos
	Query Query
}

// When is one WHEN cond THEN result of a Case.
type When struct {
	Pos
	Cond   Expr
	Result Expr
}

// Case is CASE [operand] WHEN ... THEN ... [ELSE ...] END. Operand is nil for
// the searched form.
type Case struct {
	Pos
	Operand Expr
	Whens   []When
	Else    Expr
}

// Cast is CAST(expr AS type) or TRY_CAST(expr AS type).
type Cast struct {
	Pos
	Expr Expr
	Type *DataType
	Try  bool
}

// FrameBoundKind is the kind of a window frame bound.
type FrameBoundKind string

// Frame bound kinds.
const (
	UnboundedPreceding FrameBoundKind = "UNBOUNDED PRECEDING"
	Preceding          FrameBoundKind = "PRECEDING"
	CurrentRow         FrameBoundKind = "CURRENT ROW"
	Following          FrameBoundKind = "FOLLOWING"
	UnboundedFollowing FrameBoundKind = "UNBOUNDED FOLLOWING"
)

// FrameBound is one bound of a window frame; Offset is set for PRECEDING
// and FOLLOWING.
type FrameBound struct {
	Pos
	Kind   FrameBoundKind
	Offset Expr
}

// WindowFrame is ROWS|RANGE start or ROWS|RANGE BETWEEN start AND end.
type WindowFrame struct {
	Pos
	// Unit is ROWS or RANGE.
	Unit  string
	Start FrameBound
	// End is nil for the single-bound form.
	End *FrameBound
}

// WindowSpec is the body of OVER (...) or of a WINDOW clause entry.
type WindowSpec struct {
	Pos
	// Base is the referenced window name of OVER (w ...), or "".
	Base        string
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       *WindowFrame
}

// FunctionCall is a function call, including special syntax normalised to
// a call: EXTRACT(unit FROM e) has Name EXTRACT and args [Symbol, e];
// POSITION(a IN b) → POSITION(a, b); TRIM(flag chars FROM s) → TRIM(Symbol,
// chars, s) with defaults BOTH and ' '; SUBSTRING(s FROM a FOR b) →
// SUBSTRING(s, a, b); OVERLAY(s PLACING r FROM a FOR b) → OVERLAY(s, r, a,
// b); TIMESTAMPADD/TIMESTAMPDIFF(unit, ...) → first arg is a Symbol;
// CURRENT_TIMESTAMP and friends without parentheses have NoParens set.
type FunctionCall struct {
	Pos
	Name     ObjectName
	Args     []Expr
	Distinct bool
	// Star is set for COUNT(*).
	Star bool
	// NoParens is set for niladic calls written without (), e.g. CURRENT_DATE.
	NoParens bool
	// Filter is the condition of FILTER (WHERE cond).
	Filter Expr
	// Over is the window of OVER (...) or OVER w.
	Over *WindowSpec
	// OverName is set (and Over nil) for OVER w referencing a named window.
	OverName string
	// End is the position of the closing parenthesis of the arguments
	// (zero when there is none): errors about the call span Pos to End.
	End Pos
}

// TableArg is `TABLE name [PARTITION BY exprs] [ORDER BY items]` used as a
// table function argument, e.g. in SESSION(TABLE t PARTITION BY k, ...).
type TableArg struct {
	Pos
	Name        ObjectName
	PartitionBy []Expr
	OrderBy     []OrderItem
}

// Descriptor is DESCRIPTOR(col, ...) used as a table function argument.
type Descriptor struct {
	Pos
	Columns []string
}

// NamedArg is `name => value` in a function call.
type NamedArg struct {
	Pos
	Name  string
	Value Expr
}

// Row is ROW(a, b) (Explicit) or (a, b).
type Row struct {
	Pos
	Items    []Expr
	Explicit bool
}

// Array is ARRAY[a, b, ...].
type Array struct {
	Pos
	Items []Expr
}

// Map is MAP[k1, v1, k2, v2, ...]; Items alternate keys and values.
type Map struct {
	Pos
	Items []Expr
}

// Index is element access expr[index].
type Index struct {
	Pos
	Expr  Expr
	Index Expr
}

// FieldAccess is expr.field where expr is not a plain identifier, e.g.
// a[1].f or f(x).g. Plain dotted names are a single Identifier.
type FieldAccess struct {
	Pos
	Expr  Expr
	Field string
}

// GroupingSetsKind names GROUPING SETS, ROLLUP or CUBE.
type GroupingSetsKind string

// Grouping kinds.
const (
	GroupingSetsKindSets GroupingSetsKind = "GROUPING SETS"
	GroupingSetsKindRoll GroupingSetsKind = "ROLLUP"
	GroupingSetsKindCube GroupingSetsKind = "CUBE"
)

// GroupingSets is a GROUP BY element GROUPING SETS ((a, b), (a), ()),
// ROLLUP(a, b) or CUBE(a, b). Each set is a list of expressions; () is an
// empty set.
type GroupingSets struct {
	Pos
	Kind GroupingSetsKind
	Sets [][]Expr
}

func (*Identifier) exprNode()     {}
func (*Literal) exprNode()        {}
func (*IntervalLit) exprNode()    {}
func (*Symbol) exprNode()         {}
func (*Unary) exprNode()          {}
func (*Binary) exprNode()         {}
func (*Is) exprNode()             {}
func (*IsDistinctFrom) exprNode() {}
func (*Between) exprNode()        {}
func (*Like) exprNode()           {}
func (*In) exprNode()             {}
func (*InSubquery) exprNode()     {}
func (*Exists) exprNode()         {}
func (*ScalarSubquery) exprNode() {}
func (*Case) exprNode()           {}
func (*Cast) exprNode()           {}
func (*FunctionCall) exprNode()   {}
func (*TableArg) exprNode()       {}
func (*Descriptor) exprNode()     {}
func (*NamedArg) exprNode()       {}
func (*Row) exprNode()            {}
func (*Array) exprNode()          {}
func (*Map) exprNode()            {}
func (*Index) exprNode()          {}
func (*FieldAccess) exprNode()    {}
func (*GroupingSets) exprNode()   {}

// String returns the kind's name, e.g. "INTEGER" or "TIMESTAMP_LTZ".
func (k LiteralKind) String() string {
	names := [...]string{"INTEGER", "DECIMAL", "APPROX", "STRING", "BINARY", "BOOLEAN", "NULL", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"}
	if int(k) >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "UNKNOWN"
}

// JSONBehavior is the choice of an ON EMPTY / ON ERROR clause of a JSON
// function: Kind is NULL, ERROR, DEFAULT (with Default set), EMPTY ARRAY,
// EMPTY OBJECT, TRUE, FALSE or UNKNOWN.
type JSONBehavior struct {
	Kind    string
	Default Expr
}

// JSONCall is a JSON function with keyword clauses: JSON_EXISTS, JSON_VALUE,
// JSON_QUERY, JSON_OBJECT, JSON_OBJECTAGG, JSON_ARRAY or JSON_ARRAYAGG.
// Args are (json, path) for EXISTS/VALUE/QUERY, alternating keys and values
// for JSON_OBJECT / JSON_OBJECTAGG, and the items for JSON_ARRAY(AGG).
// Simple calls such as JSON_VALUE(s, '$.a') are plain FunctionCalls.
type JSONCall struct {
	Pos
	// Name is upper case.
	Name string
	Args []Expr
	// Returning is the RETURNING type, if written.
	Returning *DataType
	// Wrapper is WITHOUT ARRAY, WITH CONDITIONAL ARRAY or WITH
	// UNCONDITIONAL ARRAY for JSON_QUERY's wrapper clause ("" if absent).
	Wrapper string
	OnEmpty *JSONBehavior
	OnError *JSONBehavior
	// OnNull is NULL or ABSENT for the ... ON NULL clause ("" if absent).
	OnNull string
}

func (*JSONCall) exprNode() {}
