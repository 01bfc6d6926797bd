package config

import "strings"

// KeyProcessMemorySize is Flink's taskmanager.memory.process.size: the
// total memory of a TaskManager process. tablerun runs the job in its own
// process and maps it to the Go runtime's soft memory limit
// (runtime/debug.SetMemoryLimit) when a job starts: near it the garbage
// collector runs more often, so garbage no longer doubles the heap. It is
// a limit for the collector, not a cap on allocation (the spill budget
// and the state backend's cache decide how much memory operators keep),
// and it covers the memory the Go runtime manages, not the binary.
// Process-wide: the last job started sets it. Unset by default.
const KeyProcessMemorySize = "taskmanager.memory.process.size"

func memoryOptions() map[string]option {
	return map[string]option{
		KeyProcessMemorySize: {"", optionalMemorySizeCheck},
	}
}

func optionalMemorySizeCheck(key, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return v, nil
	}
	return memorySizeCheck(key, v)
}

// ProcessMemorySize returns taskmanager.memory.process.size in bytes, or
// 0 when it is not set.
func (c *Config) ProcessMemorySize() int64 {
	v := c.str(KeyProcessMemorySize)
	if strings.TrimSpace(v) == "" {
		return 0
	}
	n, err := ParseMemorySize(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
