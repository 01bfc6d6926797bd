package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrayData wraps buffers into an array of type typ; the array takes its
// own references to the buffers.
func arrayData(typ arrow.DataType, n int, bufs []*memory.Buffer, nulls int) arrow.Array {
	d := array.NewData(typ, n, bufs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
