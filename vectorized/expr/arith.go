package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type number interface {
	integer | ~float32 | ~float64
}

// numValues returns the values of a fixed-width array as []T (offset
// applied); nil for an empty array.
func numValues[T arrow.FixedWidthType](a arrow.Array) []T {
	d := a.Data()
	b := d.Buffers()[1]
	if b == nil || b.Len() == 0 || d.Len() == 0 {
		return nil
	}
	return arrow.GetData[T](b.Bytes())[d.Offset() : d.Offset()+d.Len()]
}

// validityOf returns a validity bitmap for the rows of the arrays (AND of
// their bitmaps) at offset 0, or nil when no row is NULL, and the NULL
// count. The caller owns the buffer.
func validityOf(mem memory.Allocator, n int, arrs ...arrow.Array) (*memory.Buffer, int) {
	var out *memory.Buffer
	for _, a := range arrs {
		if a == nil || a.NullN() == 0 {
			continue
		}
		d := a.Data()
		if a.NullN() == a.Len() || d.Buffers()[0] == nil {
			// All NULL (possibly a Null-typed array without a bitmap).
			if out == nil {
				out = memory.NewResizableBuffer(mem)
				out.Resize(int(bitutil.BytesForBits(int64(n))))
			}
			clear(out.Bytes())
			continue
		}
		bm := d.Buffers()[0].Bytes()
		if out == nil {
			out = memory.NewResizableBuffer(mem)
			out.Resize(int(bitutil.BytesForBits(int64(n))))
			bitutil.CopyBitmap(bm, d.Offset(), n, out.Bytes(), 0)
			continue
		}
		bitutil.BitmapAnd(out.Bytes(), bm, 0, int64(d.Offset()), out.Bytes(), 0, int64(n))
	}
	if out == nil {
		return nil, 0
	}
	return out, n - bitutil.CountSetBits(out.Bytes(), 0, n)
}

// newFixed allocates a value buffer of n elements of T.
func newFixed[T arrow.FixedWidthType](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero T
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(sizeOf(zero)))
	if n == 0 {
		return buf, nil
	}
	return buf, arrow.GetData[T](buf.Bytes())[:n]
}

func sizeOf(v any) int {
	switch v.(type) {
	case int8, uint8:
		return 1
	case int16, uint16:
		return 2
	case int32, uint32, float32, arrow.Date32, arrow.Time32, arrow.MonthInterval:
		return 4
	}
	return 8
}

type arithNode struct {
	op   string
	a, b node
	t    types.Type
	at   arrow.DataType
}

// newArith returns a kernel for integer/float arithmetic whose operands
// already have the result type, or nil.
func newArith(op string, a, b node, t types.Type) node {
	k := t.Kind
	if !(t.IsInteger() || t.IsApprox()) {
		return nil
	}
	if (a.typ().Kind != k && !isNullLit(a)) || (b.typ().Kind != k && !isNullLit(b)) {
		return nil
	}
	at, err := types.ArrowType(t)
	if err != nil {
		return nil
	}
	return &arithNode{op: op, a: a, b: b, t: t, at: at}
}

func (n *arithNode) typ() types.Type { return n.t }
func (n *arithNode) canFail() bool {
	return (n.t.IsInteger() && (n.op == "/" || n.op == "MOD") && !nonZeroIntLit(n.b)) || anyCanFail(n.a, n.b)
}

// nonZeroIntLit reports whether nd is an integer literal other than 0 or
// NULL (a divisor that cannot fail).
func nonZeroIntLit(nd node) bool {
	v, ok := intLit(nd)
	return ok && v != 0
}

func (n *arithNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	if isNullLit(n.a) || isNullLit(n.b) {
		// Still evaluate the other side for its errors.
		for _, x := range []node{n.a, n.b} {
			if !isNullLit(x) {
				arr, err := x.eval(rec, scratch)
				if err != nil {
					return nil, err
				}
				arr.Release()
			}
		}
		return array.MakeArrayOfNull(mem, n.at, rows), nil
	}
	switch n.t.Kind {
	case types.TinyInt:
		return arithEval[int8](n, rec, rows, mem)
	case types.SmallInt:
		return arithEval[int16](n, rec, rows, mem)
	case types.Int:
		return arithEval[int32](n, rec, rows, mem)
	case types.BigInt:
		return arithEval[int64](n, rec, rows, mem)
	case types.Float:
		return arithEval[float32](n, rec, rows, mem)
	}
	return arithEval[float64](n, rec, rows, mem)
}

func litValue[T number](n node) (T, bool) {
	l, ok := n.(*litNode)
	if !ok || l.v == nil {
		var z T
		return z, false
	}
	switch v := l.v.(type) {
	case int8:
		return T(v), true
	case int16:
		return T(v), true
	case int32:
		return T(v), true
	case int64:
		return T(v), true
	case float32:
		return T(v), true
	case float64:
		return T(v), true
	}
	var z T
	return z, false
}

func arithEval[T number](n *arithNode, rec arrow.RecordBatch, rows int, mem memory.Allocator) (arrow.Array, error) {
	isInt := n.t.IsInteger()
	var xa, ya arrow.Array
	xs, xConst := litValue[T](n.a)
	ys, yConst := litValue[T](n.b)
	var err error
	if !xConst {
		if xa, err = n.a.eval(rec, scratch); err != nil {
			return nil, err
		}
		defer xa.Release()
	}
	if !yConst {
		if ya, err = n.b.eval(rec, scratch); err != nil {
			return nil, err
		}
		defer ya.Release()
	}
	validity, nulls := validityOf(mem, rows, xa, ya)
	buf, out := newFixed[T](mem, rows)
	var x, y []T
	if xa != nil {
		x = numValues[T](xa)
	}
	if ya != nil {
		y = numValues[T](ya)
	}
	if rows > 0 {
		if isInt && (n.op == "/" || n.op == "MOD") {
			if err := checkZero(y, ys, yConst, validity, rows); err != nil {
				buf.Release()
				if validity != nil {
					validity.Release()
				}
				return nil, err
			}
		}
		switch {
		case xConst && yConst:
			v := arithScalar(n.op, xs, ys, isInt)
			for i := range out {
				out[i] = v
			}
		case yConst:
			arithVS(n.op, x, ys, out, isInt)
		case xConst:
			arithSV(n.op, xs, y, out, isInt)
		default:
			arithVV(n.op, x, y, out, isInt)
		}
	}
	return finish(n.at, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

// checkZero fails with "/ by zero" when a valid divisor row is 0.
func checkZero[T number](y []T, ys T, yConst bool, validity *memory.Buffer, rows int) error {
	if yConst {
		if ys == 0 {
			if validity == nil || bitutil.CountSetBits(validity.Bytes(), 0, rows) > 0 {
				return function.ErrDivideByZero
			}
		}
		return nil
	}
	for i, v := range y {
		if v == 0 && (validity == nil || bitutil.BitIsSet(validity.Bytes(), i)) {
			return function.ErrDivideByZero
		}
	}
	return nil
}

func arithScalar[T number](op string, x, y T, isInt bool) T {
	var out [1]T
	arithVV(op, []T{x}, []T{y}, out[:], isInt)
	return out[0]
}

// divInt divides integers without trapping (0 divisors only occur on NULL
// rows, whose value is ignored).
func divInt[T number](x, y T) T {
	if y == 0 {
		return 0
	}
	return x / y
}

func modNum[T number](x, y T, isInt bool) T {
	if isInt {
		if y == 0 {
			return 0
		}
		return T(int64(x) % int64(y))
	}
	return T(math.Mod(float64(x), float64(y)))
}

func arithVV[T number](op string, x, y, out []T, isInt bool) {
	out = out[:len(x)]
	y = y[:len(x)]
	switch op {
	case "+":
		for i := range out {
			out[i] = x[i] + y[i]
		}
	case "-":
		for i := range out {
			out[i] = x[i] - y[i]
		}
	case "*":
		for i := range out {
			out[i] = x[i] * y[i]
		}
	case "/":
		if isInt {
			for i := range out {
				out[i] = divInt(x[i], y[i])
			}
		} else {
			for i := range out {
				out[i] = x[i] / y[i]
			}
		}
	case "MOD":
		for i := range out {
			out[i] = modNum(x[i], y[i], isInt)
		}
	}
}

func arithVS[T number](op string, x []T, y T, out []T, isInt bool) {
	out = out[:len(x)]
	switch op {
	case "+":
		for i := range out {
			out[i] = x[i] + y
		}
	case "-":
		for i := range out {
			out[i] = x[i] - y
		}
	case "*":
		for i := range out {
			out[i] = x[i] * y
		}
	case "/":
		if isInt {
			if y == 0 {
				clear(out)
				return
			}
			for i := range out {
				out[i] = x[i] / y
			}
		} else {
			for i := range out {
				out[i] = x[i] / y
			}
		}
	case "MOD":
		if isInt && y != 0 {
			modConst(x, int64(y), out)
			return
		}
		for i := range out {
			out[i] = modNum(x[i], y, isInt)
		}
	}
}

// modConst writes x[i] % d (Java's sign: that of x[i]) for a constant
// d != 0 without a hardware division per row: |x| mod |d| by the
// round-up multiplicative inverse (Granlund and Montgomery, "Division by
// invariant integers using multiplication", 1994), or a mask for a power
// of two.
func modConst[T number](x []T, d int64, out []T) {
	ud := uint64(d)
	if d < 0 {
		ud = -ud
	}
	out = out[:len(x)]
	if ud&(ud-1) == 0 { // a power of two, 1 included
		mask := ud - 1
		for i, v := range x {
			n := int64(v)
			u := uint64(n)
			if n < 0 {
				u = -u
			}
			r := int64(u & mask)
			if n < 0 {
				r = -r
			}
			out[i] = T(r)
		}
		return
	}
	l := uint(bits.Len64(ud - 1)) // ceil(log2 ud), 2 <= l <= 64
	var hi uint64
	if l < 64 {
		hi = uint64(1)<<l - ud
	} else {
		hi = -ud
	}
	m, _ := bits.Div64(hi, 0, ud)
	m++
	for i, v := range x {
		n := int64(v)
		u := uint64(n)
		if n < 0 {
			u = -u
		}
		t, _ := bits.Mul64(m, u)
		q := (t + (u-t)>>1) >> (l - 1)
		r := int64(u - q*ud)
		if n < 0 {
			r = -r
		}
		out[i] = T(r)
	}
}

func arithSV[T number](op string, x T, y []T, out []T, isInt bool) {
	out = out[:len(y)]
	switch op {
	case "+":
		for i := range out {
			out[i] = x + y[i]
		}
	case "-":
		for i := range out {
			out[i] = x - y[i]
		}
	case "*":
		for i := range out {
			out[i] = x * y[i]
		}
	case "/":
		if isInt {
			for i := range out {
				out[i] = divInt(x, y[i])
			}
		} else {
			for i := range out {
				out[i] = x / y[i]
			}
		}
	case "MOD":
		for i := range out {
			out[i] = modNum(x, y[i], isInt)
		}
	}
}

// ---- numeric casts ----

type numCastNode struct {
	arg      node
	from, to types.Type
	at       arrow.DataType
}

// newNumCast returns a kernel for casts among TINYINT..BIGINT, FLOAT and
// DOUBLE, or nil.
func newNumCast(arg node, to types.Type) node {
	from := arg.typ()
	ok := func(t types.Type) bool { return t.IsInteger() || t.IsApprox() }
	if !ok(from) || !ok(to) {
		return nil
	}
	at, err := types.ArrowType(to)
	if err != nil {
		return nil
	}
	return &numCastNode{arg: arg, from: from, to: to, at: at}
}

func (n *numCastNode) typ() types.Type { return n.to }
func (n *numCastNode) canFail() bool   { return n.arg.canFail() }

func (n *numCastNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	a, err := n.arg.eval(rec, mem) // may be returned as is
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if n.from.Kind == n.to.Kind {
		a.Retain()
		return a, nil
	}
	switch n.from.Kind {
	case types.TinyInt:
		return castFrom[int8](a, n, mem)
	case types.SmallInt:
		return castFrom[int16](a, n, mem)
	case types.Int:
		return castFrom[int32](a, n, mem)
	case types.BigInt:
		return castFrom[int64](a, n, mem)
	case types.Float:
		return castFrom[float32](a, n, mem)
	}
	return castFrom[float64](a, n, mem)
}

func castFrom[F number](a arrow.Array, n *numCastNode, mem memory.Allocator) (arrow.Array, error) {
	switch n.to.Kind {
	case types.TinyInt:
		return castTo[F, int8](a, n, mem)
	case types.SmallInt:
		return castTo[F, int16](a, n, mem)
	case types.Int:
		return castTo[F, int32](a, n, mem)
	case types.BigInt:
		return castTo[F, int64](a, n, mem)
	case types.Float:
		return castTo[F, float32](a, n, mem)
	}
	return castTo[F, float64](a, n, mem)
}

func castTo[F, T number](a arrow.Array, n *numCastNode, mem memory.Allocator) (arrow.Array, error) {
	rows := a.Len()
	validity, nulls := validityOf(mem, rows, a)
	buf, out := newFixed[T](mem, rows)
	in := numValues[F](a)
	if n.from.IsApprox() && n.to.IsInteger() {
		// Java semantics: NaN → 0, saturate to long/int, then narrow.
		for i, v := range in {
			f := float64(v)
			if n.to.Kind == types.BigInt {
				out[i] = T(javaF2L(f))
			} else {
				out[i] = T(javaF2I(f))
			}
		}
	} else {
		for i, v := range in {
			out[i] = T(v)
		}
	}
	return finish(n.at, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

func javaF2L(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func javaF2I(f float64) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}
