package core

import (
	"math"
	"runtime/debug"
	"sync"
)

// processMemory remembers the soft memory limit tablerun set, so that a
// job without taskmanager.memory.process.size restores what the process
// had (GOMEMLIMIT or none) after a job that set one.
var processMemory struct {
	sync.Mutex
	set      bool
	original int64
}

// applyProcessMemory makes n bytes (taskmanager.memory.process.size) the
// Go runtime's soft memory limit; 0 restores the limit the process started
// with. See config.KeyProcessMemorySize.
func applyProcessMemory(n int64) {
	processMemory.Lock()
	defer processMemory.Unlock()
	if n <= 0 {
		if processMemory.set {
			debug.SetMemoryLimit(processMemory.original)
			processMemory.set = false
		}
		return
	}
	if !processMemory.set {
		processMemory.original = debug.SetMemoryLimit(-1)
		processMemory.set = true
	}
	debug.SetMemoryLimit(min(n, math.MaxInt64))
}
