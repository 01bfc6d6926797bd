package config

import "time"

// KeySourceIdleTimeout is table.exec.source.idle-timeout: a source (or a
// parallel source split) that produces no rows for this long is marked
// idle, so that it does not hold back the watermark where streams merge.
// The default, 0, never marks a source idle.
const KeySourceIdleTimeout = "table.exec.source.idle-timeout"

// sourceOptions are the source keys with their defaults and checks
// (merged into the known options by Validate and Get).
func sourceOptions() map[string]option {
	return map[string]option{
		KeySourceIdleTimeout: {"0 ms", durationCheck},
	}
}

// SourceIdleTimeout returns table.exec.source.idle-timeout (0: off).
func (c *Config) SourceIdleTimeout() time.Duration {
	d, err := ParseDuration(c.str(KeySourceIdleTimeout))
	if err != nil || d < 0 {
		return 0
	}
	return d
}
