package vectorized

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
)

// HashColumns writes into hashes[i] a hash of the values of columns cols
// of row i of rec (types.HashColumns): the key hash the exchanges route by
// and snapshots assign key groups with. hashes must be at least
// rec.NumRows() long.
func HashColumns(rec arrow.RecordBatch, cols []int, hashes []uint64) {
	types.HashColumns(rec, cols, hashes)
}
