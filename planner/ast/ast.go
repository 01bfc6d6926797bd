// Package ast defines the syntax tree produced by planner/parser for the
// Flink SQL dialect.
//
// The tree is pure syntax: names are not resolved, types are not checked and
// data types are kept as written (see DataType). Every node records the
// position of its first token so later stages can report errors against the
// original text. Nodes are plain structs; they carry no behaviour beyond
// position accessors and printing (see Format).
package ast

// Pos is a 1-based line and column position in the parsed text.
type Pos struct {
	Line int
	Col  int
}

// Position returns p itself; embedding Pos gives every node a Position method.
func (p Pos) Position() Pos { return p }

// Node is implemented by every syntax node.
type Node interface {
	// Position returns the position of the node's first token.
	Position() Pos
}

// Statement is a complete SQL statement.
type Statement interface {
	Node
	stmtNode()
}

// Expr is a scalar (or row/collection valued) expression.
type Expr interface {
	Node
	exprNode()
}

// Query is a query body: *Select, *SetOp, *Values, *With or *QueryExpr.
type Query interface {
	Node
	queryNode()
}

// TableRef is an item of a FROM clause: *TableName, *SubqueryRef, *ValuesRef,
// *Join, *TableFunctionRef, *UnnestRef or *MatchRecognize.
type TableRef interface {
	Node
	tableRefNode()
}

// ObjectName is a possibly qualified name such as cat.db.tbl. Parts keep the
// case they were written in; back quotes are removed.
type ObjectName struct {
	Parts []string
}

// Last returns the last part of the name, or "" if the name is empty.
func (n ObjectName) Last() string {
	if len(n.Parts) == 0 {
		return ""
	}
	return n.Parts[len(n.Parts)-1]
}

// Option is a key/value pair of a WITH ( 'k' = 'v', ... ) clause or hint.
type Option struct {
	// Pos is the position of the key.
	Pos
	Key   string
	Value string
}
