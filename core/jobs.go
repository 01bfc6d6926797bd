package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/vectorized/build"
	"github.com/tablerun/tablerun/vectorized/checkpoint"
)

// Jobs: every INSERT (or statement set) runs as a job with Flink's id and
// name, listed by SHOW JOBS and stopped by STOP JOB. A job runs to the
// end inside ExecuteSQL (tablerun is its own cluster), unless the session
// explicitly sets 'table.dml-sync' = 'false': then ExecuteSQL submits it,
// returns at once with the job id, and the job runs in the background
// (AwaitJobs waits for such jobs; the CLI does at exit). Jobs are listed
// and stopped without the session lock, so another goroutine can stop a
// job that a synchronous ExecuteSQL is running.

// Job states, as Flink prints them.
const (
	JobRunning  = "RUNNING"
	JobFinished = "FINISHED"
	JobFailed   = "FAILED"
	JobCanceled = "CANCELED"
)

// JobInfo describes a job of the session.
type JobInfo struct {
	// ID is the job's 32-digit hex id.
	ID string
	// Name is pipeline.name or Flink's "insert-into_<sink>".
	Name string
	// Status is RUNNING, FINISHED, FAILED or CANCELED.
	Status string
	// Start is when the job was submitted.
	Start time.Time
	// Err is the failure of a FAILED job.
	Err error
	// Checkpoints describes the job's checkpoints (zero without
	// checkpointing).
	Checkpoints checkpoint.Stats
	// Savepoint is the savepoint STOP JOB … WITH SAVEPOINT took.
	Savepoint string
}

// job is a running or ended job.
type job struct {
	mu       sync.Mutex
	info     JobInfo
	cancel   context.CancelCauseFunc
	coord    *checkpoint.Coordinator
	done     chan struct{}
	stopping bool
	drain    *build.Drainer // ends the sources for STOP JOB … WITH DRAIN
	async    bool           // submitted to run in the background
}

// errJobStopped is the cause a stopped job is cancelled with.
var errJobStopped = errors.New("job stopped")

// jobRegistry holds the jobs of a session.
type jobRegistry struct {
	mu   sync.Mutex
	jobs []*job
}

func (e *TableEnvironment) jobRegistry() *jobRegistry {
	e.jobsOnce.Do(func() { e.jobs = &jobRegistry{} })
	return e.jobs
}

// newJob prepares a job; register lists it once it is submitted, and the
// caller runs it and calls finish.
func (e *TableEnvironment) newJob(ctx context.Context, name string) (*job, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	j := &job{info: JobInfo{ID: checkpoint.NewJobID(), Name: name, Status: JobRunning, Start: time.Now()},
		cancel: cancel, done: make(chan struct{}), drain: build.NewDrainer()}
	return j, ctx
}

// register lists a submitted job (SHOW JOBS); async marks a job running in
// the background, which AwaitJobs waits for.
func (e *TableEnvironment) register(j *job, async bool) {
	j.async = async
	r := e.jobRegistry()
	r.mu.Lock()
	r.jobs = append(r.jobs, j)
	r.mu.Unlock()
}

// finish records the end of a job.
func (j *job) finish(err error) {
	j.mu.Lock()
	switch {
	case j.stopping && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, errJobStopped)):
		// Flink: stop-with-savepoint finishes a job; a plain stop cancels
		// it.
		j.info.Status = JobCanceled
		if j.info.Savepoint != "" {
			j.info.Status = JobFinished
		}
	case err == nil:
		j.info.Status = JobFinished
	case errors.Is(err, context.Canceled):
		j.info.Status = JobCanceled
	default:
		j.info.Status = JobFailed
		j.info.Err = err
	}
	if j.coord != nil {
		j.info.Checkpoints = j.coord.Stats()
	}
	j.mu.Unlock()
	j.cancel(nil)
	close(j.done)
}

// snapshot returns the job's info with fresh checkpoint statistics.
func (j *job) snapshot() JobInfo {
	j.mu.Lock()
	defer j.mu.Unlock()
	info := j.info
	if j.coord != nil && info.Status == JobRunning {
		info.Checkpoints = j.coord.Stats()
	}
	return info
}

// Jobs lists the session's jobs, oldest first.
func (e *TableEnvironment) Jobs() []JobInfo {
	r := e.jobRegistry()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]JobInfo, len(r.jobs))
	for i, j := range r.jobs {
		out[i] = j.snapshot()
	}
	return out
}

func (e *TableEnvironment) findJob(id string) (*job, error) {
	r := e.jobRegistry()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.jobs {
		if strings.EqualFold(j.info.ID, id) {
			return j, nil
		}
	}
	return nil, fmt.Errorf("Could not stop job %s in session %s: job not found", id, "default")
}

// DrainJob stops a running job as Flink's STOP JOB … WITH DRAIN does: its
// sources end as if they were bounded, so event-time windows fire,
// aggregates emit what they hold and sinks commit everything; the job
// ends FINISHED. DrainJob returns when the job has ended.
func (e *TableEnvironment) DrainJob(ctx context.Context, id string) error {
	j, err := e.findJob(id)
	if err != nil {
		return err
	}
	j.mu.Lock()
	st := j.info.Status
	j.mu.Unlock()
	if st != JobRunning {
		return fmt.Errorf("Could not stop job %s: the job is %s, not RUNNING.", id, st)
	}
	j.drain.Drain()
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StopJob stops a running job. With savepoint, it first takes a savepoint
// into dir (or execution.checkpointing.savepoint-dir when dir is empty)
// and returns its path: the sinks commit what the savepoint covers, and a
// job started with 'execution.savepoint.path' set to it continues exactly
// there. StopJob returns when the job has ended.
func (e *TableEnvironment) StopJob(ctx context.Context, id string, savepoint bool, dir string) (string, error) {
	j, err := e.findJob(id)
	if err != nil {
		return "", err
	}
	j.mu.Lock()
	if j.info.Status != JobRunning {
		st := j.info.Status
		j.mu.Unlock()
		return "", fmt.Errorf("Could not stop job %s: the job is %s, not RUNNING.", id, st)
	}
	coord := j.coord
	j.mu.Unlock()
	path := ""
	if savepoint {
		if dir == "" {
			ck, err := e.checkpointConfig()
			if err != nil {
				return "", err
			}
			dir = ck.SavepointDir
		}
		if dir == "" {
			return "", fmt.Errorf("No savepoint directory is configured: set '%s' or pass a directory.", config.KeySavepointDir)
		}
		if coord == nil {
			return "", fmt.Errorf("not supported yet: a savepoint of a job that runs without checkpointing; set '%s' (and '%s') before submitting it",
				config.KeyCheckpointInterval, config.KeyCheckpointDir)
		}
		if path, err = coord.TriggerSavepoint(ctx, dir); err != nil {
			return "", fmt.Errorf("Could not stop job %s with a savepoint: %w", id, err)
		}
	}
	j.mu.Lock()
	j.stopping = true
	j.info.Savepoint = path
	j.mu.Unlock()
	j.cancel(errJobStopped)
	select {
	case <-j.done:
	case <-ctx.Done():
		return path, ctx.Err()
	}
	return path, nil
}

// AwaitJobs waits until every job submitted in the background has ended
// and returns the first failure among them (a job run to its end inside
// ExecuteSQL reported its failure there).
func (e *TableEnvironment) AwaitJobs(ctx context.Context) error {
	r := e.jobRegistry()
	r.mu.Lock()
	jobs := append([]*job(nil), r.jobs...)
	r.mu.Unlock()
	var first error
	for _, j := range jobs {
		if !j.async {
			continue
		}
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		j.mu.Lock()
		if j.info.Err != nil && first == nil {
			first = fmt.Errorf("job %s failed: %w", j.info.ID, j.info.Err)
		}
		j.mu.Unlock()
	}
	return first
}

// checkpointConfig reads the checkpoint options of the session.
func (e *TableEnvironment) checkpointConfig() (config.Checkpointing, error) {
	ck, err := e.cfg.Checkpointing()
	if err != nil {
		return ck, classify(KindValidation, err)
	}
	return ck, nil
}

// checkpointSettings returns the checkpointing of a job (nil: none): on
// with an interval, and with a restore when execution.savepoint.path is
// set.
func (e *TableEnvironment) checkpointSettings(j *job) (*build.CheckpointSettings, error) {
	if !e.streaming() {
		return nil, nil
	}
	ck, err := e.checkpointConfig()
	if err != nil {
		return nil, err
	}
	if ck.Interval <= 0 && ck.RestorePath == "" {
		return nil, nil
	}
	dir := ck.Dir
	if dir == "" {
		// A restored job without periodic checkpoints: savepoints only.
		dir = firstNonEmpty(ck.SavepointDir, filepath.Join(os.TempDir(), "tablerun-checkpoints"))
	}
	logf := func(format string, args ...any) {
		_, stderr := e.Output()
		fmt.Fprintf(stderr, "[WARN] "+format+"\n", args...)
	}
	set := &build.CheckpointSettings{
		Config: checkpoint.Config{
			Dir: dir, JobID: j.info.ID, Interval: ck.Interval, NumRetained: ck.NumRetained,
			TolerableFailures: ck.TolerableFailures, Timeout: ck.Timeout, Logf: logf,
			Incremental: ck.Incremental,
		},
		Started: func(c *checkpoint.Coordinator) {
			j.mu.Lock()
			j.coord = c
			j.mu.Unlock()
		},
	}
	if ck.RestorePath != "" {
		r, err := checkpoint.Open(ck.RestorePath, logf)
		if err != nil {
			return nil, classify(KindExecution, fmt.Errorf("Could not restore from '%s' (%s): %w", ck.RestorePath, config.KeySavepointPath, err))
		}
		set.Restore = r
		set.IgnoreUnclaimed = ck.IgnoreUnclaimed
	}
	return set, nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// jobName is pipeline.name or Flink's default name of an INSERT job.
func (e *TableEnvironment) jobName(sinks []string) string {
	if v, _ := e.cfg.Get(config.KeyPipelineName); v != "" {
		return v
	}
	return "insert-into_" + strings.Join(sinks, ",")
}

// asyncDML reports whether INSERT jobs are submitted in the background:
// only when the session explicitly sets table.dml-sync to false.
func (e *TableEnvironment) asyncDML() bool {
	return e.cfg.IsSet(config.KeyDMLSync) && !e.cfg.DMLSync()
}

// showJobs is SHOW JOBS in Flink's layout.
func (e *TableEnvironment) showJobs() *TableResult {
	jobs := e.Jobs()
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Start.Before(jobs[b].Start) })
	rows := make([][]any, len(jobs))
	for i, j := range jobs {
		rows[i] = []any{j.ID, j.Name, j.Status, j.Start.Format("2006-01-02T15:04:05.000")}
	}
	return &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "job id", Type: types.StringT}, {Name: "job name", Type: types.StringT},
		{Name: "status", Type: types.StringT}, {Name: "start time", Type: types.StringT},
	}, rows: rows}
}

// describeJob is DESCRIBE JOB 'id': Flink's columns of SHOW JOBS for one
// job, followed by tablerun's checkpoint columns (completed and failed
// checkpoints, the last one's id, duration, size, and age).
func (e *TableEnvironment) describeJob(id string) (*TableResult, error) {
	j, err := e.findJob(id)
	if err != nil {
		return nil, classify(KindExecution, fmt.Errorf("The job %s does not exist.", id))
	}
	info := j.snapshot()
	ck := info.Checkpoints
	last, dur, size, age := "", "", "", ""
	if ck.LastID > 0 {
		last = fmt.Sprint(ck.LastID)
		if ck.LastSavepoint {
			last += " (savepoint)"
		}
		dur = ck.LastDuration.Round(time.Millisecond).String()
		size = build.FormatBytes(ck.LastSize)
		age = time.Since(ck.LastCompleted).Round(time.Millisecond).String()
	}
	str := types.StringT
	return &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "job id", Type: str}, {Name: "job name", Type: str},
		{Name: "status", Type: str}, {Name: "start time", Type: str},
		{Name: "checkpoints", Type: str}, {Name: "last checkpoint", Type: str},
		{Name: "duration", Type: str}, {Name: "size", Type: str}, {Name: "age", Type: str},
	}, rows: [][]any{{info.ID, info.Name, info.Status, info.Start.Format("2006-01-02T15:04:05.000"),
		fmt.Sprintf("%d completed, %d failed", ck.Completed, ck.Failed), last, dur, size, age}}}, nil
}

// stopJob is STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]. It does not hold
// the session busy while the job drains: the caller holds the session
// lock, which a synchronous job does not need.
func (e *TableEnvironment) stopJob(ctx context.Context, s *ast.StopJob) (*TableResult, error) {
	if s.Drain {
		if s.Savepoint {
			return nil, classify(KindExecution, fmt.Errorf("not supported yet: STOP JOB … WITH SAVEPOINT WITH DRAIN (a drained job has ended: use WITH DRAIN alone, or WITH SAVEPOINT alone to resume it later)"))
		}
		if err := e.DrainJob(ctx, s.ID); err != nil {
			return nil, classify(KindExecution, err)
		}
		return okResult(), nil
	}
	path, err := e.StopJob(ctx, s.ID, s.Savepoint, "")
	if err != nil {
		return nil, classify(KindExecution, err)
	}
	if !s.Savepoint {
		return okResult(), nil
	}
	return &TableResult{kind: SuccessWithContent, schema: types.Schema{{Name: "savepoint path", Type: types.StringT}},
		rows: [][]any{{"file:" + path}}}, nil
}
