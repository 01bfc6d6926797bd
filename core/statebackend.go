package core

import (
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// diskState returns the disk state configuration of a streaming job when
// state.backend.type is 'rocksdb' (nil: the heap backend). The values
// were validated when they were set.
func (e *TableEnvironment) diskState() *diskstate.Config {
	if !e.streaming() {
		return nil
	}
	sb, err := e.cfg.StateBackend()
	if err != nil || sb.Type != config.StateBackendRocksDB {
		return nil
	}
	return &diskstate.Config{TmpDir: e.cfg.SpillDir(), Managed: sb.Managed, Budget: sb.ManagedSize}
}
