package expr

import "sort"

// What a compiled expression reads from its input record batch. Operators
// use it to avoid materialising columns an expression never looks at: a
// filtering Calc gathers only the referenced columns of the kept rows (see
// ops.Calc), and evaluates a bare field-access path before the filter.

// InputColumns returns the distinct input column indexes, ascending, that
// the expression reads. ok is false when that is not known (a node kind
// this file does not describe); callers must then assume every column is
// read. Only column references read the record's columns: every other
// node reads its children's results (and the record's row count).
func (c *compiled) InputColumns() (cols []int, ok bool) {
	seen := map[int]bool{}
	if !collectColumns(c.root, seen) {
		return nil, false
	}
	cols = make([]int, 0, len(seen))
	for i := range seen {
		cols = append(cols, i)
	}
	sort.Ints(cols)
	return cols, true
}

// FieldPath reports whether the expression is a bare column reference or a
// chain of ROW field accesses on one ($FIELD($FIELD(col, i), j) …): col is
// the column and path the field indexes, outermost first (empty for a bare
// column). Such an expression reads nothing but that column, cannot fail,
// and commutes with row selection: evaluating it and then keeping some
// rows gives the same array as keeping the rows first (a field of a NULL
// row is NULL either way).
func (c *compiled) FieldPath() (col int, path []int, ok bool) {
	n := c.root
	for {
		switch x := n.(type) {
		case *colNode:
			// Reverse: the walk went from the outermost access inwards.
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return x.idx, path, true
		case *structFieldNode:
			path = append(path, x.idx)
			n = x.arg
		default:
			return 0, nil, false
		}
	}
}

// refNode is implemented by every node kind whose children are known; a
// node kind without it makes InputColumns answer "unknown".
type refNode interface {
	refChildren() []node
}

func collectColumns(n node, seen map[int]bool) bool {
	if n == nil {
		return true
	}
	switch x := n.(type) {
	case *colNode:
		seen[x.idx] = true
		return true
	case *litNode:
		return true
	case refNode:
		for _, k := range x.refChildren() {
			if !collectColumns(k, seen) {
				return false
			}
		}
		return true
	}
	return false
}

func (n *arithNode) refChildren() []node        { return []node{n.a, n.b} }
func (n *numCastNode) refChildren() []node      { return []node{n.arg} }
func (n *cmpNode) refChildren() []node          { return []node{n.a, n.b} }
func (n *dateFormatNode) refChildren() []node   { return []node{n.arg} }
func (n *decArithNode) refChildren() []node     { return []node{n.a, n.b} }
func (n *decMulNode) refChildren() []node       { return []node{n.a, n.b, n.xa, n.xb} }
func (n *callNode) refChildren() []node         { return n.args }
func (n *castNode) refChildren() []node         { return []node{n.arg} }
func (n *goNode[T]) refChildren() []node        { return n.args }
func (n *hashCodeNode) refChildren() []node     { return []node{n.arg} }
func (n *logicNode) refChildren() []node        { return n.args }
func (n *notNode) refChildren() []node          { return []node{n.arg} }
func (n *isNode) refChildren() []node           { return []node{n.arg} }
func (n *coalesceNode) refChildren() []node     { return n.args }
func (n *regexpMatchNode) refChildren() []node  { return []node{n.arg} }
func (n *strCastNode) refChildren() []node      { return []node{n.arg} }
func (n *regexExtractNode) refChildren() []node { return []node{n.arg} }
func (n *splitIndexNode) refChildren() []node   { return []node{n.arg} }
func (n *likeNode) refChildren() []node         { return []node{n.arg} }
func (n *caseConvNode) refChildren() []node     { return []node{n.arg} }
func (n *concatNode) refChildren() []node       { return n.args }
func (n *substrNode) refChildren() []node       { return n.args }
func (n *intToStrNode) refChildren() []node     { return []node{n.arg} }
func (n *strMapNode) refChildren() []node       { return []node{n.arg} }
func (n *structFieldNode) refChildren() []node  { return []node{n.arg} }
func (n *fieldNode) refChildren() []node        { return []node{n.arg} }
func (n *tsIntervalNode) refChildren() []node   { return []node{n.ts, n.generic} }
func (n *scriptNode) refChildren() []node       { return n.args }

func (n *caseNode) refChildren() []node {
	kids := make([]node, 0, len(n.conds)+len(n.thens)+1)
	kids = append(kids, n.conds...)
	kids = append(kids, n.thens...)
	return append(kids, n.els)
}

func (n *inNode) refChildren() []node {
	return append([]node{n.val}, n.items...)
}
