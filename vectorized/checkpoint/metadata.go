package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// MetadataFile is the name of the file that makes a checkpoint directory
// complete (Flink's _metadata).
const MetadataFile = "_metadata"

// metadataVersion 2 adds the checksum of _metadata itself; version 1
// files (without one) are still read.
const metadataVersion = 2

// discardedMarker marks a discarded checkpoint directory that keeps state
// files a retained incremental checkpoint still references.
const discardedMarker = "_discarded"

// metadata is the JSON content of _metadata.
type metadata struct {
	Version      int               `json:"version"`
	CheckpointID int64             `json:"checkpointId"`
	JobID        string            `json:"jobId"`
	Timestamp    int64             `json:"timestamp"`
	Savepoint    bool              `json:"savepoint"`
	Parallelism  map[string]int    `json:"parallelism"`
	Tasks        []taskMeta        `json:"tasks"`
	Meta         map[string]string `json:"meta,omitempty"`
	// Checksum is the CRC32C of the document written with Checksum 0:
	// one flipped byte (an operator id, a size) must not restore
	// silently.
	Checksum uint32 `json:"checksum"`
}

// encodeMetadata returns the bytes of _metadata: the indented JSON of md
// with its checksum.
func encodeMetadata(md *metadata) ([]byte, error) {
	c := *md
	c.Checksum = 0
	body, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return nil, err
	}
	c.Checksum = crc32.Checksum(body, crcTable)
	return json.MarshalIndent(&c, "", "  ")
}

// taskMeta describes one task's state file.
type taskMeta struct {
	Operator string `json:"operator"`
	Subtask  int    `json:"subtask"`
	File     string `json:"file"`
	Size     int64  `json:"size"`
	CRC32C   uint32 `json:"crc32c"`
	// Delta marks an incremental snapshot: File holds the changes since
	// the last file of Base, which lists the earlier files of the chain
	// (the full snapshot first, then the deltas oldest first).
	Delta bool      `json:"delta,omitempty"`
	Base  []fileRef `json:"base,omitempty"`
	// Files are the store files of a disk-state operator
	// (state.backend.type = 'rocksdb', storefiles.go).
	Files []storeFile `json:"files,omitempty"`
}

// fileRef references a state file of an earlier checkpoint of the same
// job (Flink's shared state): File is "chk-<n>/<state file>", relative to
// the job directory.
type fileRef struct {
	Checkpoint int64  `json:"checkpointId"`
	File       string `json:"file"`
	Size       int64  `json:"size"`
	CRC32C     uint32 `json:"crc32c"`
}

// validRef checks the form of a fileRef's path: "chk-<n>/<plain name>".
func validRef(ref fileRef) bool {
	dir, name, ok := strings.Cut(ref.File, "/")
	if !ok || name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") || name == MetadataFile {
		return false
	}
	id, ok := checkpointDirID(dir)
	return ok && id == ref.Checkpoint
}

// stateFileName is the name of a task's state file ("3-GroupAggregate-0.state").
func stateFileName(t TaskID) string { return t.Operator + "-" + strconv.Itoa(t.Subtask) + ".state" }

// writeMetadata makes a checkpoint complete: _metadata is written under a
// temporary name, fsynced, renamed and the directory fsynced.
func writeMetadata(dir string, md *metadata) (int64, error) {
	data, err := encodeMetadata(md)
	if err != nil {
		return 0, err
	}
	tmp := filepath.Join(dir, "."+MetadataFile+".inprogress")
	if err := writeFileDurably(tmp, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return 0, fmt.Errorf("writing %s: %w", tmp, err)
	}
	final := filepath.Join(dir, MetadataFile)
	if err := os.Rename(tmp, final); err != nil {
		return 0, fmt.Errorf("writing %s: %w", final, err)
	}
	if err := syncDir(dir); err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// readMetadata reads and checks the _metadata of a checkpoint directory.
func readMetadata(dir string) (*metadata, error) {
	name := filepath.Join(dir, MetadataFile)
	data, err := os.ReadFile(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("incomplete checkpoint: %s is missing", name)
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	var md metadata
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("corrupt %s: %w", name, err)
	}
	switch md.Version {
	case 1: // before checksums
	case metadataVersion:
		// The file must be exactly what encodeMetadata writes of the
		// values read: a changed byte changes a value (so the checksum
		// no longer matches), the checksum itself, or the layout.
		again, err := encodeMetadata(&md)
		if err != nil {
			return nil, fmt.Errorf("corrupt %s: %w", name, err)
		}
		if string(again) != string(data) {
			return nil, fmt.Errorf("corrupt %s: checksum mismatch (the file was changed after it was written)", name)
		}
	default:
		return nil, fmt.Errorf("corrupt %s: unknown format version %d", name, md.Version)
	}
	for _, t := range md.Tasks {
		if t.File == "" || t.File != filepath.Base(t.File) || strings.HasPrefix(t.File, ".") {
			return nil, fmt.Errorf("corrupt %s: bad state file name %q", name, t.File)
		}
		if t.Delta != (len(t.Base) > 0) || (t.Delta && md.Savepoint) {
			return nil, fmt.Errorf("corrupt %s: delta state file %q without a valid base", name, t.File)
		}
		for _, ref := range t.Base {
			if !validRef(ref) || ref.Checkpoint >= md.CheckpointID {
				return nil, fmt.Errorf("corrupt %s: bad base state file %q", name, ref.File)
			}
		}
		for _, f := range t.Files {
			if !validStoreFile(f, filepath.Base(dir), md.Savepoint) {
				return nil, fmt.Errorf("corrupt %s: bad store file %q", name, f.Path)
			}
		}
	}
	return &md, nil
}

// checkpointDirID parses "chk-<n>".
func checkpointDirID(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, "chk-")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id < 0 {
		return 0, false
	}
	return id, true
}

// isCheckpointDirName reports names of checkpoint and savepoint directories.
func isCheckpointDirName(name string) bool {
	_, ok := checkpointDirID(name)
	return ok || strings.HasPrefix(name, "savepoint-")
}

// sortTasks orders task metadata by operator, then subtask.
func sortTasks(ts []taskMeta) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Operator != ts[j].Operator {
			return ts[i].Operator < ts[j].Operator
		}
		return ts[i].Subtask < ts[j].Subtask
	})
}
