package ops

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/planner/logical"
)

// NewSortLimit returns the Sort that keeps only rows offset..offset+fetch-1
// of the order (ORDER BY … LIMIT/OFFSET); fetch < 0 keeps all rows after
// offset. While reading it prunes its buffer to the best offset+fetch rows,
// so memory stays proportional to offset+fetch.
func NewSortLimit(keys []logical.SortKey, s *arrow.Schema, offset, fetch int64) *Sort {
	return &Sort{name: "SortLimit", keys: keys, schema: s, offset: max(offset, 0), fetch: fetch}
}
