package config

import (
	"fmt"
	"strings"
)

// State backend keys (Flink's names).
const (
	// KeyStateBackend is state.backend.type: where keyed streaming state
	// lives — 'hashmap' (on the heap, the default) or 'rocksdb' (on disk,
	// in an embedded LSM: Pebble, github.com/cockroachdb/pebble). Flink's
	// deprecated names 'jobmanager' and 'filesystem' mean 'hashmap'.
	KeyStateBackend = "state.backend.type"
	// KeyStateBackendLegacy is Flink 1.x's name of the same option.
	KeyStateBackendLegacy = "state.backend"
	// KeyRocksDBMemoryManaged is state.backend.rocksdb.memory.managed:
	// when true (the default) every disk state instance of a job shares
	// one memory budget, KeyManagedMemorySize; when false each instance
	// uses Flink's fixed per-instance defaults (an 8 MB block cache, a
	// 64 MB write buffer).
	KeyRocksDBMemoryManaged = "state.backend.rocksdb.memory.managed"
	// KeyManagedMemorySize is taskmanager.memory.managed.size: the memory
	// budget of the disk state of one job (block cache, memtables and
	// the operators' caches of hot keys). Flink derives its default from
	// the TaskManager's memory; tablerun's default is 128 mb.
	KeyManagedMemorySize = "taskmanager.memory.managed.size"
)

// The state backends.
const (
	StateBackendHashMap = "hashmap"
	StateBackendRocksDB = "rocksdb"
)

func stateBackendOptions() map[string]option {
	return map[string]option{
		KeyStateBackend:         {StateBackendHashMap, stateBackendCheck},
		KeyStateBackendLegacy:   {"", optionalStateBackendCheck},
		KeyRocksDBMemoryManaged: {"true", boolCheck},
		KeyManagedMemorySize:    {"128 mb", memorySizeCheck},
	}
}

// normalStateBackend maps a state.backend.type value to hashmap or
// rocksdb, or fails as Flink's StateBackendLoader does (an unknown name
// is taken for a factory class that cannot be found).
func normalStateBackend(v string) (string, error) {
	switch name := strings.ToLower(strings.TrimSpace(v)); name {
	case "hashmap", "jobmanager", "filesystem":
		return StateBackendHashMap, nil
	case "rocksdb":
		return StateBackendRocksDB, nil
	case "forst":
		return "", fmt.Errorf("not supported yet: state.backend.type 'forst' (use 'hashmap' or 'rocksdb')")
	default:
		return "", fmt.Errorf("Cannot find configured state backend factory class: %s", strings.TrimSpace(v))
	}
}

func stateBackendCheck(key, v string) (string, error) {
	if _, err := normalStateBackend(v); err != nil {
		class := "org.apache.flink.util.DynamicCodeLoadingException"
		if strings.HasPrefix(err.Error(), "not supported yet") {
			class = illegalArg
		}
		return "", &ValueError{Key: key, Class: class, Msg: err.Error()}
	}
	return v, nil
}

func optionalStateBackendCheck(key, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return v, nil
	}
	return stateBackendCheck(key, v)
}

// StateBackendConfig is the state backend of a streaming job.
type StateBackendConfig struct {
	// Type is StateBackendHashMap or StateBackendRocksDB.
	Type string
	// Managed is state.backend.rocksdb.memory.managed.
	Managed bool
	// ManagedSize is taskmanager.memory.managed.size in bytes.
	ManagedSize int64
}

// StateBackend returns the state backend configuration
// (state.backend.type, or Flink 1.x's state.backend when only that is
// set).
func (c *Config) StateBackend() (StateBackendConfig, error) {
	v := c.str(KeyStateBackend)
	if c.IsSet(KeyStateBackendLegacy) && !c.IsSet(KeyStateBackend) {
		v = c.str(KeyStateBackendLegacy)
	}
	t, err := normalStateBackend(v)
	if err != nil {
		return StateBackendConfig{}, err
	}
	size, err := ParseMemorySize(c.str(KeyManagedMemorySize))
	if err != nil {
		return StateBackendConfig{}, err
	}
	return StateBackendConfig{Type: t, Managed: c.boolean(KeyRocksDBMemoryManaged), ManagedSize: size}, nil
}
