package expr

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// decMulNode multiplies DECIMALs (Nexmark q1: 0.908 * price). The product
// of operands that fit in 64 bits is computed in 128-bit arithmetic and
// rescaled to the result scale with HALF_UP rounding; a result that does
// not fit the result precision is NULL, as in the reference
// (function evalDecimalArith). Rows with larger operands run the
// reference implementation. An operand that is a lossless cast of an
// integer column to DECIMAL(p, 0) (the validator's cast of BIGINT) is read
// from the integer column directly.
type decMulNode struct {
	a, b   node // operands as compiled (for literals)
	xa, xb node // what is evaluated: the operand or the integer under its cast
	sa, sb int  // operand scales
	t      types.Type
	at     arrow.DataType
	up     uint64 // multiplier when the result scale exceeds sa+sb
	down   uint64 // divisor when it is lower
	bound  dec128 // 10^precision
	def    *function.Definition
	ct     function.CallTypes
	ctx    *function.EvalContext
}

// intDigits is the number of decimal digits of the largest integer of an
// integer type.
func intDigits(k types.Kind) int {
	switch k {
	case types.TinyInt:
		return 3
	case types.SmallInt:
		return 5
	case types.Int:
		return 10
	case types.BigInt:
		return 19
	}
	return 99
}

// decOperand returns what to evaluate for a DECIMAL operand, or nil.
func decOperand(n node) node {
	if n.typ().Kind != types.Decimal {
		return nil
	}
	if cn, ok := n.(*castNode); ok {
		ft := cn.arg.typ()
		if ft.IsInteger() && cn.to.Scale == 0 && cn.to.Precision >= intDigits(ft.Kind) {
			return cn.arg
		}
		return nil // other casts: generic
	}
	return n
}

func (c *compiler) newDecMul(x *logical.Call, args []node) node {
	t := x.T
	if t.Kind != types.Decimal || t.Precision > 38 || isNullLit(args[0]) || isNullLit(args[1]) {
		return nil
	}
	xa, xb := decOperand(args[0]), decOperand(args[1])
	if xa == nil || xb == nil {
		return nil
	}
	def, err := x.Definition()
	if err != nil || def.Eval == nil {
		return nil
	}
	sa, sb := args[0].typ().Scale, args[1].typ().Scale
	d := t.Scale - (sa + sb)
	if d > 19 || d < -19 {
		return nil
	}
	at, err := types.ArrowType(t)
	if err != nil {
		return nil
	}
	n := &decMulNode{a: args[0], b: args[1], xa: xa, xb: xb, sa: sa, sb: sb, t: t, at: at,
		up: 1, down: 1, def: def, ct: logical.CallTypesOf(x), ctx: c.ctx}
	if d > 0 {
		n.up = pow10u(d)
	} else if d < 0 {
		n.down = pow10u(-d)
	}
	bd := decimal128.GetScaleMultiplier(t.Precision)
	n.bound = dec128{lo: bd.LowBits(), hi: bd.HighBits()}
	return n
}

func (n *decMulNode) typ() types.Type { return n.t }
func (n *decMulNode) canFail() bool   { return anyCanFail(n.xa, n.xb) }

// operandValues returns the values of an operand as dec128 (unscaled), or
// the constant.
func operandValues(nd, x node, rec arrow.RecordBatch) (vals []dec128, c dec128, arr arrow.Array, err error) {
	if cv, ok := decLit(nd); ok {
		return nil, cv, nil, nil
	}
	arr, err = x.eval(rec, scratch)
	if err != nil {
		return nil, dec128{}, nil, err
	}
	switch a := arr.(type) {
	case *array.Decimal128:
		return decValues(a), dec128{}, arr, nil
	case *array.Int64:
		return intsToDec(a.Int64Values()), dec128{}, arr, nil
	case *array.Int32:
		return intsToDec(a.Int32Values()), dec128{}, arr, nil
	case *array.Int16:
		return intsToDec(a.Int16Values()), dec128{}, arr, nil
	case *array.Int8:
		return intsToDec(a.Int8Values()), dec128{}, arr, nil
	}
	arr.Release()
	return nil, dec128{}, nil, fmt.Errorf("internal: DECIMAL * on %s", arr.DataType())
}

func intsToDec[T int8 | int16 | int32 | int64](v []T) []dec128 {
	out := make([]dec128, len(v))
	for i, x := range v {
		out[i] = dec128{lo: uint64(int64(x)), hi: int64(x) >> 63}
	}
	return out
}

// mulFast returns x*y rescaled; ok false if an operand does not fit in
// 64 bits (slow path); fit false on overflow of the result precision.
func (n *decMulNode) mulFast(x, y dec128) (z dec128, ok, fit bool) {
	if x.hi != int64(x.lo)>>63 || y.hi != int64(y.lo)>>63 {
		return dec128{}, false, false
	}
	xi, yi := int64(x.lo), int64(y.lo)
	neg := (xi < 0) != (yi < 0)
	ux, uy := uint64(xi), uint64(yi)
	if xi < 0 {
		ux = -ux
	}
	if yi < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy) // < 2^126
	if n.down > 1 {
		qh, r1 := hi/n.down, hi%n.down
		ql, r := bits.Div64(r1, lo, n.down)
		if r >= n.down-r { // 2r >= d: HALF_UP (away from zero)
			var c uint64
			ql, c = bits.Add64(ql, 1, 0)
			qh += c
		}
		hi, lo = qh, ql
	}
	z = dec128{lo: lo, hi: int64(hi)}
	if n.up > 1 {
		var m bool
		if z, m = mulSmall(z, n.up); !m {
			return dec128{}, true, false
		}
	}
	if neg {
		z = neg128(z)
	}
	return z, true, fits(z, n.bound)
}

func (n *decMulNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	xv, xc, xa, err := operandValues(n.a, n.xa, rec)
	if err != nil {
		return nil, err
	}
	if xa != nil {
		defer xa.Release()
	}
	yv, yc, ya, err := operandValues(n.b, n.xb, rec)
	if err != nil {
		return nil, err
	}
	if ya != nil {
		defer ya.Release()
	}
	validity, nulls := validityOf(mem, rows, xa, ya)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(rows * 16)
	var out []dec128
	if rows > 0 {
		out = unsafe.Slice((*dec128)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), rows)
	}
	setNull := func(i int) {
		out[i] = dec128{}
		if validity == nil {
			validity = memory.NewResizableBuffer(mem)
			validity.Resize(int(bitutil.BytesForBits(int64(rows))))
			vb := validity.Bytes()
			for j := range vb {
				vb[j] = 0xff
			}
		}
		if bitutil.BitIsSet(validity.Bytes(), i) {
			bitutil.ClearBit(validity.Bytes(), i)
			nulls++
		}
	}
	for i := 0; i < rows; i++ {
		x, y := xc, yc
		if xv != nil {
			x = xv[i]
		}
		if yv != nil {
			y = yv[i]
		}
		z, ok, fit := n.mulFast(x, y)
		if ok {
			if fit {
				out[i] = z
			} else {
				setNull(i)
			}
			continue
		}
		if validity != nil && !bitutil.BitIsSet(validity.Bytes(), i) {
			out[i] = dec128{}
			continue
		}
		// Large operands: the reference implementation.
		v, err := n.def.Eval(n.ctx, n.ct, []any{
			decimal128.New(x.hi, x.lo), decimal128.New(y.hi, y.lo)})
		if err != nil {
			buf.Release()
			if validity != nil {
				validity.Release()
			}
			return nil, err
		}
		if d, ok := v.(decimal128.Num); ok {
			out[i] = dec128{lo: d.LowBits(), hi: d.HighBits()}
		} else {
			setNull(i)
		}
	}
	return finish(n.at, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}
