package build

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// router splits the batches of one producer of a hash exchange by
// consumer, a column at a time: it hashes the key columns of the whole
// batch (vectorized.HashColumns), maps every hash to its key group and the
// key group to the subtask that owns it (a table of the
// DefaultMaxParallelism key groups), orders the row indexes by consumer in
// one counting sort (keeping the rows' order within each consumer) and
// gathers each column once for all consumers: a fixed-width, STRING or
// BINARY column without NULLs into one new buffer whose consecutive ranges
// are the consumers' columns (other columns by ops.GatherArray, per
// consumer). Its buffers are reused from batch to batch; the batches it
// hands on are new. The routing is exactly the per-row
// SubtaskOf(KeyGroup(hash)) that snapshots use.
type router struct {
	keys   []int
	parts  int
	owner  [vectorized.DefaultMaxParallelism]int32 // key group -> subtask
	hashes []uint64
	target []int32       // per row: its consumer (route2: consumer 1's rows)
	order  []int32       // row indexes, grouped by consumer
	start  []int32       // consumer j's rows are order[start[j]:start[j+1]]
	pos    []int32       // per consumer: its row count, then its next place
	parted []arrow.Array // column c of consumer j at c*parts+j
}

func newRouter(keys []int, parts int) *router {
	r := &router{keys: keys, parts: parts, start: make([]int32, parts+1), pos: make([]int32, parts)}
	for kg := range r.owner {
		r.owner[kg] = int32(vectorized.SubtaskOf(kg, vectorized.DefaultMaxParallelism, parts))
	}
	return r
}

// route computes the consumer of every row of rec and orders the rows by
// consumer. It returns the consumer that gets every row, or -1 when the
// rows are spread.
func (r *router) route(rec arrow.RecordBatch) int {
	n := int(rec.NumRows())
	if cap(r.hashes) < n {
		r.hashes = make([]uint64, n)
		r.target = make([]int32, n+1)
		r.order = make([]int32, n+1)
	}
	hs := r.hashes[:n]
	vectorized.HashColumns(rec, r.keys, hs)
	if r.parts == 2 {
		return r.route2(hs)
	}
	target := r.target[:n]
	counts := r.pos
	clear(counts)
	for i, h := range hs {
		t := r.owner[vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism)]
		target[i] = t
		counts[t]++
	}
	var sum int32
	for j, c := range counts {
		if int(c) == n {
			return j
		}
		r.start[j] = sum
		counts[j] = sum // from here on: the next free place of consumer j
		sum += c
	}
	r.start[r.parts] = sum
	order := r.order[:n]
	for i, t := range target {
		order[counts[t]] = int32(i)
		counts[t]++
	}
	return -1
}

// route2 is route for two consumers, without branches or counters in
// memory: every row index goes to the next place of both consumers' lists
// (r.order for consumer 0, r.target for consumer 1), and only its own
// consumer's advances; consumer 1's list is then copied after consumer
// 0's.
func (r *router) route2(hs []uint64) int {
	n := len(hs)
	o0, o1 := r.order[:n+1], r.target[:n+1]
	p0, p1 := 0, 0
	for i, h := range hs {
		t := int(r.owner[vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism)])
		o0[p0] = int32(i)
		o1[p1] = int32(i)
		p0 += 1 - t
		p1 += t
	}
	switch {
	case p0 == n:
		return 0
	case p1 == n:
		return 1
	}
	copy(o0[p0:], o1[:p1])
	r.start[0], r.start[1], r.start[2] = 0, int32(p0), int32(n)
	return -1
}

// rows returns the row indexes of consumer j, in order, after route.
func (r *router) rows(j int) []int32 { return r.order[r.start[j]:r.start[j+1]] }

// split gathers the rows of b for every consumer after route returned -1;
// parts[j] is consumer j's batch (no rows when it gets none).
func (r *router) split(b vectorized.Batch, parts []vectorized.Batch) error {
	rec := b.Rec
	n := int(rec.NumRows())
	order := r.order[:n]
	nc := int(rec.NumCols())
	if cap(r.parted) < nc*r.parts {
		r.parted = make([]arrow.Array, nc*r.parts)
	}
	parted := r.parted[:nc*r.parts]
	for c := 0; c < nc; c++ {
		col := rec.Column(c)
		if gatherFlat(col, order, r.start, parted[c*r.parts:(c+1)*r.parts]) {
			continue
		}
		for j := 0; j < r.parts; j++ {
			idx := r.rows(j)
			if len(idx) == 0 {
				continue
			}
			a, err := ops.GatherArray(col, idx)
			if err != nil {
				clear(parted)
				return err
			}
			parted[c*r.parts+j] = a
		}
	}
	var kinds []changelog.RowKind
	if b.Kinds != nil {
		kinds = make([]changelog.RowKind, n)
		for k, i := range order {
			kinds[k] = b.Kinds[i]
		}
	}
	schema := rec.Schema()
	for j := range parts {
		lo, hi := r.start[j], r.start[j+1]
		if lo == hi {
			parts[j] = vectorized.Batch{}
			continue
		}
		cols := make([]arrow.Array, nc)
		for c := range cols {
			cols[c] = parted[c*r.parts+j]
			parted[c*r.parts+j] = nil
		}
		parts[j] = vectorized.Batch{Rec: array.NewRecordBatch(schema, cols, int64(hi-lo))}
		if kinds != nil {
			parts[j].Kinds = kinds[lo:hi:hi]
		}
	}
	return nil
}

// gatherFlat gathers a fixed-width, STRING or BINARY column without
// NULLs in row order order into new buffers and sets out[j] to the array
// of its range [start[j], start[j+1]) (nil when empty). It reports false,
// doing nothing, for other columns.
func gatherFlat(a arrow.Array, order []int32, start []int32, out []arrow.Array) bool {
	if a.NullN() != 0 {
		return false
	}
	bufs := a.Data().Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return false
	}
	switch id := a.DataType().ID(); {
	case id == arrow.STRING || id == arrow.BINARY:
		return flatBinary(a, order, start, out)
	case len(bufs) != 2:
		return false
	}
	switch a.DataType().ID() {
	case arrow.INT8, arrow.UINT8:
		flat[uint8](a, order, start, out)
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		flat[uint16](a, order, start, out)
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32, arrow.INTERVAL_MONTHS:
		flat[uint32](a, order, start, out)
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.INTERVAL_DAY_TIME:
		flat[uint64](a, order, start, out)
	case arrow.DECIMAL128:
		flat[[2]uint64](a, order, start, out)
	case arrow.DECIMAL256:
		flat[[4]uint64](a, order, start, out)
	default:
		return false
	}
	return true
}

// flatBinary is gatherFlat for a STRING or BINARY column (int32 offsets):
// the consumers' values go to one new data buffer, their offsets to one
// new offsets buffer, in ranges.
func flatBinary(a arrow.Array, order []int32, start []int32, out []arrow.Array) bool {
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) != 3 {
		return false
	}
	raw := bufs[1].Bytes()
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/4)[d.Offset():][:d.Len()+1]
	var src []byte
	if bufs[2] != nil {
		src = bufs[2].Bytes()
	}
	n := len(order)
	// Every row goes to some consumer: the values take what they take in a.
	data := make([]byte, int(offs[n]-offs[0])+16)
	outOffs := make([]int32, n+len(out))
	pos := 0
	for j := range out {
		lo, hi := int(start[j]), int(start[j+1])
		if lo == hi {
			out[j] = nil
			continue
		}
		base := pos
		o := outOffs[lo+j : hi+j+1]
		o[0] = 0
		for k, i := range order[lo:hi] {
			b, e := int(offs[i]), int(offs[i+1])
			if l := e - b; l <= 16 && b+16 <= len(src) {
				// short values (most keys, codes, dates): two 8-byte moves
				// instead of a call; data has 16 bytes of room past the end
				to, from := data[pos:pos+16], src[b:b+16]
				*(*uint64)(unsafe.Pointer(&to[0])) = *(*uint64)(unsafe.Pointer(&from[0]))
				*(*uint64)(unsafe.Pointer(&to[8])) = *(*uint64)(unsafe.Pointer(&from[8]))
				pos += l
			} else {
				pos += copy(data[pos:], src[b:e])
			}
			o[k+1] = int32(pos - base)
		}
		offBytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(o))), len(o)*4)
		nd := array.NewData(a.DataType(), hi-lo, []*memory.Buffer{nil, memory.NewBufferBytes(offBytes), memory.NewBufferBytes(data[base:pos:pos])}, nil, 0, 0)
		out[j] = array.MakeFromData(nd)
		nd.Release()
	}
	return true
}

func flat[T any](a arrow.Array, order []int32, start []int32, out []arrow.Array) {
	d := a.Data()
	var zero T
	size := int(unsafe.Sizeof(zero))
	raw := d.Buffers()[1].Bytes()
	vals := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/size)[d.Offset():][:d.Len()]
	dst := make([]T, len(order))
	for k, i := range order {
		dst[k] = vals[i]
	}
	for j := range out {
		lo, hi := int(start[j]), int(start[j+1])
		if lo == hi {
			out[j] = nil
			continue
		}
		part := dst[lo:hi:hi]
		bytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(part))), len(part)*size)
		nd := array.NewData(a.DataType(), len(part), []*memory.Buffer{nil, memory.NewBufferBytes(bytes)}, nil, 0, 0)
		out[j] = array.MakeFromData(nd)
		nd.Release()
	}
}
