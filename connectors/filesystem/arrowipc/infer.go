package arrowipc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/tablerun/tablerun/core/types"
)

// FileSchema returns the columns of an Arrow IPC file or stream as
// tablerun types (a table declared without columns).
func FileSchema(r io.ReaderAt, size int64, name string) (types.Schema, error) {
	head := make([]byte, len(fileMagic))
	n, _ := r.ReadAt(head, 0)
	var as *arrow.Schema
	if n == len(fileMagic) && bytes.Equal(head, fileMagic) {
		fr, err := ipc.NewFileReader(readerAtSeeker{r: r, size: size})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		as = fr.Schema()
		_ = fr.Close()
	} else {
		sr, err := ipc.NewReader(bufio.NewReader(io.NewSectionReader(r, 0, size)))
		if err != nil {
			return nil, fmt.Errorf("reading %s: not an Arrow IPC file or stream: %w", name, err)
		}
		as = sr.Schema()
		sr.Release()
	}
	out := make(types.Schema, 0, as.NumFields())
	for _, f := range as.Fields() {
		t, err := types.FromArrow(f.Type, f.Nullable)
		if err != nil {
			return nil, fmt.Errorf("column '%s' of %s: %w", f.Name, name, err)
		}
		out = append(out, types.Field{Name: f.Name, Type: t})
	}
	return out, nil
}
