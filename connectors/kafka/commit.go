package kafka

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/tablerun/tablerun/vectorized"
)

// Offsets committed on checkpoints (Flink's commit.offsets.on.checkpoint).
//
// With a group id the source remembers the offsets of every checkpoint it
// snapshots and, when the coordinator reports that checkpoint complete
// (vectorized.CheckpointListener), commits them to the group, as Flink's
// KafkaSourceReader: the committed offsets are for monitoring and for a
// later job started in group-offsets mode; the job's own restore reads its
// checkpoint. A commit runs on the source's committer goroutine (the
// coordinator's listeners must not block); a failed commit is remembered
// (CommitErr) and the job goes on, and the next completed checkpoint
// commits newer offsets. Offsets of checkpoints older than a completed one
// are dropped: only the completed checkpoint's are committed.

var _ vectorized.CheckpointListener = (*Source)(nil)

// committer holds the offsets of snapshotted checkpoints until they
// complete and commits them.
type committer struct {
	mu      sync.Mutex
	pending map[int64]kadm.Offsets // by checkpoint id
	want    int64                  // the latest completed checkpoint not committed yet
	done    int64                  // the latest checkpoint whose offsets were committed
	tried   int64                  // the latest checkpoint whose commit was attempted
	err     error                  // the last commit's failure
	signal  chan struct{}          // capacity 1
	stop    context.CancelFunc
	exited  chan struct{}
}

func newCommitter() *committer {
	return &committer{pending: map[int64]kadm.Offsets{}, signal: make(chan struct{}, 1)}
}

// checkpointID is implemented by the state writers of checkpoints.
type checkpointID interface{ CheckpointID() int64 }

// remember keeps the offsets of the checkpoint w writes (called from
// SnapshotPosition on the source's goroutine).
func (c *committer) remember(w vectorized.StateWriter, tps []TopicPartition, pos map[TopicPartition]int64) {
	cw, ok := w.(checkpointID)
	if !ok || cw.CheckpointID() <= 0 {
		return // a final state (checkpoint/finished.go) belongs to no checkpoint
	}
	offs := kadm.Offsets{}
	for _, tp := range tps {
		if o := pos[tp]; o >= 0 {
			offs.Add(kadm.Offset{Topic: tp.Topic, Partition: tp.Partition, At: o, LeaderEpoch: -1})
		}
	}
	c.mu.Lock()
	c.pending[cw.CheckpointID()] = offs
	c.mu.Unlock()
}

// complete asks for the offsets of checkpoint id to be committed.
func (c *committer) complete(id int64) {
	c.mu.Lock()
	if _, ok := c.pending[id]; !ok || id <= c.want {
		c.mu.Unlock()
		return
	}
	c.want = id
	for k := range c.pending {
		if k < id {
			delete(c.pending, k)
		}
	}
	c.mu.Unlock()
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// abort forgets the offsets of checkpoint id.
func (c *committer) abort(id int64) {
	c.mu.Lock()
	if id != c.want {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// start runs the committer goroutine until stopped.
func (c *committer) start(adm *kadm.Client, group string, timeout time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	c.stop, c.exited = cancel, make(chan struct{})
	go func() {
		defer close(c.exited)
		for {
			select {
			case <-ctx.Done():
				return
			case <-c.signal:
			}
			c.mu.Lock()
			id := c.want
			offs, ok := c.pending[id]
			c.mu.Unlock()
			if !ok || id <= c.done {
				c.mu.Lock()
				c.tried = max(c.tried, id)
				c.mu.Unlock()
				continue
			}
			var err error
			if len(offs) > 0 {
				cctx, ccancel := context.WithTimeout(ctx, timeout)
				var resp kadm.OffsetResponses
				resp, err = adm.CommitOffsets(cctx, group, offs)
				ccancel()
				if err == nil {
					err = resp.Error()
				}
			}
			c.mu.Lock()
			c.tried = max(c.tried, id)
			if err != nil {
				if ctx.Err() == nil {
					c.err = err
				}
			} else {
				c.done, c.err = id, nil
				for k := range c.pending {
					if k <= id {
						delete(c.pending, k)
					}
				}
			}
			c.mu.Unlock()
		}
	}()
}

// close stops the goroutine and waits for it. A commit asked for and not
// attempted yet (the savepoint of a STOP JOB completes just before the
// source closes) is given up to grace to go out first.
func (c *committer) close(grace time.Duration) {
	if c.stop != nil {
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) {
			c.mu.Lock()
			waiting := c.want > c.tried
			c.mu.Unlock()
			if !waiting {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		c.stop()
		<-c.exited
		c.stop = nil
	}
}

// NotifyCheckpointComplete implements vectorized.CheckpointListener: the
// offsets of checkpoint id are committed to the group (asynchronously).
func (s *Source) NotifyCheckpointComplete(id int64) {
	if s.commit != nil {
		s.commit.complete(id)
	}
}

// NotifyCheckpointAborted implements vectorized.CheckpointListener.
func (s *Source) NotifyCheckpointAborted(id int64) {
	if s.commit != nil {
		s.commit.abort(id)
	}
}

// CommitErr returns the failure of the last offset commit (nil after a
// commit that succeeded, or before any).
func (s *Source) CommitErr() error {
	if s.commit == nil {
		return nil
	}
	s.commit.mu.Lock()
	defer s.commit.mu.Unlock()
	return s.commit.err
}
