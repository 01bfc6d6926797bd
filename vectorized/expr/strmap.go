package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ---- f(string column, constants…) for any NULL-on-NULL function ----

// strMapNode runs a function's reference implementation over a VARCHAR
// column with constant other arguments (REPLACE(s, 'a', 'b'), INSTR(s,
// 'x'), JSON_VALUE(s, '$.a'), SHA256(s), …) without the generic adapter's
// per-row value conversion: it reads the strings in place and writes
// VARCHAR, INT, BIGINT or BOOLEAN results straight into Arrow buffers.
// Results and errors are those of Definition.Eval.
type strMapNode struct {
	name   string
	def    *function.Definition
	arg    node
	consts []any // the other arguments (index 0 unused)
	ct     function.CallTypes
	ctx    *function.EvalContext
	// fn, when set, replaces Eval (a kernel with constants bound once).
	fn func(s string) (string, bool)
}

// strMapNullable are functions that are not NULL-on-NULL but take the
// kernel: their Eval is called with the NULL too.
var strMapNullable = map[string]bool{"JSON_VALUE": true, "JSON_QUERY": true, "JSON_EXISTS": true}

func (c *compiler) newStrMap(x *logical.Call, def *function.Definition, args []node) node {
	if def == nil || def.Eval == nil || (!def.NullOnNull && !strMapNullable[x.Name]) || def.Nondeterministic || len(args) == 0 {
		return nil
	}
	if _, isLit := args[0].(*litNode); isLit || !args[0].typ().IsString() {
		return nil
	}
	switch x.T.Kind {
	case types.VarChar, types.Int, types.BigInt, types.Boolean:
	default:
		return nil
	}
	consts := make([]any, len(args))
	for i, a := range args[1:] {
		l, ok := a.(*litNode)
		if !ok || l.v == nil {
			return nil
		}
		consts[i+1] = l.v
	}
	n := &strMapNode{name: x.Name, def: def, arg: args[0], consts: consts, ct: logical.CallTypesOf(x), ctx: c.ctx}
	if x.Name == "REGEXP_REPLACE" && len(args) == 3 {
		p, _ := consts[1].(string)
		r, _ := consts[2].(string)
		f, err := function.RegexpReplacer(p, r)
		if err != nil {
			return nil // the generic adapter reports the error
		}
		n.fn = func(s string) (string, bool) { return f(s), true }
	}
	return n
}

func (n *strMapNode) typ() types.Type { return n.ct.Result }
func (n *strMapNode) canFail() bool   { return !safeFunctions[n.name] || n.arg.canFail() }

func (n *strMapNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	s, ok := a.(*array.String)
	if !ok {
		return nil, fmt.Errorf("internal: %s on %s", n.name, a.DataType())
	}
	vals := make([]any, len(n.consts))
	copy(vals, n.consts)
	call := func(i int) (any, error) {
		if !s.IsValid(i) {
			if n.def.NullOnNull {
				return nil, nil
			}
			vals[0] = nil
			return n.def.Eval(n.ctx, n.ct, vals)
		}
		v := s.Value(i)
		if n.fn != nil {
			out, ok := n.fn(v)
			if !ok {
				return nil, nil
			}
			return out, nil
		}
		vals[0] = v
		return n.def.Eval(n.ctx, n.ct, vals)
	}
	validity := memory.NewResizableBuffer(mem)
	validity.Resize(int(bitutil.BytesForBits(int64(rows))))
	vb := validity.Bytes()
	clear(vb)
	nulls := 0
	fail := func(err error) (arrow.Array, error) {
		validity.Release()
		return nil, err
	}
	switch n.ct.Result.Kind {
	case types.VarChar:
		b := newStrBuilder(rows, len(s.ValueBytes()))
		for i := 0; i < rows; i++ {
			out, err := call(i)
			if err != nil {
				return fail(err)
			}
			if str, ok := out.(string); ok {
				b.data = append(b.data, str...)
				bitutil.SetBit(vb, i)
				b.next()
				continue
			}
			nulls++
			b.next()
		}
		if nulls == 0 {
			validity.Release()
			validity = nil
		}
		return b.finish(mem, rows, validity, nulls), nil
	case types.Boolean:
		buf, out := newBits(mem, rows)
		for i := 0; i < rows; i++ {
			v, err := call(i)
			if err != nil {
				buf.Release()
				return fail(err)
			}
			if bv, ok := v.(bool); ok {
				if bv {
					out[i>>3] |= 1 << (i & 7)
				}
				bitutil.SetBit(vb, i)
				continue
			}
			nulls++
		}
		if nulls == 0 {
			validity.Release()
			validity = nil
		}
		return finish(arrow.FixedWidthTypes.Boolean, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
	case types.Int:
		buf, out := newFixed[int32](mem, rows)
		for i := 0; i < rows; i++ {
			out[i] = 0
			v, err := call(i)
			if err != nil {
				buf.Release()
				return fail(err)
			}
			if iv, ok := v.(int32); ok {
				out[i] = iv
				bitutil.SetBit(vb, i)
				continue
			}
			nulls++
		}
		if nulls == 0 {
			validity.Release()
			validity = nil
		}
		return finish(arrow.PrimitiveTypes.Int32, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
	default: // BIGINT
		buf, out := newFixed[int64](mem, rows)
		for i := 0; i < rows; i++ {
			out[i] = 0
			v, err := call(i)
			if err != nil {
				buf.Release()
				return fail(err)
			}
			if iv, ok := v.(int64); ok {
				out[i] = iv
				bitutil.SetBit(vb, i)
				continue
			}
			nulls++
		}
		if nulls == 0 {
			validity.Release()
			validity = nil
		}
		return finish(arrow.PrimitiveTypes.Int64, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
	}
}

var _ node = (*strMapNode)(nil)
