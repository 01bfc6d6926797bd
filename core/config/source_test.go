package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSourceIdleTimeout(t *testing.T) {
	c, err := New(nil)
	require.NoError(t, err)
	require.Zero(t, c.SourceIdleTimeout())
	v, ok := c.Get(KeySourceIdleTimeout)
	require.True(t, ok)
	require.Equal(t, "0 ms", v)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"5 s", 5 * time.Second}, {"100ms", 100 * time.Millisecond}, {"1 min", time.Minute}, {"0", 0}} {
		require.NoError(t, c.Set(KeySourceIdleTimeout, tc.in))
		require.Equal(t, tc.want, c.SourceIdleTimeout(), tc.in)
	}
	err = c.Set(KeySourceIdleTimeout, "soon")
	require.EqualError(t, err, "Could not parse value 'soon' for key 'table.exec.source.idle-timeout'.")
}
