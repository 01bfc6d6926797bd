package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Checkpointing keys (Flink's names; the 1.x spellings of the directory
// keys are accepted too).
const (
	KeyCheckpointInterval          = "execution.checkpointing.interval"
	KeyCheckpointDir               = "execution.checkpointing.dir"
	KeyCheckpointDirLegacy         = "state.checkpoints.dir"
	KeySavepointDir                = "execution.checkpointing.savepoint-dir"
	KeySavepointDirLegacy          = "state.savepoints.dir"
	KeyCheckpointRetained          = "execution.checkpointing.num-retained"
	KeyCheckpointTolerable         = "execution.checkpointing.tolerable-failed-checkpoints"
	KeyCheckpointTimeout           = "execution.checkpointing.timeout"
	KeySavepointPath               = "execution.savepoint.path"
	KeyIgnoreUnclaimed             = "execution.savepoint.ignore-unclaimed-state"
	KeyIgnoreUnclaimedNew          = "execution.state-recovery.ignore-unclaimed-state"
	KeyCheckpointIncremental       = "execution.checkpointing.incremental"
	KeyCheckpointIncrementalLegacy = "state.backend.incremental"
	checkpointDefaultTimout        = 10 * time.Minute
)

// checkpointOptions are the checkpointing keys with their defaults and
// checks (merged into the known options by Validate and Get).
func checkpointOptions() map[string]option {
	m := map[string]option{
		KeyCheckpointInterval:  {"", optionalDurationCheck},
		KeyCheckpointDir:       {"", anyString},
		KeyCheckpointDirLegacy: {"", anyString},
		KeySavepointDir:        {"", anyString},
		KeySavepointDirLegacy:  {"", anyString},
		KeyCheckpointRetained:  {"1", positiveIntCheck},
		KeyCheckpointTolerable: {"0", nonNegativeIntCheck},
		KeyCheckpointTimeout:   {"10 min", durationCheck},
		KeySavepointPath:       {"", anyString},
		KeyIgnoreUnclaimed:     {"false", boolCheck},
		// Flink 1.20's name of the same option.
		KeyIgnoreUnclaimedNew: {"", optionalBoolCheck},
		// On by default (Flink: false): delta snapshots restore exactly
		// like full ones, and cost a fraction of them for large state.
		KeyCheckpointIncremental:       {"true", boolCheck},
		KeyCheckpointIncrementalLegacy: {"", optionalBoolCheck},
	}
	for k, o := range stateBackendOptions() { // statebackend.go
		m[k] = o
	}
	for k, o := range memoryOptions() { // memory.go
		m[k] = o
	}
	return m
}

func optionalDurationCheck(key, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return v, nil
	}
	return durationCheck(key, v)
}

func optionalBoolCheck(key, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return v, nil
	}
	return boolCheck(key, v)
}

func nonNegativeIntCheck(key, v string) (string, error) {
	if _, err := intCheck(key, v); err != nil {
		return "", err
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(v)); n < 0 {
		return "", &ValueError{Key: key, Class: illegalArg, Msg: fmt.Sprintf("%s must not be negative, got %s", key, v)}
	}
	return v, nil
}

// Checkpointing is the checkpoint configuration of a streaming job.
type Checkpointing struct {
	// Interval is execution.checkpointing.interval; 0 is off.
	Interval time.Duration
	// Dir is execution.checkpointing.dir (or state.checkpoints.dir).
	Dir string
	// SavepointDir is execution.checkpointing.savepoint-dir (or
	// state.savepoints.dir): the default target of STOP JOB … WITH
	// SAVEPOINT.
	SavepointDir string
	// NumRetained is execution.checkpointing.num-retained.
	NumRetained int
	// TolerableFailures is
	// execution.checkpointing.tolerable-failed-checkpoints.
	TolerableFailures int
	// Timeout is execution.checkpointing.timeout.
	Timeout time.Duration
	// Incremental is execution.checkpointing.incremental: operators with
	// large keyed state (the group aggregates) write only what changed
	// since their previous checkpoint, on top of it.
	Incremental bool
	// RestorePath is execution.savepoint.path: the checkpoint or savepoint
	// the next job starts from (a chk-<n> or savepoint directory, or a
	// directory holding checkpoints: its newest valid one).
	RestorePath string
	// IgnoreUnclaimed is execution.savepoint.ignore-unclaimed-state (or
	// execution.state-recovery.ignore-unclaimed-state): a restore may
	// leave the state of operators the new plan does not have unused
	// (Flink's --allowNonRestoredState).
	IgnoreUnclaimed bool
}

// Checkpointing returns the checkpoint configuration. An interval without
// a directory is an error: a checkpoint needs somewhere durable to go.
func (c *Config) Checkpointing() (Checkpointing, error) {
	var ck Checkpointing
	if v := strings.TrimSpace(c.str(KeyCheckpointInterval)); v != "" {
		d, err := ParseDuration(v)
		if err != nil {
			return ck, err
		}
		ck.Interval = d
	}
	ck.Dir = firstSet(c.str(KeyCheckpointDir), c.str(KeyCheckpointDirLegacy))
	ck.SavepointDir = firstSet(c.str(KeySavepointDir), c.str(KeySavepointDirLegacy))
	ck.NumRetained, _ = strconv.Atoi(strings.TrimSpace(c.str(KeyCheckpointRetained)))
	ck.TolerableFailures, _ = strconv.Atoi(strings.TrimSpace(c.str(KeyCheckpointTolerable)))
	ck.Timeout = checkpointDefaultTimout
	if d, err := ParseDuration(c.str(KeyCheckpointTimeout)); err == nil && d > 0 {
		ck.Timeout = d
	}
	ck.RestorePath = strings.TrimSpace(c.str(KeySavepointPath))
	ck.IgnoreUnclaimed = c.boolean(KeyIgnoreUnclaimed)
	if c.IsSet(KeyIgnoreUnclaimedNew) && !c.IsSet(KeyIgnoreUnclaimed) {
		ck.IgnoreUnclaimed = c.boolean(KeyIgnoreUnclaimedNew)
	}
	ck.Incremental = c.boolean(KeyCheckpointIncremental)
	if c.IsSet(KeyCheckpointIncrementalLegacy) && !c.IsSet(KeyCheckpointIncremental) {
		ck.Incremental = c.boolean(KeyCheckpointIncrementalLegacy)
	}
	if ck.Interval > 0 && ck.Dir == "" {
		return ck, fmt.Errorf("Checkpointing is enabled ('%s' = '%s') but no checkpoint directory is configured: set '%s'.",
			KeyCheckpointInterval, c.str(KeyCheckpointInterval), KeyCheckpointDir)
	}
	return ck, nil
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
