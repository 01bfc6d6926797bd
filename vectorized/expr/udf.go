package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/udf"
)

// Script functions (udf/python, udf/js) evaluate one chunk of rows per
// interpreter entry through udf.BatchImpl instead of the generic adapter's
// row-by-row Definition.Eval. The hook for the compiler is scriptCall:
//
//	if n, ok, err := c.scriptCall(x, def, args); ok {
//		return n, err
//	}
//
// placed before the generic adapter is chosen.

// scriptNode calls a script scalar function once per batch.
type scriptNode struct {
	name string
	def  *function.Definition
	bf   udf.BatchFunc
	af   udf.ArrowFunc // nil: the []any path through bf
	args []node
	ct   function.CallTypes
	at   arrow.DataType
	ctx  *function.EvalContext
}

var _ node = (*scriptNode)(nil)

// scriptCall returns a batch node when def is a script scalar function;
// ok is false for every other function.
func (c *compiler) scriptCall(x *logical.Call, def *function.Definition, args []node) (n node, ok bool, err error) {
	if def == nil || def.Kind != function.Scalar {
		return nil, false, nil
	}
	ct := logical.CallTypesOf(x)
	def, err = udf.Specialize(def, ct.Args)
	if err != nil {
		return nil, true, err
	}
	bf, isScript := udf.BatchImpl(def)
	if !isScript {
		return nil, false, nil
	}
	at, err := types.ArrowType(x.T)
	if err != nil {
		return nil, true, err
	}
	af, _ := udf.ArrowImpl(def)
	return &scriptNode{name: x.Name, def: def, bf: bf, af: af, args: args, ct: ct, at: at, ctx: c.ctx}, true, nil
}

func (n *scriptNode) typ() types.Type { return n.ct.Result }

// canFail: a script may raise on any input.
func (n *scriptNode) canFail() bool { return true }

func (n *scriptNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (out arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("internal: evaluating %s: %v", n.name, r)
		}
	}()
	if n.af != nil {
		return n.evalArrow(rec, mem)
	}
	rows := int(rec.NumRows())
	cols := make([][]any, len(n.args))
	for i, a := range n.args {
		col := make([]any, rows)
		if l, isLit := a.(*litNode); isLit {
			for r := range col {
				col[r] = l.v
			}
			cols[i] = col
			continue
		}
		arr, err := a.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		for r := range col {
			col[r] = types.GetValue(arr, r, n.ct.Args[i])
		}
		arr.Release()
		cols[i] = col
	}
	// NullOnNull functions skip rows with a NULL argument.
	sel := []int(nil)
	if n.def.NullOnNull && len(cols) > 0 {
		sel = make([]int, 0, rows)
		for r := 0; r < rows; r++ {
			null := false
			for _, c := range cols {
				if c[r] == nil {
					null = true
					break
				}
			}
			if !null {
				sel = append(sel, r)
			}
		}
		if len(sel) < rows {
			for i, c := range cols {
				packed := make([]any, len(sel))
				for k, r := range sel {
					packed[k] = c[r]
				}
				cols[i] = packed
			}
		} else {
			sel = nil
		}
	}
	count := rows
	if sel != nil {
		count = len(sel)
	}
	res, err := n.bf.CallBatch(n.ctx, cols, count)
	if err != nil {
		return nil, err
	}
	b := array.NewBuilder(mem, n.at)
	defer b.Release()
	b.Reserve(rows)
	k := 0
	for r := 0; r < rows; r++ {
		var v any
		if sel == nil {
			v = res[r]
		} else if k < len(sel) && sel[k] == r {
			v = res[k]
			k++
		}
		if err := types.AppendValue(b, v, n.ct.Result); err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
	}
	return b.NewArray(), nil
}

// evalArrow hands the argument arrays (literals as constants) to the
// runtime, which converts them to script values per chunk and builds the
// result array directly.
func (n *scriptNode) evalArrow(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	args := make([]udf.ArrowArg, len(n.args))
	defer func() {
		for _, a := range args {
			if a.Array != nil {
				a.Array.Release()
			}
		}
	}()
	for i, a := range n.args {
		if l, isLit := a.(*litNode); isLit {
			args[i].Value = l.v
			continue
		}
		arr, err := a.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		args[i].Array = arr
	}
	b := array.NewBuilder(mem, n.at)
	defer b.Release()
	b.Reserve(rows)
	if err := n.af.CallArrow(n.ctx, args, rows, n.def.NullOnNull, b); err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}
