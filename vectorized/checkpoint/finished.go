package checkpoint

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tablerun/tablerun/vectorized"
)

// Finished tasks (Flink's checkpoints after tasks finish, FLIP-147).
//
// A task whose input has ended — a bounded source after its last batch, an
// operator after EndOfInput — sees no more barriers. It hands its final
// state to Finish once; the coordinator writes it under the job's directory
// and acknowledges every later checkpoint for the task with a link (or a
// copy) of that file, so checkpoints go on while the rest of the job runs
// (a bounded side input of a join, say). A restored finished task gets its
// final state back and its input ends again at once.

// Finish records the final state of task: write is called once, with a
// full (never incremental) writer. The checkpoint in progress, if the task
// has not acknowledged it, and every later one include that state.
func (c *Coordinator) Finish(task TaskID, write func(w vectorized.StateWriter) error) error {
	c.mu.Lock()
	if !c.tasks[task] {
		c.mu.Unlock()
		return fmt.Errorf("task %s is not a participant of job %s", task, c.cfg.JobID)
	}
	if _, dup := c.finished[task]; dup {
		c.mu.Unlock()
		return fmt.Errorf("task %s finished twice", task)
	}
	c.mu.Unlock()
	fw := newFileWriter()
	if err := write(fw); err != nil {
		_ = fw.close()
		return fmt.Errorf("final state of task %s: %w", task, err)
	}
	if err := fw.close(); err != nil {
		return fmt.Errorf("final state of task %s: %w", task, err)
	}
	dir := filepath.Join(c.cfg.Dir, c.cfg.JobID, "finished")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("final state of task %s: %w", task, err)
	}
	tm, err := writeEncoded(dir, task, fw)
	if err != nil {
		return fmt.Errorf("final state of task %s: %w", task, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished == nil {
		c.finished = map[TaskID]taskMeta{}
	}
	c.finished[task] = tm
	if p := c.pending; p != nil && !p.failed && !p.completing {
		if _, acked := p.acks[task]; !acked {
			if err := c.ackFinishedLocked(p, task, tm); err != nil {
				return err
			}
			if len(p.acks) == len(c.tasks) {
				p.completing = true
				p.timer.Stop()
				c.finals.Add(1) // finalize's Done (Stop waits for it)
				go c.finalize(p)
			}
		}
	}
	return nil
}

// ackFinishedLocked puts a finished task's final state file into the
// checkpoint p and acknowledges it (c.mu held).
func (c *Coordinator) ackFinishedLocked(p *pendingCheckpoint, task TaskID, tm taskMeta) error {
	src := filepath.Join(c.cfg.Dir, c.cfg.JobID, "finished", tm.File)
	dst := filepath.Join(p.dir, tm.File)
	if err := os.Link(src, dst); err != nil {
		if err := copyFile(src, dst); err != nil {
			return err
		}
	}
	p.acks[task] = tm
	return nil
}

// copyFile copies src to dst durably (a savepoint on another file system).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeFileDurably(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
