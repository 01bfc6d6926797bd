package core

import (
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
)

// WithConfigFile returns a copy of s that reads the session's initial
// options from a YAML configuration file with Flink's keys, as Flink reads
// its config.yaml: flat keys ('table.local-time-zone: UTC') or nested maps
// that flatten to dotted keys. The file is below everything else:
// defaults < file < options of the settings (WithOption) < SET /
// Config().Set. A missing file, bad YAML or a bad value is reported (naming
// the file, key and line) by every statement of the session, like any
// other invalid initial option. An empty path reads no file.
//
// tablerun's CLI finds the file with --config or $TABLERUN_CONF_DIR/
// config.yaml; a Go program that wants the environment variable passes
// config.DefaultFile().
func (s EnvironmentSettings) WithConfigFile(path string) EnvironmentSettings {
	s.configFile = path
	return s
}

// newSessionConfig builds the initial configuration of a session from its
// settings: the configuration file (if any) below the settings' options.
func newSessionConfig(s EnvironmentSettings) (*config.Config, error) {
	var file *config.File
	if s.configFile != "" {
		f, err := config.LoadFile(s.configFile)
		if err != nil {
			return nil, err
		}
		file = f
	}
	return config.NewWithFile(file, s.options)
}

// effectiveConfigResult is the result of SHOW EFFECTIVE CONFIGURATION:
// every option of the effective configuration with its value and where the
// value came from (default, file, creation, set), sorted by key. Flink has
// no such statement; `SET;` keeps Flink's meaning (explicit options only).
func (e *TableEnvironment) effectiveConfigResult() *TableResult {
	res := &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "key", Type: types.StringT},
		{Name: "value", Type: types.StringT},
		{Name: "source", Type: types.StringT},
	}}
	for _, en := range e.cfg.Effective() {
		res.rows = append(res.rows, []any{en.Key, en.Value, string(en.Source)})
	}
	return res
}
