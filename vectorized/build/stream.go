package build

import (
	"context"
	"io"

	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
)

// Stream is the pull adapter over Run: the plan runs in its own goroutine
// and Next hands out the root's batches one at a time.
type Stream struct {
	batches chan vectorized.Batch
	done    chan struct{}
	err     error
	cancel  context.CancelFunc
}

// Start runs plan in a new goroutine and returns the stream of its root's
// batches. The caller must Close the stream.
func Start(ctx context.Context, plan physical.Node, env *Env) *Stream {
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{batches: make(chan vectorized.Batch), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		s.err = Run(ctx, plan, env, func(b vectorized.Batch) error {
			select {
			case s.batches <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return s
}

// Next returns the next batch, io.EOF after the last one, or the error
// that ended the run.
func (s *Stream) Next() (vectorized.Batch, error) {
	select {
	case b := <-s.batches:
		return b, nil
	case <-s.done:
		if s.err != nil {
			return vectorized.Batch{}, s.err
		}
		return vectorized.Batch{}, io.EOF
	}
}

// Close stops the run if it is still going and waits for it to end (every
// operator closed). It returns the run's error, if any, other than the
// cancellation Close caused.
func (s *Stream) Close() error {
	select {
	case <-s.done:
		s.cancel()
		return s.err
	default:
	}
	s.cancel()
	<-s.done
	if s.err == context.Canceled {
		return nil
	}
	return s.err
}
