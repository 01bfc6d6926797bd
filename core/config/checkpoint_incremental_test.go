package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckpointingIncremental(t *testing.T) {
	tests := []struct {
		name string
		set  map[string]string
		want bool
		err  string
	}{
		{"default on", nil, true, ""},
		{"off", map[string]string{KeyCheckpointIncremental: "false"}, false, ""},
		{"case-insensitive", map[string]string{KeyCheckpointIncremental: "TRUE"}, true, ""},
		{"legacy key", map[string]string{KeyCheckpointIncrementalLegacy: "false"}, false, ""},
		{"new key wins", map[string]string{KeyCheckpointIncrementalLegacy: "false", KeyCheckpointIncremental: "true"}, true, ""},
		{"bad value", map[string]string{KeyCheckpointIncremental: "yes"}, false, "Unrecognized option for boolean: yes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := New(nil)
			require.NoError(t, err)
			for k, v := range tc.set {
				if err = cfg.Set(k, v); err != nil {
					break
				}
			}
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			ck, err := cfg.Checkpointing()
			require.NoError(t, err)
			require.Equal(t, tc.want, ck.Incremental)
		})
	}
}
