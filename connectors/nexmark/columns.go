package nexmark

import (
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// leaf kinds of the canonical nested fields.
const (
	leafInt  = iota // BIGINT
	leafStr         // VARCHAR
	leafTime        // TIMESTAMP(3)
)

type canonField struct {
	name string
	leaf int
}

// Canonical slots of the nested rows (ddl_gen.sql order).
const (
	pID = iota
	pName
	pEmail
	pCard
	pCity
	pState
	pTime
	pExtra
)

const (
	aID = iota
	aItemName
	aDescription
	aInitialBid
	aReserve
	aTime
	aExpires
	aSeller
	aCategory
	aExtra
)

const (
	bAuction = iota
	bBidder
	bPrice
	bChannel
	bURL
	bTime
	bExtra
)

const maxSlots = 10

var (
	personFields = []canonField{{"id", leafInt}, {"name", leafStr}, {"emailAddress", leafStr}, {"creditCard", leafStr},
		{"city", leafStr}, {"state", leafStr}, {"dateTime", leafTime}, {"extra", leafStr}}
	auctionFields = []canonField{{"id", leafInt}, {"itemName", leafStr}, {"description", leafStr}, {"initialBid", leafInt},
		{"reserve", leafInt}, {"dateTime", leafTime}, {"expires", leafTime}, {"seller", leafInt}, {"category", leafInt},
		{"extra", leafStr}}
	bidFields = []canonField{{"auction", leafInt}, {"bidder", leafInt}, {"price", leafInt}, {"channel", leafStr},
		{"url", leafStr}, {"dateTime", leafTime}, {"extra", leafStr}}
)

// Top-level columns.
const (
	colEventType = iota
	colPerson
	colAuction
	colBid
)

var topColumns = map[string]int{"event_type": colEventType, "person": colPerson, "auction": colAuction, "bid": colBid}

// Schema returns the physical schema of ddl_gen.sql's datagen table.
func Schema() types.Schema {
	row := func(fs []canonField) types.Type {
		out := make([]types.Field, len(fs))
		for i, f := range fs {
			t := types.BigIntT
			switch f.leaf {
			case leafStr:
				t = types.StringT
			case leafTime:
				t = types.TimestampOf(3)
			}
			out[i] = types.Field{Name: f.name, Type: t}
		}
		return types.RowOf(out...)
	}
	return types.Schema{
		{Name: "event_type", Type: types.IntT},
		{Name: "person", Type: row(personFields)},
		{Name: "auction", Type: row(auctionFields)},
		{Name: "bid", Type: row(bidFields)},
	}
}

// colSpec is one output column: which top-level column, and for a ROW the
// canonical slot of each declared field and, when not nil, which declared
// fields are read downstream (the others are emitted as NULL; see
// Source.SetReadFields).
type colSpec struct {
	col   int
	slots []int
	read  []bool // nil: all fields read
	at    arrow.DataType
}

// reads reports whether declared field i of the column is read.
func (c colSpec) reads(i int) bool { return c.read == nil || c.read[i] }

func leafOK(t types.Type, leaf int) bool {
	switch leaf {
	case leafInt:
		return t.Kind == types.BigInt
	case leafStr:
		return t.Kind == types.VarChar
	}
	return (t.Kind == types.Timestamp || t.Kind == types.TimestampLTZ) && t.Precision >= 3 && t.Precision <= 6
}

func leafName(leaf int) string {
	switch leaf {
	case leafInt:
		return "BIGINT"
	case leafStr:
		return "VARCHAR"
	}
	return "TIMESTAMP(3)"
}

// resolveColumn maps a declared physical column onto the generator's
// columns: event_type INT, or a ROW whose fields are any subset, in any
// order, of the canonical fields (matched by name, case-sensitively, with
// the canonical type).
func resolveColumn(f types.Field) (colSpec, error) {
	col, ok := topColumns[f.Name]
	if !ok {
		return colSpec{}, fmt.Errorf("nexmark: unknown column '%s' (the nexmark table has the columns event_type, person, auction, bid)", f.Name)
	}
	at, err := types.ArrowType(f.Type)
	if err != nil {
		return colSpec{}, err
	}
	spec := colSpec{col: col, at: at}
	if col == colEventType {
		if f.Type.Kind != types.Int {
			return colSpec{}, fmt.Errorf("nexmark: column 'event_type' must be INT, not %s", f.Type)
		}
		return spec, nil
	}
	canon := [...][]canonField{colPerson: personFields, colAuction: auctionFields, colBid: bidFields}[col]
	if f.Type.Kind != types.Row {
		return colSpec{}, fmt.Errorf("nexmark: column '%s' must be a ROW, not %s", f.Name, f.Type)
	}
	seen := map[int]bool{}
	for _, sub := range f.Type.Fields {
		slot := -1
		for i, c := range canon {
			if c.name == sub.Name {
				slot = i
			}
		}
		if slot < 0 {
			return colSpec{}, fmt.Errorf("nexmark: column '%s' has no field '%s'", f.Name, sub.Name)
		}
		if seen[slot] {
			return colSpec{}, fmt.Errorf("nexmark: field '%s.%s' is declared twice", f.Name, sub.Name)
		}
		seen[slot] = true
		if !leafOK(sub.Type, canon[slot].leaf) {
			return colSpec{}, fmt.Errorf("nexmark: field '%s.%s' must be %s, not %s", f.Name, sub.Name, leafName(canon[slot].leaf), sub.Type)
		}
		spec.slots = append(spec.slots, slot)
	}
	return spec, nil
}

// strCol accumulates a utf8 column of a fixed number of rows, written in
// increasing row order; skipped rows are empty (their row is NULL).
type strCol struct {
	offs []int32 // rows+1 offsets
	data []byte
	next int // offsets of rows < next are final
}

func (s *strCol) reset(rows, bytes int) {
	s.offs = make([]int32, rows+1)
	s.data = make([]byte, 0, bytes)
	s.next = 0
}

// skipTo ends every row before row as empty.
func (s *strCol) skipTo(row int) {
	end := int32(len(s.data))
	for s.next < row {
		s.next++
		s.offs[s.next] = end
	}
}

func (s *strCol) add(row int, v string) {
	s.skipTo(row)
	s.data = append(s.data, v...)
	s.next = row + 1
	s.offs[s.next] = int32(len(s.data))
}

func (s *strCol) addBytes(row int, v []byte) {
	s.skipTo(row)
	s.data = append(s.data, v...)
	s.next = row + 1
	s.offs[s.next] = int32(len(s.data))
}

// structCol accumulates one ROW column of a batch. Rows of other event
// kinds are NULL in the row and in every field (children carry the row's
// validity) and cost nothing: the generator writes valid rows by index.
type structCol struct {
	spec    colSpec
	want    [maxSlots]bool
	isStr   [maxSlots]bool
	ints    [maxSlots][]int64
	strs    [maxSlots]strCol
	strHint [maxSlots]int // expected bytes per valid row
	valid   []byte
	rows    int
	nvalid  int
	cur     int // the row being generated
	scratch []byte
}

func newStructCol(spec colSpec, canon []canonField, hints map[int]int) *structCol {
	c := &structCol{spec: spec}
	for i, s := range spec.slots {
		// An unread field is not wanted: the generator still makes every
		// draw (the values of the other fields do not change) but writes
		// nothing, and array() emits the field as all NULL.
		c.want[s] = spec.reads(i)
		c.isStr[s] = canon[s].leaf == leafStr
		c.strHint[s] = hints[s]
	}
	return c
}

func (c *structCol) reset(rows int, validFrac float64) {
	c.rows, c.nvalid = rows, 0
	c.valid = make([]byte, (rows+7)/8)
	for s := 0; s < maxSlots; s++ {
		if !c.want[s] {
			continue
		}
		if c.isStr[s] {
			c.strs[s].reset(rows, int(float64(rows*c.strHint[s])*validFrac)+64)
		} else {
			c.ints[s] = make([]int64, rows)
		}
	}
}

// begin starts valid row i (rows come in increasing order); the generator
// then sets every wanted slot once.
func (c *structCol) begin(i int) {
	c.valid[i>>3] |= 1 << (i & 7)
	c.cur = i
	c.nvalid++
}

func (c *structCol) int(slot int, v int64) {
	if c.want[slot] {
		c.ints[slot][c.cur] = v
	}
}

func (c *structCol) str(slot int, v string) {
	if c.want[slot] {
		c.strs[slot].add(c.cur, v)
	}
}

func (c *structCol) bytes(slot int, v []byte) {
	if c.want[slot] {
		c.strs[slot].addBytes(c.cur, v)
	}
}

// array builds the struct array of the accumulated rows.
func (c *structCol) array() arrow.Array {
	st := c.spec.at.(*arrow.StructType)
	validBuf := memory.NewBufferBytes(c.valid)
	nulls := c.rows - c.nvalid
	children := make([]arrow.ArrayData, len(c.spec.slots))
	var zero []byte // shared by the unread fields: all NULL
	for i, s := range c.spec.slots {
		ft := st.Field(i).Type
		var bufs []*memory.Buffer
		if !c.want[s] {
			if zero == nil {
				zero = zeros(8*c.rows + 8)
			}
			nullBuf := memory.NewBufferBytes(zero[:(c.rows+7)/8])
			if c.isStr[s] {
				bufs = []*memory.Buffer{nullBuf, memory.NewBufferBytes(zero[:4*(c.rows+1)]), memory.NewBufferBytes(zero[:0])}
			} else {
				bufs = []*memory.Buffer{nullBuf, memory.NewBufferBytes(zero[:8*c.rows])}
			}
			children[i] = array.NewData(ft, c.rows, bufs, nil, c.rows, 0)
			continue
		}
		if c.isStr[s] {
			c.strs[s].skipTo(c.rows)
			bufs = []*memory.Buffer{validBuf, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.strs[s].offs)),
				memory.NewBufferBytes(c.strs[s].data)}
		} else {
			bufs = []*memory.Buffer{validBuf, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.ints[s]))}
		}
		children[i] = array.NewData(ft, c.rows, bufs, nil, nulls, 0)
	}
	d := array.NewData(st, c.rows, []*memory.Buffer{validBuf}, children, nulls, 0)
	for _, ch := range children {
		ch.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// zeroBuf holds the largest zeroed slice handed out so far; it is never
// written, so every batch may share it (the validity, offsets and values of
// all-NULL fields).
var zeroBuf atomic.Pointer[[]byte]

// zeros returns n zero bytes that must not be written.
func zeros(n int) []byte {
	if p := zeroBuf.Load(); p != nil && len(*p) >= n {
		return (*p)[:n]
	}
	b := make([]byte, n)
	zeroBuf.Store(&b)
	return b
}
