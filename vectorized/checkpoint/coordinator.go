// Package checkpoint stores and coordinates checkpoints and savepoints, and
// restores state from them.
//
// On disk it follows Flink's layout: a checkpoint is a directory
// `<dir>/<job-id>/chk-<n>/` and a savepoint a directory
// `<savepoint-dir>/savepoint-<first 6 of job id>-<12 hex>/`. Both hold one
// state file per task (operator instance), named `<operator>-<subtask>.state`,
// and a JSON `_metadata` listing the tasks with each file's size and CRC32C.
//
// A state file holds the named parts a task wrote through
// vectorized.StateWriter, each serialised as an Arrow IPC stream compressed
// with zstd. A checkpoint is complete only when every state file is fsynced
// and `_metadata` has been written under a temporary name, fsynced, renamed
// and its directory fsynced; a directory without a valid `_metadata`, or
// whose state files do not match it, is skipped on restore.
//
// Incremental checkpoints (Config.Incremental, Flink's
// execution.checkpointing.incremental): a task's snapshot may be a delta
// on top of its file in the job's latest completed checkpoint
// (vectorized.IncrementalStateWriter.DeltaOf). The _metadata entry of a
// delta lists, besides its own file, the earlier files of its chain (the
// full snapshot first, then the older deltas) as "chk-<n>/<file>" with
// size and CRC32C (Flink's shared state). Retention never deletes a file
// a retained checkpoint references: a discarded checkpoint loses its
// _metadata and its other files, and keeps the referenced ones (with a
// `_discarded` marker) until no retained checkpoint needs them. Open
// verifies every file of every chain; a bad file anywhere makes the
// checkpoint invalid, and the readers present a chain as layers
// (vectorized.LayeredStateReader). Savepoints are always self-contained.
//
// A Coordinator triggers checkpoints periodically (one at a time, as
// Flink's max-concurrent-checkpoints = 1), collects the tasks'
// snapshots, completes checkpoints, keeps the newest num-retained ones and
// notifies listeners (the sinks' Commit). Open reads a checkpoint or
// savepoint back; its readers redistribute keyed state by key group, so a
// job may restore at another parallelism.
package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/vectorized"
)

// Default values of the checkpointing options.
const (
	DefaultNumRetained = 1
	DefaultTimeout     = 10 * time.Minute
)

// ErrInProgress is returned when a checkpoint is triggered while another
// one is still in progress (Flink's max-concurrent-checkpoints = 1).
var ErrInProgress = errors.New("another checkpoint is still in progress")

// Config configures a Coordinator.
type Config struct {
	// Dir is the checkpoint root directory (execution.checkpointing.dir,
	// state.checkpoints.dir); checkpoints go to Dir/JobID/chk-<n>.
	Dir string
	// JobID is the job's hex id (see NewJobID); empty generates one.
	JobID string
	// Interval is execution.checkpointing.interval; 0 disables periodic
	// checkpoints (savepoints still work).
	Interval time.Duration
	// NumRetained is execution.checkpointing.num-retained (0 means the
	// default, 1).
	NumRetained int
	// TolerableFailures is
	// execution.checkpointing.tolerable-failed-checkpoints: the number of
	// consecutive checkpoint failures the job tolerates (default 0).
	TolerableFailures int
	// Timeout is execution.checkpointing.timeout (0 means the default,
	// 10 minutes).
	Timeout time.Duration
	// Logf receives messages (failed checkpoints, skipped corrupt
	// checkpoints); nil discards them.
	Logf func(format string, args ...any)
	// Incremental is execution.checkpointing.incremental: a task may
	// write a delta on top of its file in its latest completed checkpoint
	// (vectorized.IncrementalStateWriter); the checkpoint's _metadata then
	// references the earlier files of the chain, and retention keeps
	// every file a retained checkpoint references.
	Incremental bool
}

// NewJobID returns a random 32-digit hex job id, as Flink's JobID.
func NewJobID() string { return randomHex(16) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// TaskID names one operator instance taking part in checkpoints. Operator
// is a stable id of the operator in the plan (say "3-GroupAggregate");
// Subtask is the instance's index (0-based).
type TaskID struct {
	Operator string
	Subtask  int
}

// String returns "<operator>-<subtask>", the state file's base name.
func (t TaskID) String() string { return t.Operator + "-" + strconv.Itoa(t.Subtask) }

// Stats describes the checkpoints of a Coordinator so far.
type Stats struct {
	// Completed, Failed and InProgress count checkpoints and savepoints.
	Completed  int
	Failed     int
	InProgress int
	// LastID is the id of the last completed checkpoint (0: none).
	LastID int64
	// LastDuration is the time from trigger to completion of LastID.
	LastDuration time.Duration
	// LastSize is the size in bytes of LastID's files.
	LastSize int64
	// LastCompleted is when LastID completed.
	LastCompleted time.Time
	// LastPath is LastID's directory.
	LastPath string
	// LastSavepoint reports whether LastID was a savepoint.
	LastSavepoint bool
}

// taskChain is the chain of state files a task's snapshot in checkpoint id
// consists of: its full snapshot first, then deltas, the last being the
// file of checkpoint id.
type taskChain struct {
	id    int64
	files []fileRef
}

// pendingCheckpoint is the checkpoint in progress.
type pendingCheckpoint struct {
	id         int64
	dir        string
	savepoint  bool
	start      time.Time
	acks       map[TaskID]taskMeta
	writing    int  // Snapshot calls writing into dir
	completing bool // every task acknowledged
	failed     bool
	err        error
	timer      *time.Timer
	done       chan struct{} // closed when completed or failed
}

// Coordinator triggers checkpoints and savepoints, collects the tasks'
// state and completes checkpoints. Its methods are safe for concurrent
// use.
type Coordinator struct {
	cfg         Config
	tasks       map[TaskID]bool
	finished    map[TaskID]taskMeta // finished.go: final state files, by task
	parallelism map[string]int
	trigger     func(id int64)

	mu         sync.Mutex
	nextID     int64
	pending    *pendingCheckpoint
	consecFail int
	stats      Stats
	listeners  []func(id int64)
	aborts     []func(id int64)
	latest     map[TaskID]taskChain // each task's file chain in the latest completed checkpoint
	shared     map[string]storeFile // store files in the job's shared directory, by path (storefiles.go)
	// sharedOwner: the shared files no completed checkpoint lists yet, by
	// path, with the checkpoint in progress (or discarded) that moved them
	sharedOwner map[string]*pendingCheckpoint
	meta        map[string]string
	failedSent  bool
	started     bool
	stopped     bool

	failed    chan error
	stopCh    chan struct{}
	stopOnce  sync.Once
	triggerCh chan int64
	trigOnce  sync.Once
	loop      sync.WaitGroup
	// writers are the background writes of state files (Snapshot): Stop
	// waits for them, so no file lands in a checkpoint directory after the
	// job ended.
	writers sync.WaitGroup
	// finals are the completions of fully acknowledged checkpoints
	// (finalize): Stop waits for them, so a checkpoint's _metadata, its
	// retention and its listeners (the sinks' commits) are done when Stop
	// returns.
	finals sync.WaitGroup
}

// NewCoordinator returns a coordinator for the given participants: every
// task that must acknowledge a checkpoint (stateful operators, sources
// and sinks, all subtasks). trigger is called on the coordinator's own
// goroutine, one call at a time and in id order, to ask the sources to
// inject the barrier of checkpoint id. Call Stop when the job ends.
func NewCoordinator(cfg Config, tasks []TaskID, trigger func(id int64)) (*Coordinator, error) {
	if cfg.JobID == "" {
		cfg.JobID = NewJobID()
	}
	if strings.ContainsAny(cfg.JobID, `/\`) || strings.HasPrefix(cfg.JobID, ".") {
		return nil, fmt.Errorf("invalid job id %q", cfg.JobID)
	}
	if cfg.NumRetained < 0 {
		return nil, fmt.Errorf("Invalid value for 'execution.checkpointing.num-retained': %d (must be at least 1)", cfg.NumRetained)
	}
	if cfg.NumRetained == 0 {
		cfg.NumRetained = DefaultNumRetained
	}
	if cfg.TolerableFailures < 0 {
		return nil, fmt.Errorf("The tolerable failure checkpoint number must be non-negative.")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("Checkpoint timeout must be larger than zero.")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("Checkpoint interval must be larger than or equal to zero.")
	}
	if cfg.Interval > 0 && cfg.Dir == "" {
		return nil, errors.New("checkpointing is enabled but no checkpoint directory is set: set 'execution.checkpointing.dir'")
	}
	if trigger == nil {
		return nil, errors.New("checkpoint coordinator: nil trigger function")
	}
	c := &Coordinator{
		cfg:         cfg,
		tasks:       map[TaskID]bool{},
		parallelism: map[string]int{},
		trigger:     trigger,
		nextID:      1,
		failed:      make(chan error, 1),
		stopCh:      make(chan struct{}),
		triggerCh:   make(chan int64, 4),
		latest:      map[TaskID]taskChain{},
		shared:      map[string]storeFile{},
		sharedOwner: map[string]*pendingCheckpoint{},
	}
	for _, t := range tasks {
		if t.Operator == "" || strings.ContainsAny(t.Operator, `/\`) || strings.HasPrefix(t.Operator, ".") || strings.HasPrefix(t.Operator, "_") {
			return nil, fmt.Errorf("invalid operator id %q", t.Operator)
		}
		if t.Subtask < 0 {
			return nil, fmt.Errorf("invalid subtask %d of operator %s", t.Subtask, t.Operator)
		}
		if c.tasks[t] {
			return nil, fmt.Errorf("duplicate task %s", t)
		}
		c.tasks[t] = true
		if t.Subtask+1 > c.parallelism[t.Operator] {
			c.parallelism[t.Operator] = t.Subtask + 1
		}
	}
	return c, nil
}

// JobID returns the job id checkpoints are written under.
func (c *Coordinator) JobID() string { return c.cfg.JobID }

func (c *Coordinator) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}

// SetFirstID sets the id of the next checkpoint to trigger: after a
// restore from checkpoint n, call SetFirstID(n+1) so that ids keep
// increasing. Ids below 1 are ignored.
func (c *Coordinator) SetFirstID(id int64) {
	if id < 1 {
		return
	}
	c.mu.Lock()
	c.nextID = id
	c.mu.Unlock()
}

// SetMeta sets the opaque key/value pairs written into the _metadata of
// every later checkpoint (see Restored.Meta).
func (c *Coordinator) SetMeta(m map[string]string) {
	cp := make(map[string]string, len(m))
	for k, v := range m {
		cp[k] = v
	}
	c.mu.Lock()
	c.meta = cp
	c.mu.Unlock()
}

// OnComplete registers a listener called after a checkpoint's _metadata
// is durable (the sinks' Commit), with the checkpoint's id. Listeners run
// on a coordinator goroutine, one checkpoint at a time in id order, and
// also for savepoints; no new checkpoint is triggered until they return,
// so a listener must not wait for another checkpoint or call Stop.
func (c *Coordinator) OnComplete(fn func(id int64)) {
	c.mu.Lock()
	c.listeners = append(c.listeners, fn)
	c.mu.Unlock()
}

// OnAbort registers a listener called when a checkpoint or savepoint
// fails, times out or is aborted, with its id. Listeners run on a
// coordinator goroutine and must not block.
func (c *Coordinator) OnAbort(fn func(id int64)) {
	c.mu.Lock()
	c.aborts = append(c.aborts, fn)
	c.mu.Unlock()
}

// Failed receives one error when the number of consecutive failed
// checkpoints exceeds TolerableFailures (a timed-out checkpoint counts as
// failed). The job should then fail.
func (c *Coordinator) Failed() <-chan error { return c.failed }

// Stats returns the checkpoint statistics.
func (c *Coordinator) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Start triggers a checkpoint every Interval until ctx is done or Stop is
// called. A trigger while a checkpoint is in progress is skipped. Start
// does nothing when Interval is 0; calling it again does nothing.
func (c *Coordinator) Start(ctx context.Context) {
	c.mu.Lock()
	if c.started || c.stopped || c.cfg.Interval <= 0 {
		c.mu.Unlock()
		return
	}
	c.started = true
	c.loop.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.loop.Done()
		tick := time.NewTicker(c.cfg.Interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-c.stopCh:
				return
			case <-tick.C:
				if _, err := c.triggerCheckpoint(""); err != nil && !errors.Is(err, ErrInProgress) {
					c.logf("Failed to trigger checkpoint for job %s: %v", c.cfg.JobID, err)
				}
			}
		}
	}()
}

// Stop ends periodic triggering and aborts the checkpoint in progress
// (without counting it as failed). A checkpoint whose tasks have all
// acknowledged still completes (and calls its listeners); Stop waits for
// it.
func (c *Coordinator) Stop() {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		c.stopped = true
		p := c.pending
		c.mu.Unlock()
		close(c.stopCh)
		if p != nil {
			c.fail(p, errors.New("Checkpoint Coordinator is suspending."), false, false)
		}
		c.loop.Wait()
		c.writers.Wait()
		c.finals.Wait()
	})
}

// sendTrigger hands id to the trigger goroutine.
func (c *Coordinator) sendTrigger(id int64) {
	c.trigOnce.Do(func() {
		go func() {
			for {
				select {
				case <-c.stopCh:
					return
				case id := <-c.triggerCh:
					c.trigger(id)
				}
			}
		}()
	})
	select {
	case c.triggerCh <- id:
	case <-c.stopCh:
	}
}

// triggerCheckpoint starts a checkpoint (savepointDir == "") or a
// savepoint into savepointDir.
func (c *Coordinator) triggerCheckpoint(savepointDir string) (*pendingCheckpoint, error) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil, errors.New("Checkpoint Coordinator is shut down.")
	}
	if c.pending != nil {
		c.mu.Unlock()
		return nil, ErrInProgress
	}
	id := c.nextID
	var dir string
	var err error
	if savepointDir != "" {
		dir = filepath.Join(savepointDir, "savepoint-"+c.cfg.JobID[:min(6, len(c.cfg.JobID))]+"-"+randomHex(6))
		if err = os.MkdirAll(savepointDir, 0o755); err == nil {
			err = os.Mkdir(dir, 0o755)
		}
	} else {
		if c.cfg.Dir == "" {
			c.mu.Unlock()
			return nil, errors.New("no checkpoint directory is set: set 'execution.checkpointing.dir'")
		}
		jobDir := filepath.Join(c.cfg.Dir, c.cfg.JobID)
		dir = filepath.Join(jobDir, "chk-"+strconv.FormatInt(id, 10))
		if err = os.MkdirAll(jobDir, 0o755); err == nil {
			err = os.Mkdir(dir, 0o755)
		}
	}
	if err != nil {
		c.nextID++
		c.stats.Failed++
		c.mu.Unlock()
		err = fmt.Errorf("creating checkpoint directory: %w", err)
		if savepointDir == "" {
			c.countFailure(id, err)
		}
		return nil, err
	}
	c.nextID++
	p := &pendingCheckpoint{
		id:        id,
		dir:       dir,
		savepoint: savepointDir != "",
		start:     time.Now(),
		acks:      map[TaskID]taskMeta{},
		done:      make(chan struct{}),
	}
	c.pending = p
	c.stats.InProgress = 1
	for task, tm := range c.finished { // finished.go
		if err := c.ackFinishedLocked(p, task, tm); err != nil {
			c.logf("Checkpoint %d of job %s: finished task %s: %v", id, c.cfg.JobID, task, err)
		}
	}
	p.timer = time.AfterFunc(c.cfg.Timeout, func() {
		c.fail(p, errors.New("Checkpoint expired before completing."), true, false)
	})
	if len(c.tasks) == 0 || len(p.acks) == len(c.tasks) {
		p.completing = true
		p.timer.Stop()
		c.finals.Add(1)
		go c.finalize(p)
	}
	c.mu.Unlock()
	c.sendTrigger(id)
	return p, nil
}

// countFailure counts a failed checkpoint against TolerableFailures.
func (c *Coordinator) countFailure(id int64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.consecFail++
	c.logf("Checkpoint %d of job %s failed: %v", id, c.cfg.JobID, err)
	if c.consecFail > c.cfg.TolerableFailures && !c.failedSent {
		c.failedSent = true
		c.failed <- fmt.Errorf("Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to %w", err)
	}
}

// fail aborts p unless it already ended. count tells whether the failure
// counts against TolerableFailures (never for savepoints); completing
// tells whether the caller is the completion of p itself.
func (c *Coordinator) fail(p *pendingCheckpoint, err error, count, completing bool) {
	c.mu.Lock()
	if c.pending != p || p.failed || (p.completing && !completing) {
		c.mu.Unlock()
		return
	}
	p.failed = true
	p.err = err
	p.timer.Stop()
	c.pending = nil
	c.stats.InProgress = 0
	c.stats.Failed++
	idle := p.writing == 0
	aborts := append([]func(int64){}, c.aborts...)
	c.mu.Unlock()
	if idle {
		// Otherwise the last Snapshot still writing discards it.
		_ = os.RemoveAll(p.dir)
		c.discardShared(p)
	}
	for _, fn := range aborts {
		fn(p.id)
	}
	if count && !p.savepoint {
		c.countFailure(p.id, err)
	} else {
		kind := "Checkpoint"
		if p.savepoint {
			kind = "Savepoint"
		}
		c.logf("%s %d of job %s failed: %v", kind, p.id, c.cfg.JobID, err)
	}
	close(p.done)
}

// Snapshot takes the state of task for checkpoint id: write is called with
// a StateWriter on the caller's goroutine, which encodes and compresses the
// batches at once; the state file is then written and fsynced under the
// checkpoint's directory in the background, after which the task
// acknowledges the checkpoint; when every task has acknowledged, the
// checkpoint completes. Safe for concurrent calls.
//
// A Snapshot for a checkpoint that already failed, timed out or was
// aborted returns nil without writing. If write fails, the checkpoint fails
// (counted against TolerableFailures) and the error is returned too; a
// failing file fails the checkpoint the same way, reported through the log
// and Failed. A task that is not a participant or acknowledges twice is an
// error.
func (c *Coordinator) Snapshot(id int64, task TaskID, write func(w vectorized.StateWriter) error) error {
	c.mu.Lock()
	if !c.tasks[task] {
		c.mu.Unlock()
		return fmt.Errorf("checkpoint %d: task %s is not a participant of job %s", id, task, c.cfg.JobID)
	}
	p := c.pending
	if p == nil || p.id != id {
		next := c.nextID
		c.mu.Unlock()
		if id < next {
			return nil // ended already
		}
		return fmt.Errorf("checkpoint %d of job %s was not triggered", id, c.cfg.JobID)
	}
	if _, dup := p.acks[task]; dup {
		c.mu.Unlock()
		return fmt.Errorf("checkpoint %d: task %s acknowledged twice", id, task)
	}
	if c.stopped {
		c.mu.Unlock()
		return nil
	}
	p.writing++
	// Stop waits for this call too, not only for the background write:
	// the store files it moves into shared/ must be gone with an aborted
	// checkpoint when Stop returns.
	c.writers.Add(1)
	c.mu.Unlock()
	defer c.writers.Done()

	// The state is encoded and compressed on the task's goroutine (so the
	// operator may change its state right after, and memory holds only the
	// compressed copy); writing and fsyncing the file happen in the
	// background, so the task goes on with its input at once.
	fw := newFileWriter()
	fw.id = id
	if c.cfg.Incremental && !p.savepoint {
		fw.incremental = true
		fw.deltaOf = func(base int64) ([]fileRef, error) { return c.baseChain(task, base) }
		fw.store = storeTarget{c: c, p: p, jobDir: filepath.Join(c.cfg.Dir, c.cfg.JobID), chkDir: p.dir, task: task}
	}
	if err := write(fw); err != nil {
		c.endWrite(p, id, task, taskMeta{}, err)
		return fmt.Errorf("checkpoint %d: task %s: %w", id, task, err)
	}
	if err := fw.close(); err != nil {
		c.endWrite(p, id, task, taskMeta{}, err)
		return fmt.Errorf("checkpoint %d: task %s: %w", id, task, err)
	}
	c.writers.Go(func() {
		tm, err := writeEncoded(p.dir, task, fw)
		c.endWrite(p, id, task, tm, err)
	})
	return nil
}

// baseChain returns the files a delta of task on top of checkpoint base
// references: base must be the latest completed checkpoint.
func (c *Coordinator) baseChain(task TaskID, base int64) ([]fileRef, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.latest[task]
	if !ok || ch.id != base {
		return nil, fmt.Errorf("task %s: checkpoint %d is not its latest completed checkpoint", task, base)
	}
	return append([]fileRef(nil), ch.files...), nil
}

// endWrite records the end of a task's state file: it acknowledges the
// checkpoint, or fails it.
func (c *Coordinator) endWrite(p *pendingCheckpoint, id int64, task TaskID, tm taskMeta, err error) {
	c.mu.Lock()
	p.writing--
	if p.failed {
		// The checkpoint ended while we wrote: the last writer discards it.
		last := p.writing == 0
		c.mu.Unlock()
		if last {
			_ = os.RemoveAll(p.dir)
			c.discardShared(p)
		}
		return
	}
	if err != nil {
		c.mu.Unlock()
		err = fmt.Errorf("checkpoint %d: task %s: %w", id, task, err)
		c.fail(p, err, true, false)
		return
	}
	defer c.mu.Unlock()
	p.acks[task] = tm
	if len(p.acks) == len(c.tasks) {
		p.completing = true
		p.timer.Stop()
		c.finals.Add(1)
		go c.finalize(p)
	}
}

// writeEncoded writes the encoded state of fw durably as the task's state
// file.
func writeEncoded(dir string, task TaskID, fw *fileWriter) (taskMeta, error) {
	name := stateFileName(task)
	path := filepath.Join(dir, name)
	tm := taskMeta{Operator: task.Operator, Subtask: task.Subtask, File: name, Delta: fw.base != nil, Base: fw.base, Files: fw.store.files}
	err := writeFileDurably(path, func(w io.Writer) error {
		n, crc, err := fw.writeTo(w)
		tm.Size, tm.CRC32C = n, crc
		return err
	})
	if err != nil {
		return taskMeta{}, fmt.Errorf("writing %s: %w", path, err)
	}
	return tm, nil
}

// Decline reports that task cannot take checkpoint id: the checkpoint
// fails (counted against TolerableFailures).
func (c *Coordinator) Decline(id int64, task TaskID, err error) {
	c.mu.Lock()
	p := c.pending
	c.mu.Unlock()
	if p == nil || p.id != id {
		return
	}
	c.fail(p, fmt.Errorf("Task %s declined checkpoint %d: %w", task, id, err), true, false)
}

// finalize writes _metadata of a fully acknowledged checkpoint, applies
// retention and calls the listeners.
func (c *Coordinator) finalize(p *pendingCheckpoint) {
	defer c.finals.Done()
	c.mu.Lock()
	md := &metadata{
		Version:      metadataVersion,
		CheckpointID: p.id,
		JobID:        c.cfg.JobID,
		Timestamp:    time.Now().UnixMilli(),
		Savepoint:    p.savepoint,
		Parallelism:  map[string]int{},
		Meta:         c.meta,
	}
	for op, n := range c.parallelism {
		md.Parallelism[op] = n
	}
	var size int64
	for _, tm := range p.acks {
		md.Tasks = append(md.Tasks, tm)
		size += tm.Size
	}
	c.mu.Unlock()
	sortTasks(md.Tasks)
	n, err := writeMetadata(p.dir, md)
	if err == nil {
		// The checkpoint directory's own entry must be durable too.
		err = syncDir(filepath.Dir(p.dir))
	}
	if err != nil {
		c.fail(p, fmt.Errorf("completing checkpoint %d: %w", p.id, err), true, true)
		return
	}
	c.mu.Lock()
	c.stats.Completed++
	c.stats.LastID = p.id
	c.stats.LastDuration = time.Since(p.start)
	c.stats.LastSize = size + n
	c.stats.LastCompleted = time.Now()
	c.stats.LastPath = p.dir
	c.stats.LastSavepoint = p.savepoint
	if !p.savepoint {
		c.consecFail = 0
		chk := filepath.Base(p.dir)
		for _, tm := range md.Tasks {
			files := append(append([]fileRef(nil), tm.Base...), fileRef{Checkpoint: p.id, File: chk + "/" + tm.File, Size: tm.Size, CRC32C: tm.CRC32C})
			c.latest[TaskID{Operator: tm.Operator, Subtask: tm.Subtask}] = taskChain{id: p.id, files: files}
		}
	}
	listeners := append([]func(int64){}, c.listeners...)
	c.mu.Unlock()
	c.ownShared(p)
	if !p.savepoint {
		c.retain(p.id)
	}
	for _, fn := range listeners {
		fn(p.id)
	}
	c.mu.Lock()
	if c.pending == p {
		c.pending = nil
		c.stats.InProgress = 0
	}
	c.mu.Unlock()
	close(p.done)
}

// retain deletes the completed checkpoints of this job older than the
// newest NumRetained, and incomplete ones older than latest, except the
// state files a retained checkpoint still references (the base of its
// deltas): a discarded checkpoint loses its _metadata and the files no
// retained checkpoint needs; its directory goes once it is empty.
func (c *Coordinator) retain(latest int64) {
	jobDir := filepath.Join(c.cfg.Dir, c.cfg.JobID)
	entries, err := os.ReadDir(jobDir)
	if err != nil {
		c.logf("Failed to list checkpoints in %s: %v", jobDir, err)
		return
	}
	var complete, incomplete []int64
	for _, e := range entries {
		id, ok := checkpointDirID(e.Name())
		if !ok || !e.IsDir() || id > latest {
			continue
		}
		dir := filepath.Join(jobDir, e.Name())
		if _, err := os.Stat(filepath.Join(dir, MetadataFile)); err == nil {
			complete = append(complete, id)
		} else if id < latest {
			incomplete = append(incomplete, id)
		}
	}
	sort.Slice(complete, func(i, j int) bool { return complete[i] > complete[j] })
	discard := incomplete
	keep := map[string]bool{} // state files of retained checkpoints, relative to jobDir
	for i, id := range complete {
		chk := "chk-" + strconv.FormatInt(id, 10)
		if i >= c.cfg.NumRetained {
			discard = append(discard, id)
			continue
		}
		md, err := readMetadata(filepath.Join(jobDir, chk))
		if err != nil {
			c.logf("Not discarding old checkpoints of job %s: reading retained checkpoint %s: %v", c.cfg.JobID, chk, err)
			return
		}
		for _, t := range md.Tasks {
			keep[chk+"/"+t.File] = true
			for _, ref := range t.Base {
				keep[ref.File] = true
			}
			for _, f := range t.Files {
				keep[f.Path] = true
			}
		}
	}
	c.sweepShared(jobDir, keep) // storefiles.go
	for _, id := range discard {
		chk := "chk-" + strconv.FormatInt(id, 10)
		dir := filepath.Join(jobDir, chk)
		// _metadata goes first: a crash halfway leaves an incomplete
		// checkpoint, not one with missing state files.
		if err := os.Remove(filepath.Join(dir, MetadataFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.logf("Failed to discard checkpoint %s: %v", dir, err)
			continue
		}
		files, err := os.ReadDir(dir)
		if err != nil {
			c.logf("Failed to discard checkpoint %s: %v", dir, err)
			continue
		}
		kept := false
		for _, f := range files {
			if keep[chk+"/"+f.Name()] {
				kept = true
				continue
			}
			if f.Name() == discardedMarker {
				continue
			}
			if err := os.RemoveAll(filepath.Join(dir, f.Name())); err != nil {
				c.logf("Failed to discard checkpoint %s: %v", dir, err)
			}
		}
		marker := filepath.Join(dir, discardedMarker)
		if kept {
			// Open skips the directory silently: it is no checkpoint
			// any more, only the keeper of shared state files.
			if f, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				_ = f.Close()
			}
			continue
		}
		_ = os.Remove(marker)
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.logf("Failed to discard checkpoint %s: %v", dir, err)
		}
	}
}

// TriggerSavepoint takes a savepoint into a new directory under dir now
// (after the checkpoint in progress, if any), waits until it is complete
// and returns its path. If ctx ends first the savepoint is aborted.
// Savepoint failures do not count against TolerableFailures.
func (c *Coordinator) TriggerSavepoint(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("No savepoint directory configured. You can either specify a directory explicitly or configure a default savepoint directory via 'execution.checkpointing.savepoint-dir'.")
	}
	return c.triggerAndWait(ctx, dir)
}

// TriggerCheckpoint takes a checkpoint now (after the one in progress, if
// any), waits until it is complete and returns its path. If ctx ends
// first the checkpoint is aborted (not counted as failed).
func (c *Coordinator) TriggerCheckpoint(ctx context.Context) (string, error) {
	return c.triggerAndWait(ctx, "")
}

func (c *Coordinator) triggerAndWait(ctx context.Context, dir string) (string, error) {
	kind := "checkpoint"
	if dir != "" {
		kind = "savepoint"
	}
	var p *pendingCheckpoint
	for {
		var err error
		p, err = c.triggerCheckpoint(dir)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrInProgress) {
			return "", fmt.Errorf("triggering %s: %w", kind, err)
		}
		c.mu.Lock()
		cur := c.pending
		c.mu.Unlock()
		if cur == nil {
			continue
		}
		select {
		case <-cur.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		c.fail(p, ctx.Err(), false, false)
		<-p.done
	}
	if p.err != nil {
		return "", fmt.Errorf("%s %d failed: %w", kind, p.id, p.err)
	}
	return p.dir, nil
}
