package expr

import (
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// ---- CAST(character string AS VARCHAR(n)) ----

// strCastNode casts a CHAR/VARCHAR value to VARCHAR(n): values longer than
// n characters are truncated (function.CastValue's fitString); a batch
// whose values all fit is returned as is. It cannot fail.
type strCastNode struct {
	arg node
	n   int // maximum characters
	to  types.Type
}

// newStrCast returns the kernel for a cast between character strings to
// VARCHAR, or nil.
func newStrCast(arg node, to types.Type) node {
	from := arg.typ()
	if to.Kind != types.VarChar || (from.Kind != types.VarChar && from.Kind != types.Char) {
		return nil
	}
	return &strCastNode{arg: arg, n: to.Precision, to: to}
}

func (n *strCastNode) typ() types.Type { return n.to }
func (n *strCastNode) canFail() bool   { return n.arg.canFail() }

func (n *strCastNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	a, err := n.arg.eval(rec, mem)
	if err != nil {
		return nil, err
	}
	s, ok := a.(*array.String)
	if !ok || n.n <= 0 || n.n >= types.MaxLength {
		return a, nil
	}
	rows := a.Len()
	fits := true
	for i := 0; i < rows && fits; i++ {
		// a value of at most n bytes has at most n characters
		if l := s.ValueLen(i); l > n.n && s.IsValid(i) && utf8.RuneCountInString(s.Value(i)) > n.n {
			fits = false
		}
	}
	if fits {
		return a, nil
	}
	defer a.Release()
	validity, nulls := validityOf(mem, rows, a)
	b := newStrBuilder(rows, len(s.ValueBytes()))
	for i := 0; i < rows; i++ {
		if s.IsValid(i) {
			v := s.Value(i)
			if len(v) > n.n {
				k, end := 0, len(v)
				for p := range v {
					if k == n.n {
						end = p
						break
					}
					k++
				}
				v = v[:end]
			}
			b.data = append(b.data, v...)
		}
		b.next()
	}
	return b.finish(mem, rows, validity, nulls), nil
}

var _ node = (*strCastNode)(nil)

// broadcastString builds a STRING array holding s rows times.
func broadcastString(mem memory.Allocator, s string, rows int) arrow.Array {
	offBuf, offs := newFixed[int32](mem, rows+1)
	for i := range offs {
		offs[i] = int32(i * len(s))
	}
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(rows * len(s))
	data := dataBuf.Bytes()
	for i := 0; i < rows; i++ {
		copy(data[i*len(s):], s)
	}
	return finish(arrow.BinaryTypes.String, rows, nil, 0, []*memory.Buffer{offBuf, dataBuf}, nil)
}
