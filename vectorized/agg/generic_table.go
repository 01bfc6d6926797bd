package agg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// colKind is how one key column is encoded into a row's key bytes.
type colKind uint8

const (
	kindFixed    colKind = iota // width bytes, little-endian as in Arrow
	kindFloat32                 // 4 bytes, canonical NaN
	kindFloat64                 // 8 bytes, canonical NaN
	kindBool                    // 1 byte
	kindVar                     // 4-byte length + bytes (int32 offsets)
	kindLargeVar                // 4-byte length + bytes (int64 offsets)
	kindNull                    // the NULL type: only the flag byte
)

// keyCodec describes one key column.
type keyCodec struct {
	typ   arrow.DataType
	kind  colKind
	width int
}

// genericTable is the GroupTable for any number of key columns of any
// supported type. Each row's key is encoded into a byte string (per column
// a validity byte, then the value: fixed-width bytes, or a length and the
// bytes for strings), hashed with maphash and compared byte-wise. Encoding
// is column-at-a-time into a reusable buffer, so rows cost no allocation.
type genericTable struct {
	cols []keyCodec
	seed maphash.Seed

	// slots hold (hash>>32)<<32 | (gid+1); 0 is empty. The high hash bits
	// reject most mismatches without touching the key arena.
	slots []uint64
	mask  uint64
	arena []byte // encoded keys of all groups, back to back
	offs  []int  // group g's key is arena[offs[g]:offs[g+1]]

	// scratch, reused across batches
	rows   []int32
	starts []int // row j's key is buf[starts[j]:starts[j+1]]
	cur    []int
	buf    []byte
}

var _ GroupTable = (*genericTable)(nil)

func newGenericTable(keyTypes []arrow.DataType) (*genericTable, error) {
	t := &genericTable{seed: maphash.MakeSeed(), offs: []int{0}}
	for _, typ := range keyTypes {
		c, err := codecFor(typ)
		if err != nil {
			return nil, err
		}
		t.cols = append(t.cols, c)
	}
	t.slots = make([]uint64, 1<<10)
	t.mask = uint64(len(t.slots) - 1)
	return t, nil
}

func codecFor(typ arrow.DataType) (keyCodec, error) {
	c := keyCodec{typ: typ}
	switch typ.ID() {
	case arrow.BOOL:
		c.kind = kindBool
	case arrow.FLOAT32:
		c.kind, c.width = kindFloat32, 4
	case arrow.FLOAT64:
		c.kind, c.width = kindFloat64, 8
	case arrow.STRING, arrow.BINARY:
		c.kind = kindVar
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		c.kind = kindLargeVar
	case arrow.NULL:
		c.kind = kindNull
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.FIXED_SIZE_BINARY, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME,
		arrow.INTERVAL_MONTH_DAY_NANO:
		c.kind, c.width = kindFixed, byteWidth(typ)
		if c.width == 0 {
			return c, fmt.Errorf("agg: group key of type %s: %w", typ, ErrNotSupported)
		}
	default:
		return c, fmt.Errorf("agg: group key of type %s: %w", typ, ErrNotSupported)
	}
	return c, nil
}

// Insert implements GroupTable.
func (t *genericTable) Insert(keys []arrow.Array, n int, groupIDs []uint32) error {
	if n < 0 || len(groupIDs) < n {
		return fmt.Errorf("agg: insert of %d rows with %d ids", n, len(groupIDs))
	}
	if cap(t.rows) < n {
		t.rows = make([]int32, n)
		for i := range t.rows {
			t.rows[i] = int32(i)
		}
	}
	return t.insertRows(keys, t.rows[:n], groupIDs)
}

// insertRows is Insert for the selected rows only: groupIDs[j] receives the
// group of row rows[j].
func (t *genericTable) insertRows(keys []arrow.Array, rows []int32, groupIDs []uint32) error {
	if len(keys) != len(t.cols) {
		return fmt.Errorf("agg: group table has %d key columns, got %d", len(t.cols), len(keys))
	}
	maxRow := int32(-1)
	for _, r := range rows {
		maxRow = max(maxRow, r)
	}
	for i, a := range keys {
		if !arrow.TypeEqual(a.DataType(), t.cols[i].typ) {
			return fmt.Errorf("agg: group key %d type %s, got %s", i, t.cols[i].typ, a.DataType())
		}
		if int(maxRow) >= a.Len() {
			return fmt.Errorf("agg: row %d beyond key column of %d rows", maxRow, a.Len())
		}
	}
	if len(t.offs)-1+len(rows) > maxGroups {
		return fmt.Errorf("%w: %d", ErrTooManyGroups, len(t.offs)-1+len(rows))
	}
	t.encode(keys, rows)
	buf, starts := t.buf, t.starts
	out := groupIDs[:len(rows)]
	for j := range rows {
		key := buf[starts[j]:starts[j+1]]
		h := maphash.Bytes(t.seed, key)
		tag := h &^ math.MaxUint32
		s := h & t.mask
		for {
			e := t.slots[s]
			if e == 0 {
				gid := uint32(len(t.offs) - 1)
				t.arena = append(t.arena, key...)
				t.offs = append(t.offs, len(t.arena))
				t.slots[s] = tag | uint64(gid+1)
				out[j] = gid
				t.reserve(0) // grow on demand; the loop re-reads slots
				break
			}
			if e&^math.MaxUint32 == tag {
				gid := uint32(e) - 1
				if bytes.Equal(t.arena[t.offs[gid]:t.offs[gid+1]], key) {
					out[j] = gid
					break
				}
			}
			s = (s + 1) & t.mask
		}
	}
	return nil
}

// reserve grows the slot array so that n more groups keep the load <= 1/2.
// Insert calls it after every new group (n = 0), so the table grows as it
// fills rather than ahead of a batch.
func (t *genericTable) reserve(n int) {
	need := len(t.offs) - 1 + n
	if need <= len(t.slots)/2 {
		return
	}
	c := len(t.slots)
	for need > c/2 {
		c *= 2
	}
	slots := make([]uint64, c)
	mask := uint64(c - 1)
	for g := 0; g+1 < len(t.offs); g++ {
		h := maphash.Bytes(t.seed, t.arena[t.offs[g]:t.offs[g+1]])
		s := h & mask
		for slots[s] != 0 {
			s = (s + 1) & mask
		}
		slots[s] = h&^math.MaxUint32 | uint64(g+1)
	}
	t.slots, t.mask = slots, mask
}

// validBits returns an array's validity bitmap and bit offset; bits is nil
// when the array has no nulls.
func validBits(a arrow.Array) (bits []byte, off int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	d := a.Data()
	if a.DataType().ID() == arrow.NULL {
		return []byte{}, 0
	}
	return d.Buffers()[0].Bytes(), d.Offset()
}

func isValid(bits []byte, off, i int) bool {
	return bits == nil || (len(bits) > 0 && bitutil.BitIsSet(bits, off+i))
}

// varCol gives direct access to the values of a string or binary array
// (int32 offsets, or int64 for the large types) without a type switch per
// row.
type varCol struct {
	large  bool
	offs32 []int32
	offs64 []int64
	data   []byte
}

func newVarCol(a arrow.Array, kind colKind) varCol {
	d := a.Data()
	bufs := d.Buffers()
	v := varCol{large: kind == kindLargeVar}
	if len(bufs) < 3 || d.Len() == 0 || bufs[1] == nil {
		return v
	}
	if bufs[2] != nil {
		v.data = bufs[2].Bytes()
	}
	ob := bufs[1].Bytes()
	lo, hi := d.Offset(), d.Offset()+d.Len()+1
	if v.large {
		v.offs64 = unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(ob))), len(ob)/8)[lo:hi]
	} else {
		v.offs32 = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(ob))), len(ob)/4)[lo:hi]
	}
	return v
}

// value returns the bytes of row r (0-based within the array).
func (v *varCol) value(r int) []byte {
	if v.large {
		return v.data[v.offs64[r]:v.offs64[r+1]]
	}
	return v.data[v.offs32[r]:v.offs32[r+1]]
}

// encode writes the key bytes of the selected rows into t.buf.
func (t *genericTable) encode(keys []arrow.Array, rows []int32) {
	n := len(rows)
	if cap(t.starts) < n+1 {
		t.starts = make([]int, n+1)
		t.cur = make([]int, n)
	}
	starts, cur := t.starts[:n+1], t.cur[:n]
	clear(cur) // cur holds row lengths during the first pass
	for ci, a := range keys {
		c := t.cols[ci]
		bits, off := validBits(a)
		switch c.kind {
		case kindVar, kindLargeVar:
			vc := newVarCol(a, c.kind)
			for j, r := range rows {
				if isValid(bits, off, int(r)) {
					cur[j] += 5 + len(vc.value(int(r)))
				} else {
					cur[j]++
				}
			}
			continue
		}
		w := c.width
		if c.kind == kindBool {
			w = 1
		}
		if bits == nil {
			for j := range rows {
				cur[j] += 1 + w
			}
			continue
		}
		for j, r := range rows {
			cur[j]++
			if isValid(bits, off, int(r)) {
				cur[j] += w
			}
		}
	}
	total := 0
	for j := range cur {
		starts[j] = total
		total += cur[j]
		cur[j] = starts[j]
	}
	starts[n] = total
	if cap(t.buf) < total {
		t.buf = make([]byte, total)
	}
	buf := t.buf[:total]
	for ci, a := range keys {
		c := t.cols[ci]
		bits, off := validBits(a)
		var fixed []byte
		var bools *array.Boolean
		var vc varCol
		switch c.kind {
		case kindVar, kindLargeVar:
			vc = newVarCol(a, c.kind)
		case kindFixed, kindFloat32, kindFloat64:
			d := a.Data()
			if b := d.Buffers()[1]; b != nil {
				fixed = b.Bytes()[d.Offset()*c.width:]
			}
		case kindBool:
			bools, _ = a.(*array.Boolean)
		}
		// One loop per kind and width keeps the per-row work a fixed-size
		// load and store (a generic copy was 60% of encode's time).
		w := c.width
		switch {
		case c.kind == kindFixed && w == 8:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					binary.LittleEndian.PutUint64(buf[p:], binary.LittleEndian.Uint64(fixed[int(r)*8:]))
					cur[j] = p + 8
				}
			}
		case c.kind == kindFixed && w == 4:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					binary.LittleEndian.PutUint32(buf[p:], binary.LittleEndian.Uint32(fixed[int(r)*4:]))
					cur[j] = p + 4
				}
			}
		case c.kind == kindFixed:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					cur[j] = p + copy(buf[p:p+w], fixed[int(r)*w:])
				}
			}
		case c.kind == kindFloat64:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					v := math.Float64frombits(binary.LittleEndian.Uint64(fixed[int(r)*8:]))
					binary.LittleEndian.PutUint64(buf[p:], canonFloat64(v))
					cur[j] = p + 8
				}
			}
		case c.kind == kindFloat32:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					v := math.Float32frombits(binary.LittleEndian.Uint32(fixed[int(r)*4:]))
					binary.LittleEndian.PutUint32(buf[p:], canonFloat32(v))
					cur[j] = p + 4
				}
			}
		case c.kind == kindBool:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					buf[p] = 0
					if bools != nil && bools.Value(int(r)) {
						buf[p] = 1
					}
					cur[j] = p + 1
				}
			}
		case c.kind == kindVar || c.kind == kindLargeVar:
			for j, r := range rows {
				if p, ok := putFlag(buf, cur, j, bits, off, int(r)); ok {
					v := vc.value(int(r))
					binary.LittleEndian.PutUint32(buf[p:], uint32(len(v)))
					cur[j] = p + 4 + copy(buf[p+4:], v)
				}
			}
		default: // kindNull
			for j, r := range rows {
				putFlag(buf, cur, j, bits, off, int(r))
			}
		}
	}
	t.buf = buf
}

// putFlag writes row r's validity byte at cur[j] and returns where its
// value goes and whether it has one; for a NULL it advances cur[j] itself.
func putFlag(buf []byte, cur []int, j int, bits []byte, off, r int) (int, bool) {
	p := cur[j]
	if !isValid(bits, off, r) {
		buf[p] = 0
		cur[j] = p + 1
		return 0, false
	}
	buf[p] = 1
	return p + 1, true
}

// Len implements GroupTable.
func (t *genericTable) Len() int { return len(t.offs) - 1 }

// SizeBytes implements GroupTable.
func (t *genericTable) SizeBytes() int64 {
	return int64(len(t.slots))*8 + int64(cap(t.arena)) + int64(cap(t.offs))*8 +
		int64(cap(t.buf)) + int64(cap(t.starts)+cap(t.cur))*8 + int64(cap(t.rows))*4
}

// Keys implements GroupTable.
func (t *genericTable) Keys(mem memory.Allocator) []arrow.Array {
	n := t.Len()
	pos := make([]int, n)
	copy(pos, t.offs[:n])
	out := make([]arrow.Array, len(t.cols))
	valid := make([]bool, n)
	for ci, c := range t.cols {
		for g := range n {
			valid[g] = t.arena[pos[g]] == 1
			pos[g]++
		}
		out[ci] = t.decodeColumn(mem, c, pos, valid)
	}
	return out
}

// decodeColumn reads one column's values at pos (advancing pos) and builds
// its array.
func (t *genericTable) decodeColumn(mem memory.Allocator, c keyCodec, pos []int, valid []bool) arrow.Array {
	n := len(pos)
	arena := t.arena
	switch c.kind {
	case kindNull:
		return array.NewNull(n)
	case kindBool:
		data := memory.NewResizableBuffer(mem)
		data.Resize((n + 7) / 8)
		bits := data.Bytes()
		clear(bits)
		for g := range n {
			if valid[g] {
				if arena[pos[g]] == 1 {
					bitutil.SetBit(bits, g)
				}
				pos[g]++
			}
		}
		return buildWith(mem, c.typ, n, valid, data)
	case kindVar, kindLargeVar:
		offW := 4
		if c.kind == kindLargeVar {
			offW = 8
		}
		offsets := memory.NewResizableBuffer(mem)
		offsets.Resize((n + 1) * offW)
		ob := offsets.Bytes()
		var vals []byte
		for g := range n {
			if offW == 4 {
				binary.LittleEndian.PutUint32(ob[g*4:], uint32(len(vals)))
			} else {
				binary.LittleEndian.PutUint64(ob[g*8:], uint64(len(vals)))
			}
			if !valid[g] {
				continue
			}
			l := int(binary.LittleEndian.Uint32(arena[pos[g]:]))
			vals = append(vals, arena[pos[g]+4:pos[g]+4+l]...)
			pos[g] += 4 + l
		}
		if offW == 4 {
			binary.LittleEndian.PutUint32(ob[n*4:], uint32(len(vals)))
		} else {
			binary.LittleEndian.PutUint64(ob[n*8:], uint64(len(vals)))
		}
		data := memory.NewResizableBuffer(mem)
		data.Resize(len(vals))
		copy(data.Bytes(), vals)
		nullBuf, nulls := validityBuffer(mem, valid, n)
		arr := arrayData(c.typ, n, []*memory.Buffer{nullBuf, offsets, data}, nulls)
		offsets.Release()
		data.Release()
		if nullBuf != nil {
			nullBuf.Release()
		}
		return arr
	default:
		data := memory.NewResizableBuffer(mem)
		data.Resize(n * c.width)
		b := data.Bytes()
		clear(b)
		for g := range n {
			if valid[g] {
				copy(b[g*c.width:(g+1)*c.width], arena[pos[g]:])
				pos[g] += c.width
			}
		}
		return buildWith(mem, c.typ, n, valid, data)
	}
}

// buildWith makes a two-buffer (validity, data) array and releases data.
func buildWith(mem memory.Allocator, typ arrow.DataType, n int, valid []bool, data *memory.Buffer) arrow.Array {
	nullBuf, nulls := validityBuffer(mem, valid, n)
	arr := arrayData(typ, n, []*memory.Buffer{nullBuf, data}, nulls)
	data.Release()
	if nullBuf != nil {
		nullBuf.Release()
	}
	return arr
}
