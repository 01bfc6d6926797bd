package config

import "sort"

// Source tells where the effective value of an option came from.
type Source string

// The sources of an option value, lowest precedence first: a built-in
// default, the configuration file (LoadFile), the settings or
// configuration passed when the session was created, and SET /
// Config().Set during the session.
const (
	SourceDefault  Source = "default"
	SourceFile     Source = "file"
	SourceCreation Source = "creation"
	SourceSet      Source = "set"
)

// EffectiveEntry is one option of the effective configuration: its value
// and where that value came from.
type EffectiveEntry struct {
	Key    string
	Value  string
	Source Source
}

func newEmpty() *Config {
	return &Config{
		initial:    map[string]string{},
		set:        map[string]string{},
		src:        map[string]Source{},
		initialSrc: map[string]Source{},
	}
}

// NewWithFile returns a configuration whose initial options are those of
// file (may be nil) overridden by creation, with Flink's precedence:
// defaults < file < creation. Both layers are validated; a bad value in
// the file is a *FileError naming the file, the key and the line. RESET
// returns to these initial values.
func NewWithFile(file *File, creation map[string]string) (*Config, error) {
	c := newEmpty()
	if file != nil {
		for _, en := range file.Entries {
			if err := Validate(en.Key, en.Value); err != nil {
				return nil, &FileError{Path: file.Path, Key: en.Key, Line: en.Line, Err: err}
			}
			c.set[en.Key] = en.Value
			c.src[en.Key] = SourceFile
		}
	}
	for k, v := range creation {
		if err := Validate(k, v); err != nil {
			return nil, err
		}
		c.set[k] = v
		c.src[k] = SourceCreation
	}
	for k, v := range c.set {
		c.initial[k] = v
		c.initialSrc[k] = c.src[k]
	}
	return c, nil
}

// Source returns where the current value of key came from: SourceDefault
// for a known key that is not explicitly present (and for an unknown key
// that was never set).
func (c *Config) Source(key string) Source {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.source(key)
}

// source is Source with c.mu held.
func (c *Config) source(key string) Source {
	if s, ok := c.src[key]; ok {
		return s
	}
	return SourceDefault
}

// Effective returns the effective configuration sorted by key: every known
// option (at its default unless set) and every explicitly present key,
// each with the source of its value. Unlike Explicit (the rows of `SET;`)
// it also lists defaults, so a value silently overridden by a higher layer
// shows where it came from.
func (c *Config) Effective() []EffectiveEntry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	keys := map[string]bool{}
	for k := range options() {
		keys[k] = true
	}
	for k := range c.set {
		keys[k] = true
	}
	out := make([]EffectiveEntry, 0, len(keys))
	for k := range keys {
		v, _ := c.get(k)
		out = append(out, EffectiveEntry{Key: k, Value: v, Source: c.source(k)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// KnownKeys returns the option keys tablerun reads, sorted: the typed
// options of this package and the few read elsewhere (state TTL, the
// catalog store). SET accepts any key, as Flink does; these are the ones
// it can suggest for a misspelled key.
func KnownKeys() []string {
	keys := map[string]bool{}
	for _, m := range []map[string]option{options(), checkpointOptions(), sourceOptions()} {
		for k := range m {
			keys[k] = true
		}
	}
	for _, k := range otherKeys {
		keys[k] = true
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// otherKeys are option keys read outside this package's typed options.
var otherKeys = []string{"table.exec.state.ttl", "table.catalog-store.kind", "table.catalog-store.file.path"}
