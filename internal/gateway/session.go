package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablerun/tablerun/core"
)

// session is one gateway session: its own TableEnvironment and the
// operations submitted in it.
type session struct {
	handle string
	name   string
	env    *core.TableEnvironment

	last atomic.Int64 // unix nanoseconds of the last request

	// exec serialises the session's statements (the TableEnvironment runs
	// one at a time anyway; holding it across the per-statement
	// executionConfig keeps that configuration to its statement).
	exec sync.Mutex

	mu     sync.Mutex
	ops    map[string]*operation
	closed bool
	wg     sync.WaitGroup // the operations' goroutines
}

func newSession(handle, name string, settings core.EnvironmentSettings, stdout, stderr io.Writer) *session {
	env := core.NewTableEnvironment(settings)
	// the print connector writes where a TaskManager would: the gateway's
	// own output, never the client's
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	env.SetOutput(stdout, stderr)
	ss := &session{handle: handle, name: name, env: env, ops: map[string]*operation{}}
	ss.touch()
	return ss
}

func (ss *session) touch() { ss.last.Store(time.Now().UnixNano()) }

func (ss *session) lastAccess() time.Time { return time.Unix(0, ss.last.Load()) }

func (ss *session) operation(h string) *operation {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.ops[h]
}

var errSessionClosed = errors.New("The session has been closed.")

// submit starts a statement on a goroutine of its own and returns its
// operation at once (PENDING until the session's earlier statements are
// done).
func (ss *session) submit(stmt string, conf map[string]string, timeout time.Duration) (*operation, error) {
	ctx, cancel := context.WithCancel(context.Background())
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
	}
	op := &operation{handle: newHandle(), ctx: ctx, cancel: cancel, done: make(chan struct{}), status: statusPending}
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		cancel()
		return nil, errSessionClosed
	}
	ss.ops[op.handle] = op
	ss.wg.Add(1)
	ss.mu.Unlock()
	go func() {
		defer ss.wg.Done()
		defer close(op.done)
		ss.run(op, stmt, conf)
	}()
	return op, nil
}

func (ss *session) run(op *operation, stmt string, conf map[string]string) {
	defer func() {
		if p := recover(); p != nil {
			op.setStatus(statusError, fmt.Errorf("internal error: %v", p), nil)
		}
	}()
	ss.exec.Lock()
	if op.ctx.Err() != nil {
		ss.exec.Unlock()
		return // cancelled or closed while pending
	}
	if !op.setStatus(statusRunning, nil, nil) {
		ss.exec.Unlock()
		return
	}
	res, err := ss.executeLocked(op.ctx, stmt, conf)
	ss.exec.Unlock()
	if err != nil {
		if op.ctx.Err() != nil && core.IsCanceled(err) {
			return // cancel or close set the status
		}
		op.setStatus(statusError, err, nil)
		return
	}
	f := newFetcher(res)
	if !op.setStatus(statusFinished, nil, f) {
		f.close()
	}
}

// execute runs one statement synchronously (configure-session).
func (ss *session) execute(ctx context.Context, stmt string, conf map[string]string) (*core.TableResult, error) {
	ss.exec.Lock()
	defer ss.exec.Unlock()
	return ss.executeLocked(ctx, stmt, conf)
}

// executeLocked runs stmt with conf set for it only (Flink's
// executionConfig), with ss.exec held.
func (ss *session) executeLocked(ctx context.Context, stmt string, conf map[string]string) (*core.TableResult, error) {
	cfg := ss.env.Config()
	type saved struct {
		key, value string
		set        bool
	}
	var restore []saved
	for k, v := range conf {
		old, _ := cfg.Get(k)
		was := cfg.IsSet(k)
		if err := cfg.Set(k, v); err != nil {
			for _, r := range restore {
				undo(cfg, r.key, r.value, r.set)
			}
			return nil, err
		}
		restore = append(restore, saved{k, old, was})
	}
	defer func() {
		for _, r := range restore {
			undo(cfg, r.key, r.value, r.set)
		}
	}()
	return ss.env.ExecuteSQL(ctx, stmt)
}

func undo(cfg interface {
	Set(k, v string) error
	Reset(k string)
}, key, value string, wasSet bool) {
	if wasSet {
		_ = cfg.Set(key, value)
	} else {
		cfg.Reset(key)
	}
}

// cancel cancels a statement that is still running, as Flink does: a
// finished one (whose result may still stream) is closed instead.
func (ss *session) cancel(op *operation) error {
	op.mu.Lock()
	st := op.status
	switch st {
	case statusPending, statusRunning:
		op.status = statusCanceled
		op.mu.Unlock()
		op.cancel()
		<-op.done
		return nil
	}
	op.mu.Unlock()
	return fmt.Errorf("Failed to convert the Operation Status from %s to %s for %s.", st, statusCanceled, op.handle)
}

func (ss *session) closeOperation(h string) {
	ss.mu.Lock()
	op := ss.ops[h]
	delete(ss.ops, h)
	ss.mu.Unlock()
	if op != nil {
		op.close()
	}
}

// close ends every operation (and its job), stops the session's
// background jobs and closes its TableEnvironment.
func (ss *session) close() {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	ops := ss.ops
	ss.ops = map[string]*operation{}
	ss.mu.Unlock()
	for _, op := range ops {
		op.close()
	}
	ss.wg.Wait()
	for _, j := range ss.env.Jobs() {
		if j.Status == core.JobRunning {
			_, _ = ss.env.StopJob(context.Background(), j.ID, false, "")
		}
	}
	_ = ss.env.AwaitJobs(context.Background())
	_ = ss.env.Close()
}
