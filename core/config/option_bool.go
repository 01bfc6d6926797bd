package config

import (
	"fmt"
	"strings"
)

// BoolOption reads a boolean table option (a connector's or a format's
// WITH entry): def when key is absent, true/false in any case, and
// Flink's parse error otherwise.
func BoolOption(opts map[string]string, key string, def bool) (bool, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
}
