package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// EnvConfDir is the environment variable naming a directory that holds
// FileName, tablerun's counterpart of Flink's FLINK_CONF_DIR. The CLI reads
// it when --config is not given; Go programs opt in with DefaultFile.
const EnvConfDir = "TABLERUN_CONF_DIR"

// FileName is the name of the configuration file inside EnvConfDir (Flink
// 1.19+'s config.yaml).
const FileName = "config.yaml"

// DefaultFile returns $TABLERUN_CONF_DIR/config.yaml, or "" when the
// variable is unset or empty.
func DefaultFile() string {
	dir := strings.TrimSpace(os.Getenv(EnvConfDir))
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, FileName)
}

// FileEntry is one option read from a configuration file.
type FileEntry struct {
	// Key is the flattened, dotted key (`table: {dml-sync: true}` gives
	// table.dml-sync).
	Key string
	// Value is the scalar's text; a list of scalars is joined with ';'
	// (Flink's legacy list syntax).
	Value string
	// Line is the 1-based line of the value in the file.
	Line int
}

// File is a parsed configuration file.
type File struct {
	// Path is the file's path as given.
	Path string
	// Entries are the options in file order.
	Entries []FileEntry
}

// FileError is an error in a configuration file: it names the file and,
// when known, the key and line.
type FileError struct {
	Path string
	Key  string
	Line int
	Err  error
}

// Error returns "config file P: line N: key 'k': cause".
func (e *FileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "config file %s", e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key '%s'", e.Key)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// JavaClass reports the class Flink raises for a bad configuration file.
func (e *FileError) JavaClass() string {
	var ve *ValueError
	if errors.As(e.Err, &ve) {
		return ve.Class
	}
	return "org.apache.flink.configuration.IllegalConfigurationException"
}

// LoadFile reads and parses a YAML configuration file the way Flink reads
// its config.yaml: a mapping whose keys are Flink option keys, either flat
// ('table.local-time-zone: UTC') or nested maps that flatten to dotted keys
// ('table: {local-time-zone: UTC}'). Values are scalars or lists of
// scalars. Values are not validated here; see NewWithFile.
func LoadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return ParseFile(path, data)
}

// ParseFile parses the YAML text data of the configuration file path.
func ParseFile(path string, data []byte) (*File, error) {
	f := &File{Path: path}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return f, nil
		}
		root = root.Content[0]
	}
	if root.Kind == 0 || (root.Kind == yaml.ScalarNode && (root.Tag == "!!null" || root.Value == "")) {
		return f, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &FileError{Path: path, Line: root.Line, Err: errors.New("the top level must be a mapping of option keys to values")}
	}
	seen := map[string]int{}
	if err := flatten(f, root, "", seen, 0); err != nil {
		return nil, err
	}
	return f, nil
}

// maxDepth bounds the nesting of maps (and aliases) in a file.
const maxDepth = 64

func flatten(f *File, m *yaml.Node, prefix string, seen map[string]int, depth int) error {
	if depth > maxDepth {
		return &FileError{Path: f.Path, Line: m.Line, Err: errors.New("maps nested too deeply")}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], m.Content[i+1]
		for vn.Kind == yaml.AliasNode && vn.Alias != nil {
			vn = vn.Alias
		}
		if kn.Kind != yaml.ScalarNode || strings.TrimSpace(kn.Value) == "" {
			return &FileError{Path: f.Path, Line: kn.Line, Err: errors.New("an option key must be a non-empty string")}
		}
		key := strings.TrimSpace(kn.Value)
		if prefix != "" {
			key = prefix + "." + key
		}
		switch vn.Kind {
		case yaml.MappingNode:
			if err := flatten(f, vn, key, seen, depth+1); err != nil {
				return err
			}
			continue
		case yaml.ScalarNode, yaml.SequenceNode:
		default:
			return &FileError{Path: f.Path, Key: key, Line: vn.Line, Err: errors.New("unsupported value")}
		}
		value, err := scalarText(vn)
		if err != nil {
			return &FileError{Path: f.Path, Key: key, Line: vn.Line, Err: err}
		}
		if first, dup := seen[key]; dup {
			return &FileError{Path: f.Path, Key: key, Line: kn.Line, Err: fmt.Errorf("duplicate key (first set on line %d)", first)}
		}
		seen[key] = kn.Line
		f.Entries = append(f.Entries, FileEntry{Key: key, Value: value, Line: vn.Line})
	}
	return nil
}

// scalarText returns the text of a scalar, or the items of a list of
// scalars joined with ';'.
func scalarText(n *yaml.Node) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "", nil
		}
		return n.Value, nil
	case yaml.SequenceNode:
		items := make([]string, 0, len(n.Content))
		for _, it := range n.Content {
			for it.Kind == yaml.AliasNode && it.Alias != nil {
				it = it.Alias
			}
			if it.Kind != yaml.ScalarNode {
				return "", errors.New("a list value may hold only scalars")
			}
			items = append(items, it.Value)
		}
		return strings.Join(items, ";"), nil
	}
	return "", errors.New("unsupported value")
}
