package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ---- DATE_FORMAT(timestamp, constant pattern) ----

// dateFormatNode formats a TIMESTAMP column with a constant Java pattern
// (Nexmark q10/q15–q17). Values of one bucket — the interval in which the
// pattern's finest field does not change (a day for 'yyyy-MM-dd') — share
// one formatted text, so a batch of nearby timestamps formats a handful of
// values and copies bytes for the rest.
type dateFormatNode struct {
	arg     node
	pattern string
	bucket  int64 // column units per bucket; 1: every value on its own
	t       types.Type
}

func (c *compiler) newDateFormat(x *logical.Call, args []node) node {
	if x.Name != "DATE_FORMAT" || len(args) != 2 || args[0].typ().Kind != types.Timestamp {
		return nil
	}
	p, ok := strLit(args[1])
	if !ok {
		return nil
	}
	secs, ok := function.DateFormatBucket(p)
	if !ok {
		return nil
	}
	bucket := int64(1)
	if secs > 0 {
		bucket = secs * types.TimestampUnitsPerSecond(args[0].typ())
	}
	return &dateFormatNode{arg: args[0], pattern: p, bucket: bucket, t: x.T}
}

func (n *dateFormatNode) typ() types.Type { return n.t }
func (n *dateFormatNode) canFail() bool   { return n.arg.canFail() }

func floorDiv64(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (n *dateFormatNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	ts, ok := a.(*array.Timestamp)
	if !ok {
		return array.MakeArrayOfNull(mem, arrow.BinaryTypes.String, rows), nil
	}
	vals := ts.TimestampValues()
	validity, nulls := validityOf(mem, rows, a)
	var vb []byte
	if validity != nil {
		vb = validity.Bytes()
	}
	b := newStrBuilder(rows, rows*len(n.pattern))
	at := n.arg.typ()
	have := false
	var lastBucket int64
	var last string
	for i := 0; i < rows; i++ {
		if vb != nil && !bitutil.BitIsSet(vb, i) {
			b.next()
			continue
		}
		v := int64(vals[i])
		bk := floorDiv64(v, n.bucket)
		if !have || bk != lastBucket {
			s, err := function.FormatTimestamp(v, at, n.pattern)
			if err != nil {
				if validity != nil {
					validity.Release()
				}
				return nil, err
			}
			last, lastBucket, have = s, bk, true
		}
		b.data = append(b.data, last...)
		b.next()
	}
	return b.finish(mem, rows, validity, nulls), nil
}

var _ node = (*dateFormatNode)(nil)
