package core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"runtime"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// View is the materialized current rows of a changelog, as Flink's SQL
// client keeps them in the table result mode: +I and +U add a row, -U and
// -D remove an equal row. It keeps only the current rows, never the
// changes, so it stays as large as the result however long the query
// runs. With a cap (maxRows > 0, Flink's
// sql-client.execution.max-table-result.rows) the oldest rows are dropped
// once there are more; Cut counts them so a client can say so. A View is
// not safe for concurrent use.
//
// The rows are stored compactly: each row is encoded (a type tag and the
// value's bytes, varints for integers) into one byte arena in arrival
// order, found again through an open-addressing hash index of 32-bit entry
// numbers. Nothing in the arena, the entries or the index is a Go pointer,
// so a view of a million rows costs the garbage collector nothing to scan
// and about 40–60 bytes a row (for a row of two integers). Rows are
// decoded back to canonical values only when read (First, Last, Rows): a
// client that shows a page of rows pays for that page, not for the view.
type View struct {
	maxRows int
	*viewStore
	head int // no live entry comes before head
	live int
	// boxed holds, by arena offset, the rows with a value the encoding
	// does not cover (not a canonical value); their encoding serves
	// equality only.
	boxed map[uint64]Row
	// pending counts -U changes not followed by their +U yet.
	pending int
	changes int64
	cut     int64
	scratch []byte
	seed    maphash.Seed
}

// viewStore is the view's memory outside the Go heap (ohSlice), freed
// when the View is collected.
type viewStore struct {
	// arena holds the encodings of the rows of entries, in order;
	// removed rows stay until the next compaction.
	arena   ohSlice[byte]
	entries ohSlice[viewEntry]
	// slots is the hash index: linear probing over entry numbers + 1 (0
	// is an empty slot); a row present several times has a slot per
	// entry. Its size is a power of two, at least twice live.
	slots ohSlice[uint32]
}

func (s *viewStore) free() {
	s.arena.free()
	s.entries.free()
	s.slots.free()
}

type viewEntry struct {
	off  uint64 // of the encoding in the arena
	n    uint32 // length of the encoding, with deadBit once removed
	hash uint32
}

const deadBit = 1 << 31

func (e viewEntry) dead() bool { return e.n&deadBit != 0 }

// Encoding headers: the whole row decodes from its bytes, or it is boxed.
const (
	rowEncoded = 'R'
	rowBoxed   = 'X'
)

// NewView returns an empty view that keeps at most maxRows rows (0: no
// cap).
func NewView(maxRows int) *View {
	v := &View{maxRows: maxRows, viewStore: &viewStore{}, seed: maphash.MakeSeed()}
	runtime.AddCleanup(v, (*viewStore).free, v.viewStore)
	return v
}

// Apply applies one change. A -U or -D of a row the view does not hold
// (it was cut, or never inserted) is ignored, as in Flink.
func (v *View) Apply(kind changelog.RowKind, row Row) {
	v.changes++
	switch kind {
	case changelog.UpdateBefore:
		v.pending++
	case changelog.UpdateAfter:
		if v.pending > 0 {
			v.pending--
		}
	}
	enc, boxed := encodeRow(v.scratch[:0], row)
	v.scratch = enc
	if len(enc) >= deadBit {
		panic("tablerun: a row of 2 GiB or more in a materialized view")
	}
	h := uint32(maphash.Bytes(v.seed, enc))
	switch kind {
	case changelog.Insert, changelog.UpdateAfter:
		v.add(enc, h, row, boxed)
	default:
		if i := v.find(enc, h); i >= 0 {
			v.remove(i)
		}
	}
	// the store outside the heap is freed when v is collected: v must
	// stay reachable while its memory is in use
	runtime.KeepAlive(v)
}

// ApplyBatch applies the changes of b in order.
func (v *View) ApplyBatch(b ChangeBatch) {
	for i, row := range b.Rows {
		v.Apply(b.Kinds[i], row)
	}
}

func (v *View) add(enc []byte, h uint32, row Row, boxed bool) {
	off := uint64(len(v.arena.s))
	v.arena.reserve(len(v.arena.s) + len(enc))
	v.arena.s = append(v.arena.s, enc...) // within the capacity reserved
	if boxed {
		if v.boxed == nil {
			v.boxed = map[uint64]Row{}
		}
		v.boxed[off] = row
	}
	idx := len(v.entries.s)
	v.entries.reserve(idx + 1)
	v.entries.s = append(v.entries.s, viewEntry{off: off, n: uint32(len(enc)), hash: h})
	v.live++
	if 2*v.live > len(v.slots.s) {
		v.rehash(tableSize(v.live))
	} else {
		v.insertSlot(idx)
	}
	for v.maxRows > 0 && v.live > v.maxRows {
		v.remove(v.head)
		v.cut++
	}
}

// find returns the newest live entry whose encoding is enc, or -1, so
// that a retraction removes the newest of equal rows and the cap the
// oldest.
func (v *View) find(enc []byte, h uint32) int {
	if len(v.slots.s) == 0 {
		return -1
	}
	mask := uint32(len(v.slots.s) - 1)
	best := -1
	for i := h & mask; ; i = (i + 1) & mask {
		s := v.slots.s[i]
		if s == 0 {
			return best
		}
		e := v.entries.s[s-1]
		if e.hash == h && int(s-1) > best && bytes.Equal(v.arena.s[e.off:e.off+uint64(e.n)], enc) {
			best = int(s - 1)
		}
	}
}

func (v *View) insertSlot(idx int) {
	mask := uint32(len(v.slots.s) - 1)
	i := v.entries.s[idx].hash & mask
	for v.slots.s[i] != 0 {
		i = (i + 1) & mask
	}
	v.slots.s[i] = uint32(idx + 1)
}

// remove removes the live entry idx: its slot goes (backward-shift
// deletion keeps every probe sequence without holes), the entry is marked.
func (v *View) remove(idx int) {
	e := &v.entries.s[idx]
	mask := uint32(len(v.slots.s) - 1)
	i := e.hash & mask
	for v.slots.s[i] != uint32(idx+1) {
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		s := v.slots.s[j]
		if s == 0 {
			break
		}
		home := v.entries.s[s-1].hash & mask
		// the slot at j may move to i unless its home lies cyclically in (i, j]
		if (i <= j && (home <= i || home > j)) || (i > j && home <= i && home > j) {
			v.slots.s[i] = s
			i = j
		}
	}
	v.slots.s[i] = 0
	if v.boxed != nil && v.arena.s[e.off] == rowBoxed {
		delete(v.boxed, e.off)
	}
	e.n |= deadBit
	v.live--
	for v.head < len(v.entries.s) && v.entries.s[v.head].dead() {
		v.head++
	}
	if dead := len(v.entries.s) - v.live; dead > 1024 && 2*dead > v.live {
		v.compact()
	}
}

// compact drops the removed entries and their bytes in place, keeping the
// order, returns memory when the view has shrunk a lot, and rebuilds the
// index.
func (v *View) compact() {
	w, wo := 0, uint64(0)
	for _, e := range v.entries.s {
		if e.dead() {
			continue
		}
		copy(v.arena.s[wo:], v.arena.s[e.off:e.off+uint64(e.n)])
		if v.boxed != nil && v.arena.s[wo] == rowBoxed && wo != e.off {
			// new offsets only go down, and an old offset is deleted
			// before a later row can take it
			row := v.boxed[e.off]
			delete(v.boxed, e.off)
			v.boxed[wo] = row
		}
		v.entries.s[w] = viewEntry{off: wo, n: e.n, hash: e.hash}
		w++
		wo += uint64(e.n)
	}
	v.arena.s = v.arena.s[:wo]
	v.entries.s = v.entries.s[:w]
	v.head = 0
	if cap(v.arena.s) > 4*len(v.arena.s)+64<<10 {
		v.arena.realloc(len(v.arena.s) + len(v.arena.s)/2)
	}
	if cap(v.entries.s) > 4*len(v.entries.s)+4096 {
		v.entries.realloc(len(v.entries.s) + len(v.entries.s)/2)
	}
	v.rehash(tableSize(v.live))
}

// rehash rebuilds the index with size slots.
func (v *View) rehash(size int) {
	if size == len(v.slots.s) {
		clear(v.slots.s)
	} else {
		v.slots.free()
		v.slots.reserve(size)
		v.slots.s = v.slots.s[:size] // zeroed memory
	}
	for i, e := range v.entries.s {
		if !e.dead() {
			v.insertSlot(i)
		}
	}
}

// tableSize is the index size for n rows: a power of two of at least 2n.
func tableSize(n int) int {
	size := 64
	for size < 2*n {
		size *= 2
	}
	return size
}

// memBytes returns the memory the view's store holds outside the Go heap.
func (v *View) memBytes() int {
	return v.arena.bytes() + v.entries.bytes() + v.slots.bytes()
}

// Len returns the number of current rows.
func (v *View) Len() int { return v.live }

// Changes returns the number of changes applied.
func (v *View) Changes() int64 { return v.changes }

// Cut returns the number of rows the cap dropped.
func (v *View) Cut() int64 { return v.cut }

// Pending reports whether a -U was applied whose +U has not come yet:
// the view is then between the two halves of an update, and a client
// should not show it.
func (v *View) Pending() bool { return v.pending > 0 }

// Rows returns the current rows in the order they arrived. The slice and
// its rows are new (decoded from the view), except rows of values that
// are not canonical, which are shared with the view.
func (v *View) Rows() []Row { return v.First(v.live) }

// Last returns the last n current rows (fewer when the view is smaller),
// in arrival order. Its cost grows with n, not with the view.
func (v *View) Last(n int) []Row {
	n = min(n, v.live)
	out := make([]Row, n)
	for i := len(v.entries.s) - 1; i >= 0 && n > 0; i-- {
		if !v.entries.s[i].dead() {
			n--
			out[n] = v.row(i)
		}
	}
	runtime.KeepAlive(v) // see Apply
	return out
}

// First returns the first n current rows, in arrival order.
func (v *View) First(n int) []Row {
	n = min(n, v.live)
	out := make([]Row, 0, n)
	for i := v.head; i < len(v.entries.s) && len(out) < n; i++ {
		if !v.entries.s[i].dead() {
			out = append(out, v.row(i))
		}
	}
	runtime.KeepAlive(v) // see Apply
	return out
}

// row decodes the row of entry i.
func (v *View) row(i int) Row {
	e := v.entries.s[i]
	b := v.arena.s[e.off : e.off+uint64(e.n&^deadBit)]
	if b[0] == rowBoxed {
		return v.boxed[e.off]
	}
	row, _, err := decodeRow(b[1:])
	if err != nil {
		panic("tablerun: corrupt materialized view row: " + err.Error())
	}
	return row
}

// Materialize reads the result's changelog into a View capped at maxRows
// (0: no cap) and yields the view after each batch of changes that leaves
// no update half-applied (see View.Pending). The view is the same value
// each time; it is valid until the loop goes on. Like Changes it keeps no
// change, only the current rows.
func (r *TableResult) Materialize(maxRows int) func(yield func(*View) bool) {
	return func(yield func(*View) bool) {
		v := NewView(maxRows)
		for b := range r.ChangeBatches() {
			v.ApplyBatch(b)
			if !v.Pending() && !yield(v) {
				return
			}
		}
		yield(v)
	}
}

// encodeRow appends the encoding of row to buf: two rows have the same
// encoding exactly when their values are equal (same Go types, same
// values; floats by their bits). Canonical values (core/types) decode
// back exactly; boxed is true when a value is not one, and the encoding
// then serves equality only.
func encodeRow(buf []byte, row Row) (enc []byte, boxed bool) {
	start := len(buf)
	buf = binary.AppendUvarint(append(buf, rowEncoded), uint64(len(row)))
	ok := true
	for _, x := range row {
		if buf, ok = appendValue(buf, x, false); !ok {
			break
		}
	}
	if ok {
		return buf, false
	}
	buf = binary.AppendUvarint(append(buf[:start], rowBoxed), uint64(len(row)))
	for _, x := range row {
		buf, _ = appendValue(buf, x, true)
	}
	return buf, true
}

// appendValue appends the encoding of one value; a value that is not
// canonical gives false unless lossy, which spells it with fmt.
func appendValue(buf []byte, x any, lossy bool) ([]byte, bool) {
	switch v := x.(type) {
	case nil:
		return append(buf, 'N'), true
	case bool:
		if v {
			return append(buf, 'T'), true
		}
		return append(buf, 'F'), true
	case int8:
		return append(buf, 'b', byte(v)), true
	case int16:
		return binary.AppendVarint(append(buf, 's'), int64(v)), true
	case int32:
		return binary.AppendVarint(append(buf, 'i'), int64(v)), true
	case int64:
		return binary.AppendVarint(append(buf, 'l'), v), true
	case float32:
		return binary.LittleEndian.AppendUint32(append(buf, 'f'), math.Float32bits(v)), true
	case float64:
		return binary.LittleEndian.AppendUint64(append(buf, 'd'), math.Float64bits(v)), true
	case string:
		return append(binary.AppendUvarint(append(buf, 'S'), uint64(len(v))), v...), true
	case []byte:
		if v == nil {
			return append(buf, 'z'), true
		}
		return append(binary.AppendUvarint(append(buf, 'B'), uint64(len(v))), v...), true
	case decimal128.Num:
		return binary.AppendUvarint(binary.AppendVarint(append(buf, 'D'), v.HighBits()), v.LowBits()), true
	case []any:
		if v == nil {
			return append(buf, 'a'), true
		}
		buf = binary.AppendUvarint(append(buf, '['), uint64(len(v)))
		ok := true
		for _, e := range v {
			if buf, ok = appendValue(buf, e, lossy); !ok {
				return buf, false
			}
		}
		return buf, true
	case *types.MapValue:
		if v == nil {
			return append(buf, 'm'), true
		}
		ok := true
		buf = binary.AppendUvarint(append(buf, '{'), uint64(len(v.Keys)))
		for _, e := range v.Keys {
			if buf, ok = appendValue(buf, e, lossy); !ok {
				return buf, false
			}
		}
		buf = binary.AppendUvarint(buf, uint64(len(v.Values)))
		for _, e := range v.Values {
			if buf, ok = appendValue(buf, e, lossy); !ok {
				return buf, false
			}
		}
		return buf, true
	}
	if !lossy {
		return buf, false
	}
	s := strings.ToValidUTF8(fmt.Sprintf("%T%#v", x, x), "")
	return append(binary.AppendUvarint(append(buf, '?'), uint64(len(s))), s...), true
}

var errViewEncoding = fmt.Errorf("bad encoding")

// decodeRow decodes a row encoded by encodeRow (after its header byte)
// and returns the rest of b.
func decodeRow(b []byte) (Row, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, errViewEncoding
	}
	b = b[k:]
	row := make(Row, n)
	var err error
	for i := range row {
		if row[i], b, err = decodeValue(b); err != nil {
			return nil, nil, err
		}
	}
	return row, b, nil
}

func decodeValue(b []byte) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errViewEncoding
	}
	tag, b := b[0], b[1:]
	varint := func() (int64, bool) {
		x, k := binary.Varint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return x, true
	}
	uvarint := func() (uint64, bool) {
		x, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return x, true
	}
	switch tag {
	case 'N':
		return nil, b, nil
	case 'T':
		return true, b, nil
	case 'F':
		return false, b, nil
	case 'b':
		if len(b) < 1 {
			break
		}
		return int8(b[0]), b[1:], nil
	case 's', 'i', 'l':
		x, ok := varint()
		if !ok {
			break
		}
		switch tag {
		case 's':
			return int16(x), b, nil
		case 'i':
			return int32(x), b, nil
		}
		return x, b, nil
	case 'f':
		if len(b) < 4 {
			break
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), b[4:], nil
	case 'd':
		if len(b) < 8 {
			break
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:], nil
	case 'S', 'B':
		n, ok := uvarint()
		if !ok || n > uint64(len(b)) {
			break
		}
		if tag == 'S' {
			return string(b[:n]), b[n:], nil
		}
		return bytes.Clone(b[:n]), b[n:], nil
	case 'z':
		return []byte(nil), b, nil
	case 'D':
		hi, ok := varint()
		if !ok {
			break
		}
		lo, ok := uvarint()
		if !ok {
			break
		}
		return decimal128.New(hi, lo), b, nil
	case 'a':
		return []any(nil), b, nil
	case '[':
		n, ok := uvarint()
		if !ok || n > uint64(len(b)) {
			break
		}
		out := make([]any, n)
		var err error
		for i := range out {
			if out[i], b, err = decodeValue(b); err != nil {
				return nil, nil, err
			}
		}
		return out, b, nil
	case 'm':
		return (*types.MapValue)(nil), b, nil
	case '{':
		m := &types.MapValue{}
		for part := 0; part < 2; part++ {
			n, ok := uvarint()
			if !ok || n > uint64(len(b)) {
				return nil, nil, errViewEncoding
			}
			vals := make([]any, n)
			var err error
			for i := range vals {
				if vals[i], b, err = decodeValue(b); err != nil {
					return nil, nil, err
				}
			}
			if part == 0 {
				m.Keys = vals
			} else {
				m.Values = vals
			}
		}
		return m, b, nil
	}
	return nil, nil, errViewEncoding
}
