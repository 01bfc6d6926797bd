package config

import "strings"

// SinkNotNullDrop reports table.exec.sink.not-null-enforcer = DROP: rows
// with a NULL in a NOT NULL sink column are dropped instead of failing the
// job (ERROR, the default).
func (c *Config) SinkNotNullDrop() bool {
	v, _ := c.Get(KeySinkNotNullEnforcer)
	return strings.EqualFold(strings.TrimSpace(v), "DROP")
}
