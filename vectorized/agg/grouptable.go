package agg

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ErrNotSupported is wrapped by every error that reports a type, a function
// or a combination of them that this package does not handle yet. Its text
// is Flink's "not supported yet" wording.
var ErrNotSupported = errors.New("not supported yet")

// ErrTooManyGroups is returned when a table would hold more groups than a
// uint32 group id can number.
var ErrTooManyGroups = errors.New("agg: too many groups")

// maxGroups is the largest number of groups a table holds: ids are uint32.
const maxGroups = math.MaxUint32

// GroupTable maps the rows of a batch of key columns to dense group ids.
//
// Insert is called once per input batch, from one goroutine. Group ids are
// 0..Len()-1, in first-seen order, and never change once handed out. A row
// whose key columns are all NULL is a group like any other (SQL GROUP BY
// puts all NULL keys together).
type GroupTable interface {
	// Insert looks up (and, if new, adds) the key of each of the first n
	// rows of keys and writes its group id to groupIDs[i]. keys has one
	// array per key column, of the types the table was made for, each at
	// least n long; groupIDs must be at least n long. The table does not
	// retain keys or groupIDs after Insert returns. On error no group id
	// written by this call is meaningful, but earlier groups stay valid.
	Insert(keys []arrow.Array, n int, groupIDs []uint32) error
	// Len returns the number of groups so far.
	Len() int
	// Keys returns the distinct keys in group-id order, one array per key
	// column, with the table's key types. The caller owns (and must
	// Release) the arrays. Floating-point keys come back canonical: one
	// NaN (-0.0 stays -0.0).
	Keys(mem memory.Allocator) []arrow.Array
	// SizeBytes estimates the memory the table holds, for memory
	// accounting.
	SizeBytes() int64
}

// NewGroupTable returns a group table for key columns of the given types.
// A single fixed-width key (integers, floats, dates, times, timestamps,
// durations) gets a specialised open-addressing table; any other
// combination of supported types gets the generic table. Unsupported
// types give an error wrapping ErrNotSupported.
func NewGroupTable(keyTypes []arrow.DataType) (GroupTable, error) {
	if len(keyTypes) == 0 {
		return nil, fmt.Errorf("agg: group table needs at least one key column: %w", ErrNotSupported)
	}
	if len(keyTypes) == 1 {
		if t, ok := newFixedTable(keyTypes[0]); ok {
			return t, nil
		}
	}
	return newGenericTable(keyTypes)
}
