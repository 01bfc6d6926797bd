package python

import (
	"io"
	"os"
	"sync"

	"github.com/go-python/gpython/py"
)

// UDF code never reaches the process's descriptors: sys.stdin, sys.stdout
// and sys.stderr (and their __std*__ twins) are objects of the sandbox.
// stdin is empty; stdout and stderr (and print) write through Output;
// close() closes only the object (later writes raise ValueError), never
// descriptor 2.

var (
	outputMu sync.Mutex
	output   io.Writer = os.Stderr
)

// SetOutput sets where the print() and sys.stdout/sys.stderr writes of
// every Python UDF go (default: the process's stderr); it returns the
// previous writer.
func SetOutput(w io.Writer) io.Writer {
	outputMu.Lock()
	defer outputMu.Unlock()
	old := output
	output = w
	return old
}

// streamType is the type of the sandbox's standard streams.
var streamType = py.NewType("TextIOWrapper", "a standard stream of a UDF")

type stream struct {
	name   string
	write  bool
	mu     sync.Mutex
	closed bool
}

func (s *stream) Type() *py.Type { return streamType }

func (s *stream) check(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return py.ExceptionNewf(py.ValueError, "I/O operation on closed file.")
	}
	if (op == "write") != s.write {
		return py.ExceptionNewf(py.OSError, "%s: not %s", s.name, map[bool]string{true: "writable", false: "readable"}[op == "write"])
	}
	return nil
}

func init() {
	self := func(o py.Object) *stream { return o.(*stream) }
	streamType.Dict["write"] = py.MustNewMethod("write", func(o py.Object, v py.Object) (py.Object, error) {
		s := self(o)
		if err := s.check("write"); err != nil {
			return nil, err
		}
		str, ok := v.(py.String)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "write() argument must be str, not %s", v.Type().Name)
		}
		outputMu.Lock()
		_, _ = io.WriteString(output, string(str))
		outputMu.Unlock()
		return py.Int(len([]rune(string(str)))), nil
	}, 0, "write(s): write s to the stream")
	read := func(name string, empty py.Object) {
		streamType.Dict[name] = py.MustNewMethod(name, func(o py.Object, args py.Tuple) (py.Object, error) {
			if err := self(o).check("read"); err != nil {
				return nil, err
			}
			return empty, nil
		}, 0, name+"(): a UDF's stdin is empty")
	}
	read("read", py.String(""))
	read("readline", py.String(""))
	streamType.Dict["readlines"] = py.MustNewMethod("readlines", func(o py.Object, args py.Tuple) (py.Object, error) {
		if err := self(o).check("read"); err != nil {
			return nil, err
		}
		return py.NewList(), nil
	}, 0, "readlines(): a UDF's stdin is empty")
	streamType.Dict["flush"] = py.MustNewMethod("flush", func(o py.Object) (py.Object, error) { return py.None, nil }, 0, "flush()")
	streamType.Dict["close"] = py.MustNewMethod("close", func(o py.Object) (py.Object, error) {
		s := self(o)
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		return py.None, nil
	}, 0, "close(): closes the stream object only")
	streamType.Dict["isatty"] = py.MustNewMethod("isatty", func(o py.Object) (py.Object, error) { return py.False, nil }, 0, "isatty()")
	streamType.Dict["fileno"] = py.MustNewMethod("fileno", func(o py.Object) (py.Object, error) {
		return nil, py.ExceptionNewf(py.OSError, "a UDF's streams have no file descriptor")
	}, 0, "fileno()")
}

// installStreams gives sys its own standard streams.
func installStreams(g py.StringDict) {
	in := &stream{name: "<stdin>"}
	// print() writes to the log, as before: stdout is stderr.
	errs := &stream{name: "<stderr>", write: true}
	out := errs
	for _, k := range []string{"stdin", "__stdin__"} {
		g[k] = in
	}
	for _, k := range []string{"stdout", "__stdout__"} {
		g[k] = out
	}
	for _, k := range []string{"stderr", "__stderr__"} {
		g[k] = errs
	}
}
