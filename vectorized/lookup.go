package vectorized

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// LookupFunction answers key lookups for a processing-time temporal join
// (Flink's LookupFunction, a batch of keys at a time): a connector that
// offers one (catalog.Abilities.LookupFunction) is asked for the rows of
// the keys of each input batch instead of being read in full.
//
// Open is called once before the first Lookup, Close once at the end
// (also after an error). Lookup is called from one goroutine at a time.
type LookupFunction interface {
	Open(ctx context.Context) error
	// Lookup returns the rows matching keys. keys holds one array per
	// key column (the join's key order), n distinct tuples, none with a
	// NULL. rows has the function's schema; of[i] is the index in keys
	// of the tuple that rows' row i matches (a key may match several
	// rows, or none). The caller owns rows.
	Lookup(ctx context.Context, keys []arrow.Array) (rows arrow.RecordBatch, of []int32, err error)
	Close() error
}

// LookupCache configures the partial cache in front of a LookupFunction
// (Flink's DefaultLookupCache, 'lookup.partial-cache.*'): at most MaxRows
// keys (0: unlimited; past it the least recently used go), each valid
// for ExpireAfterWrite after it was loaded and ExpireAfterAccess after it
// was last read (0: forever); a key without rows is cached when
// CacheMissingKey.
type LookupCache struct {
	MaxRows           int64
	ExpireAfterWrite  time.Duration
	ExpireAfterAccess time.Duration
	CacheMissingKey   bool
}
