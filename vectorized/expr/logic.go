package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// boolBits returns the value and validity bitmaps of a BOOLEAN (or NULL)
// array at offset 0 (copies when the array is sliced). valid is nil when
// no row is NULL.
func boolBits(a arrow.Array, n int) (val, valid []byte) {
	nb := int(bitutil.BytesForBits(int64(n)))
	if a.DataType().ID() == arrow.NULL {
		return make([]byte, nb), make([]byte, nb)
	}
	d := a.Data()
	off := d.Offset()
	vb := d.Buffers()[1].Bytes()
	if off == 0 {
		val = vb[:nb]
	} else {
		val = make([]byte, nb)
		bitutil.CopyBitmap(vb, off, n, val, 0)
	}
	if a.NullN() > 0 {
		if d.Buffers()[0] == nil {
			valid = make([]byte, nb)
		} else if off == 0 {
			valid = d.Buffers()[0].Bytes()[:nb]
		} else {
			valid = make([]byte, nb)
			bitutil.CopyBitmap(d.Buffers()[0].Bytes(), off, n, valid, 0)
		}
	}
	return val, valid
}

// boolArray wraps value and validity bitmaps (copied) into a BOOLEAN array.
func boolArray(mem memory.Allocator, n int, val, valid []byte) arrow.Array {
	vbuf, vb := newBits(mem, n)
	copy(vb, val)
	var vld *memory.Buffer
	nulls := 0
	if valid != nil {
		var lb []byte
		vld, lb = newBits(mem, n)
		copy(lb, valid)
		nulls = n - bitutil.CountSetBits(lb, 0, n)
		if nulls == 0 {
			vld.Release()
			vld = nil
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, vld, nulls, []*memory.Buffer{vbuf}, nil)
}

// ---- AND / OR ----

type logicNode struct {
	and  bool
	args []node
	t    types.Type
}

func newLogic(and bool, args []node, t types.Type) node {
	return &logicNode{and: and, args: args, t: t}
}

func (n *logicNode) typ() types.Type { return n.t }
func (n *logicNode) canFail() bool   { return anyCanFail(n.args...) }

func (n *logicNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	nb := int(bitutil.BytesForBits(int64(rows)))
	first, err := n.args[0].eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	av, aValid := boolBits(first, rows)
	// Own copies, as they are updated in place.
	val := append([]byte(nil), av...)
	var valid []byte
	if aValid != nil {
		valid = append([]byte(nil), aValid...)
	}
	first.Release()
	for _, arg := range n.args[1:] {
		var b arrow.Array
		if arg.canFail() {
			// Rows not yet decided: AND needs rows that are not FALSE, OR
			// rows that are not TRUE.
			var need []int32
			for i := 0; i < rows; i++ {
				isValid := valid == nil || bitutil.BitIsSet(valid, i)
				v := bitutil.BitIsSet(val, i)
				if !isValid || v == n.and {
					need = append(need, int32(i))
				}
			}
			if len(need) == 0 {
				continue
			}
			part, full, err := evalRows(arg, rec, need)
			if err != nil {
				return nil, err
			}
			if full {
				b = part
			} else {
				b, err = scatter(mem, part, need, rows)
				part.Release()
				if err != nil {
					return nil, err
				}
			}
		} else {
			b, err = arg.eval(rec, scratch)
			if err != nil {
				return nil, err
			}
		}
		bv, bValid := boolBits(b, rows)
		if valid == nil && bValid != nil {
			valid = make([]byte, nb)
			for i := range valid {
				valid[i] = 0xff
			}
		}
		for i := 0; i < nb; i++ {
			aVd, bVd := byte(0xff), byte(0xff)
			if valid != nil {
				aVd = valid[i]
			}
			if bValid != nil {
				bVd = bValid[i]
			}
			aT, aF := val[i]&aVd, ^val[i]&aVd
			bT, bF := bv[i]&bVd, ^bv[i]&bVd
			var rT, rF byte
			if n.and {
				rT, rF = aT&bT, aF|bF
			} else {
				rT, rF = aT|bT, aF&bF
			}
			val[i] = rT
			if valid != nil {
				valid[i] = rT | rF
			}
		}
		b.Release()
	}
	return boolArray(mem, rows, val, valid), nil
}

// scatter spreads part (one value per entry of rows) over a full-length
// array of n rows; other rows are NULL.
func scatter(mem memory.Allocator, part arrow.Array, rows []int32, n int) (arrow.Array, error) {
	src := make([]int16, n)
	idx := make([]int32, n)
	for i := range src {
		src[i] = -1
	}
	for k, r := range rows {
		src[r] = 0
		idx[r] = int32(k)
	}
	return gather(mem, part.DataType(), []arrow.Array{part}, src, idx)
}

// ---- NOT ----

type notNode struct {
	arg node
	t   types.Type
}

func (n *notNode) typ() types.Type { return n.t }
func (n *notNode) canFail() bool   { return n.arg.canFail() }

func (n *notNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	v, valid := boolBits(a, rows)
	out := make([]byte, len(v))
	for i := range v {
		out[i] = ^v[i]
	}
	return boolArray(mem, rows, out, valid), nil
}

// ---- IS [NOT] NULL / TRUE / FALSE ----

type isNode struct {
	op  string
	arg node
	t   types.Type
}

func (n *isNode) typ() types.Type { return n.t }
func (n *isNode) canFail() bool   { return n.arg.canFail() }

func (n *isNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	nb := int(bitutil.BytesForBits(int64(rows)))
	valid := make([]byte, nb)
	if a.NullN() == 0 {
		for i := range valid {
			valid[i] = 0xff
		}
	} else if a.NullN() < a.Len() && a.Data().Buffers()[0] != nil {
		bitutil.CopyBitmap(a.Data().Buffers()[0].Bytes(), a.Data().Offset(), rows, valid, 0)
	}
	out := make([]byte, nb)
	switch n.op {
	case "IS NULL":
		for i := range out {
			out[i] = ^valid[i]
		}
	case "IS NOT NULL":
		copy(out, valid)
	default:
		v, _ := boolBits(a, rows)
		for i := range out {
			t, f := v[i]&valid[i], ^v[i]&valid[i]
			switch n.op {
			case "IS TRUE":
				out[i] = t
			case "IS NOT TRUE":
				out[i] = ^t
			case "IS FALSE":
				out[i] = f
			case "IS NOT FALSE":
				out[i] = ^f
			}
		}
	}
	return boolArray(mem, rows, out, nil), nil
}

// ---- CASE and COALESCE ----

type caseNode struct {
	conds, thens []node
	els          node // nil: ELSE NULL
	t            types.Type
	at           arrow.DataType
}

func (c *compiler) compileCase(x *logical.Case) (node, error) {
	at, err := types.ArrowType(x.T)
	if err != nil {
		return nil, err
	}
	n := &caseNode{t: x.T, at: at}
	for _, w := range x.Whens {
		cn, err := c.compile(w.Cond)
		if err != nil {
			return nil, err
		}
		tn, err := c.compile(w.Then)
		if err != nil {
			return nil, err
		}
		if tn, err = c.coerce(tn, x.T); err != nil {
			return nil, err
		}
		n.conds = append(n.conds, cn)
		n.thens = append(n.thens, tn)
	}
	if x.Else != nil {
		en, err := c.compile(x.Else)
		if err != nil {
			return nil, err
		}
		if en, err = c.coerce(en, x.T); err != nil {
			return nil, err
		}
		n.els = en
	}
	return n, nil
}

func (n *caseNode) typ() types.Type { return n.t }
func (n *caseNode) canFail() bool {
	return anyCanFail(n.conds...) || anyCanFail(n.thens...) || anyCanFail(n.els)
}

// branchSet collects branch results for the final gather.
type branchSet struct {
	srcs   []arrow.Array
	srcIdx []int16
	rowIdx []int32
}

func newBranchSet(rows int) *branchSet {
	b := &branchSet{srcIdx: make([]int16, rows), rowIdx: make([]int32, rows)}
	for i := range b.srcIdx {
		b.srcIdx[i] = -1
	}
	return b
}

// add records that rows (ascending) take their values from a, which holds
// either one value per row of the batch (full) or one per entry of from.
func (b *branchSet) add(a arrow.Array, full bool, from, rows []int32) {
	s := int16(len(b.srcs))
	b.srcs = append(b.srcs, a)
	if full {
		for _, r := range rows {
			b.srcIdx[r], b.rowIdx[r] = s, r
		}
		return
	}
	// Map each row to its position in from (both ascending).
	k := 0
	for _, r := range rows {
		for from[k] != r {
			k++
		}
		b.srcIdx[r], b.rowIdx[r] = s, int32(k)
	}
}

func (b *branchSet) release() { releaseAll(b.srcs) }

func (n *caseNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	remaining := allRows(rows)
	bs := newBranchSet(rows)
	defer bs.release()
	for k := range n.conds {
		if len(remaining) == 0 {
			break
		}
		ca, full, err := evalRows(n.conds[k], rec, remaining)
		if err != nil {
			return nil, err
		}
		var hit, miss []int32
		cb, isBool := ca.(*array.Boolean)
		for p, r := range remaining {
			i := p
			if full {
				i = int(r)
			}
			if isBool && cb.IsValid(i) && cb.Value(i) {
				hit = append(hit, r)
			} else {
				miss = append(miss, r)
			}
		}
		ca.Release()
		if len(hit) > 0 {
			ta, tfull, err := evalRows(n.thens[k], rec, hit)
			if err != nil {
				return nil, err
			}
			bs.add(ta, tfull, hit, hit)
		}
		remaining = miss
	}
	if n.els != nil && len(remaining) > 0 {
		ea, efull, err := evalRows(n.els, rec, remaining)
		if err != nil {
			return nil, err
		}
		bs.add(ea, efull, remaining, remaining)
	}
	if len(bs.srcs) == 0 {
		return array.MakeArrayOfNull(mem, n.at, rows), nil
	}
	return gather(mem, n.at, bs.srcs, bs.srcIdx, bs.rowIdx)
}

type coalesceNode struct {
	args []node
	t    types.Type
}

func (n *coalesceNode) typ() types.Type { return n.t }
func (n *coalesceNode) canFail() bool   { return anyCanFail(n.args...) }

func (n *coalesceNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	at, err := types.ArrowType(n.t)
	if err != nil {
		return nil, err
	}
	remaining := allRows(rows)
	bs := newBranchSet(rows)
	defer bs.release()
	for k, arg := range n.args {
		if len(remaining) == 0 {
			break
		}
		var a arrow.Array
		var full bool
		var err error
		if k == 0 {
			// The first argument is evaluated on every row, with the
			// result allocator: it is the result when it has no NULLs.
			a, err = arg.eval(rec, mem)
			if err == nil && a.NullN() == 0 {
				return a, nil
			}
			full = true
		} else {
			a, full, err = evalRows(arg, rec, remaining)
		}
		if err != nil {
			return nil, err
		}
		var hit, miss []int32
		for p, r := range remaining {
			i := p
			if full {
				i = int(r)
			}
			if a.IsValid(i) {
				hit = append(hit, r)
			} else {
				miss = append(miss, r)
			}
		}
		if len(hit) > 0 {
			bs.add(a, full, remaining, hit)
		} else {
			a.Release()
		}
		remaining = miss
	}
	if len(bs.srcs) == 0 {
		return array.MakeArrayOfNull(mem, at, rows), nil
	}
	return gather(mem, at, bs.srcs, bs.srcIdx, bs.rowIdx)
}

// ---- IN with constant items ----

type inNode struct {
	val     node
	items   []node
	t       types.Type
	ints    map[int64]struct{}
	strs    map[string]struct{}
	hasNull bool
}

func newIn(args []node, t types.Type) node {
	n := &inNode{val: args[0], items: args[1:], t: t}
	vt := args[0].typ()
	isInt := vt.IsInteger() || vt.Kind == types.Date || vt.Kind == types.Timestamp || vt.Kind == types.TimestampLTZ
	if !isInt && !vt.IsString() {
		return nil
	}
	for _, it := range n.items {
		l, ok := it.(*litNode)
		if !ok || (l.v != nil && physOf(l.t) != physOf(vt)) {
			return nil
		}
		if l.v == nil {
			n.hasNull = true
			continue
		}
		if isInt {
			if n.ints == nil {
				n.ints = map[int64]struct{}{}
			}
			i, ok := toInt64(l.v)
			if !ok {
				return nil
			}
			n.ints[i] = struct{}{}
		} else {
			if n.strs == nil {
				n.strs = map[string]struct{}{}
			}
			s, ok := l.v.(string)
			if !ok {
				return nil
			}
			n.strs[s] = struct{}{}
		}
	}
	if n.ints == nil && n.strs == nil && !n.hasNull {
		return nil
	}
	return n
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

func (n *inNode) typ() types.Type { return n.t }
func (n *inNode) canFail() bool   { return n.val.canFail() }

func (n *inNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.val.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	nb := int(bitutil.BytesForBits(int64(rows)))
	val := make([]byte, nb)
	valid := make([]byte, nb)
	lookup := func(i int) bool { return false }
	switch x := a.(type) {
	case *array.String:
		lookup = func(i int) bool { _, ok := n.strs[x.Value(i)]; return ok }
	case *array.Int8:
		lookup = func(i int) bool { _, ok := n.ints[int64(x.Value(i))]; return ok }
	case *array.Int16:
		lookup = func(i int) bool { _, ok := n.ints[int64(x.Value(i))]; return ok }
	case *array.Int32:
		lookup = func(i int) bool { _, ok := n.ints[int64(x.Value(i))]; return ok }
	case *array.Int64:
		lookup = func(i int) bool { _, ok := n.ints[x.Value(i)]; return ok }
	case *array.Date32:
		lookup = func(i int) bool { _, ok := n.ints[int64(x.Value(i))]; return ok }
	case *array.Timestamp:
		lookup = func(i int) bool { _, ok := n.ints[int64(x.Value(i))]; return ok }
	case *array.Null:
	default:
		return nil, fmt.Errorf("internal: IN kernel on %s", a.DataType())
	}
	for i := 0; i < rows; i++ {
		if a.IsNull(i) {
			continue
		}
		if lookup(i) {
			bitutil.SetBit(val, i)
			bitutil.SetBit(valid, i)
		} else if !n.hasNull {
			bitutil.SetBit(valid, i)
		}
	}
	return boolArray(mem, rows, val, valid), nil
}
