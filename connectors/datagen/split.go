package datagen

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/vectorized"
)

// Parallel instances (connectors.SplitSource).
//
// The rows of a datagen table form one stream, row i (0-based) being the
// same at every parallelism: a 'sequence' field has start + i, a random
// field the value its generator draws for row i when it draws every row
// in order (so the rows at parallelism 1 are exactly those of an unsplit
// source). The stream is cut into chunks of C rows (C is the batch size,
// or a tenth of a second of the instance's rate when throttled) and split
// k of P makes chunks k, k+P, k+2P, …: it generates the rows of its
// chunks and only draws (skip) the random values of the others, so that
// its random generators stay in step with the stream. Hence:
//
//   - 'number-of-rows' N is the total: the splits' shares sum to N (split
//     k makes the rows of its chunks below N);
//   - 'rows-per-second' R is the total: the stream is paced as a whole,
//     chunk c being due c*C/R seconds after the start (as the batches of
//     a single source are), and each split emits its chunks when they are
//     due: it paces at R/P on average, and the rows of all splits arrive
//     about in the stream's order (chunk c+1 a batch interval after chunk
//     c), so that a throttled source's downstream sees the same order at
//     any parallelism;
//   - every value of a sequence is made exactly once, and each split's
//     values increase, all splits moving through the sequence together
//     (Flink's SequenceGenerator interleaves single values: C = 1);
//   - two runs at any parallelism make the same rows (clock values
//     aside); the cost is that every split draws the random values of the
//     whole stream, though it builds only its share.

// SetSplit implements connectors.SplitSource: the source makes only the
// chunks of split index of count. It is called before Open.
func (s *Source) SetSplit(index, count int) error {
	if count < 1 || index < 0 || index >= count {
		return fmt.Errorf("datagen: bad split %d of %d", index, count)
	}
	s.split, s.splits = index, count
	return nil
}

// chunk returns the chunk size C: the batch size, or in streaming mode
// at most a tenth of a second of 'rows-per-second' (about ten batches
// per second in all, so that rows trickle out as Flink's per-row
// throttle makes them).
func (s *Source) chunk() int64 {
	n := int64(s.batchSize)
	if !s.bounded {
		n = max(min(n, s.rps/10), 1)
	}
	return n
}

// skipRows draws the random values of the next n rows of the stream
// without producing them.
func (s *Source) skipRows(n int64) {
	if n <= 0 {
		return
	}
	for _, g := range s.gens {
		if g.draws > 0 {
			if err := pcgAdvance(g.pcg, uint64(n)*uint64(g.draws)); err == nil {
				continue
			}
		}
		if g.skip == nil {
			continue
		}
		for n0 := n; n0 > 0; {
			k := min(n0, 1<<20)
			g.skip(int(k))
			n0 -= k
		}
	}
	s.pos.next += n
}

// Run emits the rows of the source's chunks.
func (s *Source) Run(ctx context.Context, out vectorized.Collector) error {
	start := time.Now()
	splits := int64(max(s.splits, 1))
	c := s.chunk()
	// wait sleeps until row i of the stream is due: the stream runs at
	// 'rows-per-second' from the position all splits started at.
	wait := func(i int64) error {
		if s.bounded {
			return nil
		}
		due := start.Add(time.Duration(float64(i-s.origin) / float64(s.rps) * float64(time.Second)))
		if d := time.Until(due); d > 0 {
			// Through the collector: an idle source is marked idle
			// while it waits (vectorized/idle.go).
			return vectorized.Sleep(ctx, out, d)
		}
		return nil
	}
	builders := make([]array.Builder, len(s.gens))
	for i, f := range s.out.Fields() {
		builders[i] = array.NewBuilder(memory.DefaultAllocator, f.Type)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for k := s.firstChunk(c); ; k += splits {
		lo := k * c
		if s.total >= 0 && lo >= s.total {
			// Done: the split has made every row of its chunks, which its
			// final position says (so that a restore at another layout
			// need not start below it; its random state no longer
			// matters).
			s.pos.next = max(s.pos.next, s.total)
			return nil
		}
		hi := lo + c
		if s.total >= 0 && hi > s.total {
			hi = s.total
		}
		// Normally one run [lo, hi); after a restore at another layout,
		// only the rows no former split had emitted.
		for _, run := range s.pos.pending(max(lo, s.pos.next), hi) {
			if err := ctx.Err(); err != nil {
				return err
			}
			s.skipRows(run[0] - s.pos.next)
			if err := wait(run[0]); err != nil {
				return err
			}
			n := int(run[1] - run[0])
			cols := make([]arrow.Array, len(s.gens))
			for i, g := range s.gens {
				if g.build != nil {
					cols[i] = g.build(n)
					continue
				}
				builders[i].Reserve(n)
				if g.fillSeq != nil {
					g.fillSeq(builders[i], run[0], n)
				} else {
					g.fill(builders[i], n)
				}
				cols[i] = builders[i].NewArray()
			}
			rec := array.NewRecordBatch(s.out, cols, int64(n))
			for _, col := range cols {
				col.Release()
			}
			// The position moves before Emit: a checkpoint taken inside
			// Emit records the position after this batch.
			s.pos.next = run[1]
			if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
				return err
			}
		}
		// Until the split's next chunk is due (or the end of the stream,
		// as a single source ends when its last rows are due).
		due := lo + splits*c
		if s.total >= 0 && due > s.total {
			due = s.total
		}
		if err := wait(due); err != nil {
			return err
		}
	}
}

// firstChunk returns the first chunk of the split that ends after the
// position.
func (s *Source) firstChunk(c int64) int64 {
	splits := int64(max(s.splits, 1))
	k := s.pos.next / c
	for k%splits != int64(s.split) {
		k++
	}
	return k
}
