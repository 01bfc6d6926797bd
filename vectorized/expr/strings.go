package expr

import (
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// ---- LIKE with a constant pattern ----

type likeNode struct {
	arg node
	m   *function.LikeMatcher
	t   types.Type
}

func newLike(args []node, t types.Type) (node, error) {
	if !args[0].typ().IsString() {
		return nil, nil
	}
	pl, ok := args[1].(*litNode)
	if !ok {
		return nil, nil
	}
	esc := ""
	if len(args) > 2 {
		el, ok := args[2].(*litNode)
		if !ok {
			return nil, nil
		}
		if el.v == nil {
			return nil, nil
		}
		esc, _ = el.v.(string)
	}
	if pl.v == nil {
		return nil, nil
	}
	p, _ := pl.v.(string)
	m, err := function.CompileLike(p, esc)
	if err != nil {
		return nil, err
	}
	return &likeNode{arg: args[0], m: m, t: t}, nil
}

func (n *likeNode) typ() types.Type { return n.t }
func (n *likeNode) canFail() bool   { return n.arg.canFail() }

func (n *likeNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	validity, nulls := validityOf(mem, rows, a)
	buf, out := newBits(mem, rows)
	if s, ok := a.(*array.String); ok {
		for i := 0; i < rows; i++ {
			if n.m.Match(s.Value(i)) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

// ---- string building ----

// strBuilder accumulates a string array directly into buffers.
type strBuilder struct {
	offs []int32
	data []byte
}

func newStrBuilder(rows, hint int) *strBuilder {
	b := &strBuilder{offs: make([]int32, 1, rows+1), data: make([]byte, 0, hint)}
	return b
}

func (b *strBuilder) next() { b.offs = append(b.offs, int32(len(b.data))) }

func (b *strBuilder) finish(mem memory.Allocator, rows int, validity *memory.Buffer, nulls int) arrow.Array {
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize(len(b.offs) * 4)
	copy(arrow.GetData[int32](offBuf.Bytes()), b.offs)
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(len(b.data))
	copy(dataBuf.Bytes(), b.data)
	return finish(arrow.BinaryTypes.String, rows, validity, nulls, []*memory.Buffer{offBuf, dataBuf}, nil)
}

// ---- UPPER / LOWER ----

type caseConvNode struct {
	upper bool
	arg   node
	t     types.Type
}

func (n *caseConvNode) typ() types.Type { return n.t }
func (n *caseConvNode) canFail() bool   { return n.arg.canFail() }

func (n *caseConvNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	s, ok := a.(*array.String)
	if !ok {
		return array.MakeArrayOfNull(mem, arrow.BinaryTypes.String, rows), nil
	}
	validity, nulls := validityOf(mem, rows, a)
	b := newStrBuilder(rows, len(s.ValueBytes()))
	for i := 0; i < rows; i++ {
		if s.IsValid(i) {
			v := s.Value(i)
			ascii := true
			for j := 0; j < len(v); j++ {
				if v[j] >= utf8.RuneSelf {
					ascii = false
					break
				}
			}
			switch {
			case ascii && n.upper:
				for j := 0; j < len(v); j++ {
					c := v[j]
					if c >= 'a' && c <= 'z' {
						c -= 'a' - 'A'
					}
					b.data = append(b.data, c)
				}
			case ascii:
				for j := 0; j < len(v); j++ {
					c := v[j]
					if c >= 'A' && c <= 'Z' {
						c += 'a' - 'A'
					}
					b.data = append(b.data, c)
				}
			case n.upper:
				b.data = append(b.data, function.UpperFull(v)...)
			default:
				b.data = append(b.data, function.LowerFull(v)...)
			}
		}
		b.next()
	}
	return b.finish(mem, rows, validity, nulls), nil
}

// ---- CONCAT ----

type concatNode struct {
	args []node
	t    types.Type
}

func (n *concatNode) typ() types.Type { return n.t }
func (n *concatNode) canFail() bool   { return true } // result length limit

// maxConcatBytes caps one batch's concatenated output.
const maxConcatBytes = 1 << 30

func (n *concatNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	arrs := make([]arrow.Array, len(n.args))
	defer releaseAll(arrs)
	strs := make([]*array.String, len(n.args))
	total := 0
	for i, x := range n.args {
		a, err := x.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		arrs[i] = a
		if s, ok := a.(*array.String); ok {
			strs[i] = s
			total += len(s.ValueBytes())
		}
	}
	if total > maxConcatBytes {
		return nil, errTooLong
	}
	validity, nulls := validityOf(mem, rows, arrs...)
	b := newStrBuilder(rows, total)
	var vb []byte
	if validity != nil {
		vb = validity.Bytes()
	}
	for i := 0; i < rows; i++ {
		if vb == nil || bitutil.BitIsSet(vb, i) {
			for _, s := range strs {
				if s != nil {
					b.data = append(b.data, s.Value(i)...)
				}
			}
		}
		b.next()
	}
	return b.finish(mem, rows, validity, nulls), nil
}

var errTooLong = &tooLongError{}

type tooLongError struct{}

func (*tooLongError) Error() string { return "CONCAT: result string too long" }

// ---- SUBSTRING ----

type substrNode struct {
	args []node
	t    types.Type
}

func newSubstring(args []node, t types.Type) node {
	for _, a := range args[1:] {
		if !a.typ().IsInteger() && !isNullLit(a) {
			return nil
		}
	}
	return &substrNode{args: args, t: t}
}

func (n *substrNode) typ() types.Type { return n.t }
func (n *substrNode) canFail() bool   { return true } // negative length

func (n *substrNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	arrs := make([]arrow.Array, len(n.args))
	defer releaseAll(arrs)
	for i, x := range n.args {
		a, err := x.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		arrs[i] = a
	}
	validity, nulls := validityOf(mem, rows, arrs...)
	s, _ := arrs[0].(*array.String)
	if s == nil {
		if validity != nil {
			validity.Release()
		}
		return array.MakeArrayOfNull(mem, arrow.BinaryTypes.String, rows), nil
	}
	intAt := func(a arrow.Array, i int) int64 {
		switch x := a.(type) {
		case *array.Int8:
			return int64(x.Value(i))
		case *array.Int16:
			return int64(x.Value(i))
		case *array.Int32:
			return int64(x.Value(i))
		case *array.Int64:
			return x.Value(i)
		}
		return 0
	}
	var vb []byte
	if validity != nil {
		vb = validity.Bytes()
	}
	b := newStrBuilder(rows, len(s.ValueBytes()))
	for i := 0; i < rows; i++ {
		if vb == nil || bitutil.BitIsSet(vb, i) {
			pos := intAt(arrs[1], i)
			var ln int64
			hasLen := len(arrs) > 2
			if hasLen {
				ln = intAt(arrs[2], i)
				if ln < 0 {
					if validity != nil {
						validity.Release()
					}
					return nil, &substrError{ln}
				}
			}
			b.data = append(b.data, substr(s.Value(i), pos, ln, hasLen)...)
		}
		b.next()
	}
	return b.finish(mem, rows, validity, nulls), nil
}

type substrError struct{ n int64 }

func (e *substrError) Error() string {
	return "SUBSTRING: negative length " + itoa(e.n)
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// substr mirrors function's SUBSTRING: 1-based, negative positions count
// from the end, position 0 acts as 1.
func substr(s string, pos, n int64, hasLen bool) string {
	ascii := true
	for j := 0; j < len(s); j++ {
		if s[j] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var l int64
	if ascii {
		l = int64(len(s))
	} else {
		l = int64(utf8.RuneCountInString(s))
	}
	var from int64
	switch {
	case pos > 0:
		from = pos - 1
	case pos == 0:
		from = 0
	default:
		from = l + pos
		if from < 0 {
			if hasLen {
				n += from
			}
			from = 0
		}
	}
	if !hasLen || n > l {
		n = l
	}
	if from >= l || n <= 0 {
		return ""
	}
	end := from + n
	if end > l {
		end = l
	}
	if ascii {
		return s[from:end]
	}
	i := int64(0)
	start, stop := -1, len(s)
	for p := range s {
		if i == from {
			start = p
		}
		if i == end {
			stop = p
			break
		}
		i++
	}
	if start < 0 {
		return ""
	}
	return s[start:stop]
}

// ---- CAST(integer AS STRING) ----

type intToStrNode struct {
	arg node
	t   types.Type
}

// newIntToStr returns a kernel for casting an integer to a string type long
// enough for any value (20 characters), or nil.
func newIntToStr(arg node, to types.Type) node {
	if !arg.typ().IsInteger() || to.Kind != types.VarChar || to.Precision < 20 {
		return nil
	}
	return &intToStrNode{arg: arg, t: to}
}

func (n *intToStrNode) typ() types.Type { return n.t }
func (n *intToStrNode) canFail() bool   { return n.arg.canFail() }

func (n *intToStrNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	validity, nulls := validityOf(mem, rows, a)
	b := newStrBuilder(rows, rows*4)
	get := func(i int) int64 { return 0 }
	switch x := a.(type) {
	case *array.Int8:
		get = func(i int) int64 { return int64(x.Value(i)) }
	case *array.Int16:
		get = func(i int) int64 { return int64(x.Value(i)) }
	case *array.Int32:
		get = func(i int) int64 { return int64(x.Value(i)) }
	case *array.Int64:
		get = x.Value
	}
	for i := 0; i < rows; i++ {
		if a.IsValid(i) {
			b.data = strconv.AppendInt(b.data, get(i), 10)
		}
		b.next()
	}
	return b.finish(mem, rows, validity, nulls), nil
}
