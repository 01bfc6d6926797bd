package datagen

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

type countRows struct{ n int64 }

func (c *countRows) Emit(_ context.Context, b vectorized.Batch) error {
	c.n += b.Rec.NumRows()
	b.Rec.Release()
	return nil
}
func (c *countRows) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// BenchmarkSplit generates 1M rows of (INT in [0, 999], BIGINT) as split
// 0 of P: the work of one instance.
func BenchmarkSplit(b *testing.B) {
	schema := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.BigIntT}}
	opts := map[string]string{"number-of-rows": "1000000", "fields.k.min": "0", "fields.k.max": "999"}
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			for range b.N {
				src, err := NewSource("t", opts, schema, nil, 0, true, time.UTC)
				if err != nil {
					b.Fatal(err)
				}
				if err := src.SetSplit(0, p); err != nil {
					b.Fatal(err)
				}
				if err := src.Run(context.Background(), &countRows{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSplitsConcurrently runs all P splits of 1M rows at once, as
// the executor does: the wall time of the whole table.
func BenchmarkSplitsConcurrently(b *testing.B) {
	schema := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.BigIntT}}
	opts := map[string]string{"number-of-rows": "1000000", "fields.k.min": "0", "fields.k.max": "999"}
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			for range b.N {
				done := make(chan error, p)
				for k := range p {
					go func() {
						src, err := NewSource("t", opts, schema, nil, 0, true, time.UTC)
						if err == nil {
							err = src.SetSplit(k, p)
						}
						if err == nil {
							err = src.Run(context.Background(), &countRows{})
						}
						done <- err
					}()
				}
				for range p {
					if err := <-done; err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
