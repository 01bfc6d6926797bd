package bench

import (
	"embed"
	"io/fs"
	"os"
)

// nexmarkFiles are the Nexmark query and DDL files shipped in the binary
// (see nexmark/README.md for their origin and license).
//
//go:embed nexmark/*.sql
var nexmarkFiles embed.FS

// queryFiles returns the file system Script reads: dir on disk, or the
// embedded copy when dir is "".
func queryFiles(dir string) fs.FS {
	if dir == "" {
		sub, err := fs.Sub(nexmarkFiles, "nexmark")
		if err != nil {
			panic(err) // the embedded tree always has nexmark/
		}
		return sub
	}
	return os.DirFS(dir)
}
