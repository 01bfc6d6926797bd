// Package expr compiles logical expressions into vectorized evaluators over
// Arrow record batches: type-specialised loops (Go generics, one body per
// physical type) for the common operators — column references (zero
// copy), literals, + - * / MOD on TINYINT..BIGINT/FLOAT/DOUBLE, DECIMAL +
// and -, comparisons of numbers, dates, times, timestamps, intervals,
// strings and decimals, AND/OR/NOT with three-valued logic, the IS family,
// numeric casts and integer → string casts, CASE, COALESCE, LIKE with a
// constant pattern, IN with constant items (hash set), UPPER, LOWER,
// SUBSTRING, CONCAT, REGEXP_EXTRACT / REGEXP / SPLIT_INDEX with constant
// arguments (regex_fast.go: a matcher for simple patterns that tries only
// the starts near a required literal), DATE_FORMAT with a constant pattern,
// casts between character strings, timestamp ± constant interval, any
// NULL-on-NULL function of one string column and constants (strmap.go:
// Definition.Eval without per-row value conversion; also JSON_VALUE,
// JSON_QUERY, JSON_EXISTS) — and a generic adapter that runs any other function's
// reference implementation (function.Definition.Eval, function.CastValue)
// row by row, so every function of the registry works. Filters made of
// ANDed column-versus-constant comparisons select rows without building
// BOOLEAN arrays. logical.Eval is the oracle the tests compare against.
//
// Memory: results returned to callers come from vectorized.Mem;
// intermediate arrays come from a recycling pool (see pool.go).
//
// Laziness follows Flink: AND/OR do not evaluate their right side on rows
// the left side decides, CASE evaluates a THEN only on the rows its WHEN
// selects, and COALESCE evaluates an argument only on rows still NULL —
// whenever the skipped part could fail (division, parsing casts, functions
// without a kernel). Parts that cannot fail are evaluated on the whole batch,
// which is cheaper.
package expr

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// Evaluator computes one expression over record batches.
type Evaluator interface {
	// Eval returns one value per row of rec, as an Arrow array of the
	// expression's type (types.ArrowType). The caller owns the result and
	// must Release it; rec is not retained (the result may share rec's
	// column buffers, e.g. for a bare column reference). Compiled
	// evaluators hold no mutable state and are safe for concurrent use.
	Eval(rec arrow.RecordBatch) (arrow.Array, error)
}

// Filter selects rows by a BOOLEAN condition.
type Filter interface {
	// Select returns the indexes, ascending, of the rows of rec where the
	// condition is TRUE (FALSE and NULL rows are dropped). When no row
	// qualifies it returns a non-nil empty slice; a nil slice is returned
	// only together with an error. The caller owns the slice.
	Select(rec arrow.RecordBatch) ([]int32, error)
}

// node is one compiled sub-expression.
type node interface {
	// eval returns a new reference to an array of rec.NumRows() rows.
	eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error)
	// typ is the logical result type.
	typ() types.Type
	// canFail reports whether evaluating the node (or a child) may return
	// an error for some input values.
	canFail() bool
}

type compiled struct {
	root node
}

var _ Evaluator = (*compiled)(nil)

// Eval implements Evaluator.
func (c *compiled) Eval(rec arrow.RecordBatch) (arrow.Array, error) {
	return c.root.eval(rec, vectorized.Mem)
}

// Compile compiles e, whose column references index input, into a
// vectorized evaluator. Every function registered in reg works: functions
// without a specialised kernel run through their Definition.Eval row by
// row. ctx supplies the session time zone and statement time.
func Compile(e logical.Expr, input types.Schema, reg *function.Registry, ctx *function.EvalContext) (Evaluator, error) {
	c := &compiler{input: input, reg: reg, ctx: ctx}
	if c.ctx == nil {
		c.ctx = &function.EvalContext{}
	}
	n, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	return &compiled{root: n}, nil
}

type filter struct {
	root node
}

var _ Filter = (*filter)(nil)

// CompileFilter compiles a BOOLEAN condition into a Filter.
func CompileFilter(cond logical.Expr, input types.Schema, reg *function.Registry, ctx *function.EvalContext) (Filter, error) {
	if k := cond.Type().Kind; k != types.Boolean && k != types.Null {
		return nil, fmt.Errorf("internal: filter condition %s has type %s", cond, cond.Type())
	}
	ev, err := Compile(cond, input, reg, ctx)
	if err != nil {
		return nil, err
	}
	return &filter{root: ev.(*compiled).root}, nil
}

// Select implements Filter.
func (f *filter) Select(rec arrow.RecordBatch) ([]int32, error) {
	if fs, ok := f.root.(rowSelector); ok && fs.canSelect() {
		return fs.selectRows(rec, nil, true)
	}
	a, err := f.root.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return trueRows(a), nil
}

// trueRows returns the indexes where a BOOLEAN (or NULL-typed) array is
// TRUE.
func trueRows(a arrow.Array) []int32 {
	out := make([]int32, 0, a.Len())
	b, ok := a.(*array.Boolean)
	if !ok {
		return out
	}
	n := a.Len()
	if n == 0 {
		return out
	}
	// Walk the value bitmap (ANDed with validity) a byte at a time.
	off := b.Data().Offset()
	vals := b.Data().Buffers()[1]
	if vals == nil {
		return out
	}
	mask := make([]byte, bitutil.BytesForBits(int64(n)))
	bitutil.CopyBitmap(vals.Bytes(), off, n, mask, 0)
	if b.NullN() > 0 {
		if v := b.Data().Buffers()[0]; v != nil {
			bitutil.BitmapAnd(mask, v.Bytes(), 0, int64(off), mask, 0, int64(n))
		}
	}
	if r := n & 7; r != 0 {
		mask[len(mask)-1] &= byte(1)<<r - 1
	}
	for bi, m := range mask {
		base := int32(bi * 8)
		for m != 0 {
			out = append(out, base+int32(bits.TrailingZeros8(m)))
			m &= m - 1
		}
	}
	return out
}

type compiler struct {
	input types.Schema
	reg   *function.Registry
	ctx   *function.EvalContext
}

func (c *compiler) compile(e logical.Expr) (node, error) {
	switch x := e.(type) {
	case *logical.ColumnRef:
		if x.Index < 0 || x.Index >= len(c.input) {
			return nil, fmt.Errorf("internal: column $%d out of range (input has %d columns)", x.Index, len(c.input))
		}
		return &colNode{idx: x.Index, t: x.T}, nil
	case *logical.Literal:
		return newLit(x.Value, x.T)
	case *logical.Cast:
		if l, ok := x.Arg.(*logical.Literal); ok {
			// Fold casts of constants (the validator casts literals to the
			// other operand's type) so kernels see a scalar.
			if v, err := function.CastValue(c.ctx, l.Value, l.T, x.T); err == nil {
				return newLit(v, x.T)
			}
		}
		arg, err := c.compile(x.Arg)
		if err != nil {
			return nil, err
		}
		return c.castNode(arg, x.T, x.Try)
	case *logical.Case:
		return c.compileCase(x)
	case *logical.Call:
		return c.compileCall(x)
	}
	return nil, fmt.Errorf("internal: cannot compile %T", e)
}

// coerce wraps n in a cast when its type differs from t (as
// logical.Eval converts CASE branches).
func (c *compiler) coerce(n node, t types.Type) (node, error) {
	if nt := n.typ(); nt.EqualIgnoringNull(t) || nt.Kind == types.Null {
		return n, nil
	}
	return c.castNode(n, t, false)
}

// ---- column references ----

type colNode struct {
	idx int
	t   types.Type
}

func (n *colNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	a := rec.Column(n.idx)
	a.Retain()
	return a, nil
}
func (n *colNode) typ() types.Type { return n.t }
func (n *colNode) canFail() bool   { return false }

// ---- literals ----

type litNode struct {
	v  any
	t  types.Type
	at arrow.DataType
}

func newLit(v any, t types.Type) (*litNode, error) {
	at, err := types.ArrowType(t)
	if err != nil {
		return nil, err
	}
	return &litNode{v: v, t: t, at: at}, nil
}

// eval broadcasts the literal; kernels read constants directly where they
// can, so this runs only where an array is really needed.
func (n *litNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	return broadcast(mem, n.v, n.t, n.at, int(rec.NumRows()))
}
func (n *litNode) typ() types.Type { return n.t }
func (n *litNode) canFail() bool   { return false }

// broadcast builds an array holding v rows times.
func broadcast(mem memory.Allocator, v any, t types.Type, at arrow.DataType, rows int) (arrow.Array, error) {
	if v == nil {
		return array.MakeArrayOfNull(mem, at, rows), nil
	}
	switch x := v.(type) {
	case int32:
		if fw, ok := at.(arrow.FixedWidthDataType); ok && fw.BitWidth() == 32 {
			buf, out := newFixed[int32](mem, rows)
			for i := range out {
				out[i] = x
			}
			return finish(at, rows, nil, 0, []*memory.Buffer{buf}, nil), nil
		}
	case int64:
		if fw, ok := at.(arrow.FixedWidthDataType); ok && fw.BitWidth() == 64 {
			buf, out := newFixed[int64](mem, rows)
			for i := range out {
				out[i] = x
			}
			return finish(at, rows, nil, 0, []*memory.Buffer{buf}, nil), nil
		}
	case float64:
		buf, out := newFixed[float64](mem, rows)
		for i := range out {
			out[i] = x
		}
		return finish(at, rows, nil, 0, []*memory.Buffer{buf}, nil), nil
	case string:
		if at.ID() == arrow.STRING && int64(len(x))*int64(rows) < maxConcatBytes {
			return broadcastString(mem, x, rows), nil // strcast.go
		}
	}
	b := array.NewBuilder(mem, at)
	defer b.Release()
	b.Reserve(rows)
	for i := 0; i < rows; i++ {
		if err := types.AppendValue(b, v, t); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// isNullLit reports a NULL literal.
func isNullLit(n node) bool {
	l, ok := n.(*litNode)
	return ok && l.v == nil
}

// ---- helpers ----

func anyCanFail(ns ...node) bool {
	for _, n := range ns {
		if n != nil && n.canFail() {
			return true
		}
	}
	return false
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// allRows returns 0..n-1.
func allRows(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// evalRows evaluates nd on the rows of rec listed in rows (ascending). If
// full is true the result has one value per row of rec (row r at index r);
// otherwise one per entry of rows (row rows[k] at index k). Nodes that
// cannot fail are evaluated on the whole batch (cheaper than gathering);
// the others only on the listed rows, so skipped rows never raise errors.
func evalRows(nd node, rec arrow.RecordBatch, rows []int32) (a arrow.Array, full bool, err error) {
	if !nd.canFail() || len(rows) == int(rec.NumRows()) {
		a, err = nd.eval(rec, scratch)
		return a, true, err
	}
	if len(rows) == 0 {
		at, err := types.ArrowType(nd.typ())
		if err != nil {
			return nil, false, err
		}
		return array.MakeArrayOfNull(scratch, at, 0), false, nil
	}
	sub, err := Take(rec, rows)
	if err != nil {
		return nil, false, err
	}
	defer sub.Release()
	a, err = nd.eval(sub, scratch)
	return a, false, err
}

// Every kernel is a node; the selectors also implement rowSelector.
var (
	_ node        = (*colNode)(nil)
	_ node        = (*litNode)(nil)
	_ node        = (*callNode)(nil)
	_ node        = (*castNode)(nil)
	_ node        = (*numCastNode)(nil)
	_ node        = (*arithNode)(nil)
	_ node        = (*decArithNode)(nil)
	_ node        = (*cmpNode)(nil)
	_ node        = (*logicNode)(nil)
	_ node        = (*notNode)(nil)
	_ node        = (*isNode)(nil)
	_ node        = (*caseNode)(nil)
	_ node        = (*coalesceNode)(nil)
	_ node        = (*inNode)(nil)
	_ node        = (*likeNode)(nil)
	_ node        = (*caseConvNode)(nil)
	_ node        = (*concatNode)(nil)
	_ node        = (*substrNode)(nil)
	_ node        = (*intToStrNode)(nil)
	_ node        = (*fieldNode)(nil)
	_ rowSelector = (*cmpNode)(nil)
	_ rowSelector = (*logicNode)(nil)
)
