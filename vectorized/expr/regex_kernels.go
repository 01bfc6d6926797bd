package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// regexSpecial returns a kernel for REGEXP(s, constant pattern), or nil.
// Invalid or NULL patterns stay with the generic adapter, which reports
// the function's own error (or NULL).
func (c *compiler) regexSpecial(x *logical.Call, args []node) node {
	if x.Name != "REGEXP" || len(args) != 2 || !args[0].typ().IsString() {
		return nil
	}
	p, ok := strLit(args[1])
	if !ok {
		return nil
	}
	f := newFastRegex(p)
	if f == nil {
		return nil
	}
	return &regexpMatchNode{arg: args[0], re: f, t: x.T}
}

// ---- REGEXP(s, constant pattern) ----

type regexpMatchNode struct {
	arg node
	re  *fastRegex
	t   types.Type
}

func (n *regexpMatchNode) typ() types.Type { return n.t }
func (n *regexpMatchNode) canFail() bool   { return n.arg.canFail() }

func (n *regexpMatchNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	validity, nulls := validityOf(mem, rows, a)
	buf, out := newBits(mem, rows)
	if s, ok := a.(*array.String); ok {
		caps := make([]int, 2*n.re.ncap)
		for i := 0; i < rows; i++ {
			if s.IsValid(i) && n.re.find(s.Value(i), caps) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

var _ node = (*regexpMatchNode)(nil)
