package core

import "time"

// sourceIdleTimeout is table.exec.source.idle-timeout in streaming mode
// (batch sources end, they are never idle).
func (e *TableEnvironment) sourceIdleTimeout() time.Duration {
	if !e.streaming() {
		return 0
	}
	return e.cfg.SourceIdleTimeout()
}
