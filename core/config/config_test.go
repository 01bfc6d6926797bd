package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSetValidation(t *testing.T) {
	cases := []struct {
		key, value string
		class      string // "" = accepted
	}{
		{KeyRuntimeMode, "batch", ""},
		{KeyRuntimeMode, "STREAMING", ""},
		{KeyRuntimeMode, "fast", illegalArg},
		{KeyResultMode, "Tableau", ""},
		{KeyResultMode, "grid", illegalArg},
		{KeyDMLSync, "TRUE", ""},
		{KeyDMLSync, "yes", illegalArg},
		{KeyMaxColumnWidth, "10", ""},
		{KeyMaxColumnWidth, "ten", numberFormat},
		{KeySQLDialect, "hive", ""},
		{KeySQLDialect, "unknown", illegalArg},
		{KeyLocalTimeZone, "UTC", ""},
		{KeyLocalTimeZone, "Asia/Shanghai", ""},
		{KeyLocalTimeZone, "GMT-08:00", ""},
		{KeyLocalTimeZone, "UTC+8", validation},
		{KeyLocalTimeZone, "Mars/Olympus", validation},
		{KeyDefaultParallelism, "4", ""},
		{"some.unknown.key", "anything", ""},
		{KeyBatchSize, "1", ""},
		{KeyBatchSize, "0", illegalArg},
	}
	for _, c := range cases {
		t.Run(c.key+"="+c.value, func(t *testing.T) {
			cfg, err := New(nil)
			require.NoError(t, err)
			err = cfg.Set(c.key, c.value)
			if c.class == "" {
				require.NoError(t, err)
				require.True(t, cfg.IsSet(c.key))
				return
			}
			var ve *ValueError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, c.class, ve.JavaClass())
			require.False(t, cfg.IsSet(c.key), "a bad value leaves the session unchanged")
		})
	}
}

func TestDialectMessage(t *testing.T) {
	cfg, _ := New(nil)
	err := cfg.Set(KeySQLDialect, "unknown")
	require.EqualError(t, err, "No enum constant org.apache.flink.table.api.SqlDialect.UNKNOWN")
}

func TestDefaultsAndGetters(t *testing.T) {
	cfg, err := New(map[string]string{KeyPrintTimeCost: "false"})
	require.NoError(t, err)
	require.Equal(t, Streaming, cfg.RuntimeMode())
	require.Equal(t, 30, cfg.MaxColumnWidth())
	require.False(t, cfg.DMLSync())
	require.Equal(t, ResultTable, cfg.ResultMode())
	require.False(t, cfg.PrintTimeCost())
	require.Equal(t, "default_catalog", cfg.BuiltinCatalog())
	require.Equal(t, "default_database", cfg.BuiltinDatabase())
	require.Equal(t, -1, cfg.DefaultParallelism())
	require.Equal(t, "default", cfg.SQLDialect())
	require.Equal(t, time.Local, cfg.LocalTimeZone())
	require.Empty(t, cfg.DisabledRules())
	require.Equal(t, 4096, cfg.BatchSize())

	require.NoError(t, cfg.Set(KeyLocalTimeZone, "GMT+08:00"))
	_, off := time.Unix(0, 0).In(cfg.LocalTimeZone()).Zone()
	require.Equal(t, 8*3600, off)
	require.NoError(t, cfg.Set(KeyDisabledRules, " a, ,b "))
	require.Equal(t, []string{"a", "b"}, cfg.DisabledRules())
	require.False(t, cfg.AllRulesDisabled())
	require.NoError(t, cfg.Set(KeyDisabledRules, "*"))
	require.True(t, cfg.AllRulesDisabled())
}

func TestSetResetListing(t *testing.T) {
	cfg, err := New(map[string]string{KeyPrintTimeCost: "false"})
	require.NoError(t, err)
	require.NoError(t, cfg.Set(KeyResultMode, "tableau"))
	require.NoError(t, cfg.Set("a.b", "1"))
	require.NoError(t, cfg.Set(KeyPrintTimeCost, "true"))
	require.Equal(t, []Entry{{"a.b", "1"}, {KeyPrintTimeCost, "true"}, {KeyResultMode, "tableau"}}, cfg.Explicit())

	cl := cfg.Clone()
	cfg.Reset(KeyPrintTimeCost)
	cfg.Reset("a.b")
	require.Equal(t, []Entry{{KeyPrintTimeCost, "false"}, {KeyResultMode, "tableau"}}, cfg.Explicit())
	cfg.ResetAll()
	require.Equal(t, []Entry{{KeyPrintTimeCost, "false"}}, cfg.Explicit())
	require.Len(t, cl.Explicit(), 3, "a clone is independent")

	_, err = New(map[string]string{KeyDMLSync: "maybe"})
	require.Error(t, err)
}
