package kernel

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// The kernel's sockets accept connections from anyone who can reach the
// port, before any message signature is checked. go-zeromq/zmq4 allocates a
// frame's announced size before reading it (a header announcing 100 GB is
// enough to kill the process), and has no option to cap it. So the kernel
// listens through its own transports, which wrap every accepted connection
// in a reader that follows the ZMTP 3 framing and drops the connection as
// soon as a frame header announces more than maxFrameSize bytes or a
// multipart message more than maxMessageSize, before zmq4 sees the header.

const (
	// maxFrameSize caps one ZMTP frame (Jupyter messages are JSON parts and
	// binary buffers; 256 MiB leaves room for large display data).
	maxFrameSize = 256 << 20
	// maxMessageSize caps the frames of one multipart message together.
	maxMessageSize = 512 << 20
	// zmtpGreeting is the size of the ZMTP 3 greeting.
	zmtpGreeting = 64
)

// Names of the capped transports, registered once with zmq4.
const (
	cappedTCP = "tablerun-tcp"
	cappedIPC = "tablerun-ipc"
)

var registerOnce sync.Once

func registerCappedTransports() {
	registerOnce.Do(func() {
		_ = zmq4.RegisterTransport(cappedTCP, cappedTransport{transport.New("tcp"), maxFrameSize, maxMessageSize})
		_ = zmq4.RegisterTransport(cappedIPC, cappedTransport{transport.New("unix"), maxFrameSize, maxMessageSize})
	})
}

// listenEndpoint is the endpoint the kernel listens on: ci's address through
// the capped transport.
func (ci ConnectionInfo) listenEndpoint(port int) string {
	registerCappedTransports()
	if ci.Transport == "ipc" {
		return fmt.Sprintf("%s://%s-%d", cappedIPC, ci.IP, port)
	}
	return fmt.Sprintf("%s://%s:%d", cappedTCP, ci.IP, port)
}

// cappedTransport is a zmq4 transport whose accepted connections are capped.
type cappedTransport struct {
	inner            transport.Transport
	maxFrame, maxMsg uint64
}

func (t cappedTransport) Dial(ctx context.Context, d transport.Dialer, addr string) (net.Conn, error) {
	c, err := t.inner.Dial(ctx, d, addr)
	if err != nil {
		return nil, err
	}
	return newCappedConn(c, t.maxFrame, t.maxMsg), nil
}

func (t cappedTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := t.inner.Listen(ctx, addr)
	if err != nil {
		return nil, err
	}
	return cappedListener{l, t.maxFrame, t.maxMsg}, nil
}

func (t cappedTransport) Addr(ep string) (string, error) { return t.inner.Addr(ep) }

type cappedListener struct {
	net.Listener
	maxFrame, maxMsg uint64
}

func (l cappedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newCappedConn(c, l.maxFrame, l.maxMsg), nil
}

// errFrameTooLarge wraps io.EOF so that zmq4 marks the connection closed.
type errFrameTooLarge struct{ size, limit uint64 }

func (e errFrameTooLarge) Error() string {
	return fmt.Sprintf("kernel: ZMTP frame of %d bytes exceeds the limit of %d bytes; connection dropped", e.size, e.limit)
}

func (e errFrameTooLarge) Unwrap() error { return io.EOF }

// cappedConn follows the ZMTP 3 byte stream read through it: the greeting,
// then frames of a flags byte, a 1- or 8-byte size and the body.
type cappedConn struct {
	net.Conn
	maxFrame, maxMsg uint64

	greeting int    // greeting bytes still to pass
	hdr      []byte // header bytes seen of the current frame (flags first)
	body     uint64 // body bytes still to pass of the current frame
	msg      uint64 // bytes of the current multipart message so far
	more     bool   // the current frame has the MORE flag
	err      error
}

func newCappedConn(c net.Conn, maxFrame, maxMsg uint64) *cappedConn {
	return &cappedConn{Conn: c, maxFrame: maxFrame, maxMsg: maxMsg, greeting: zmtpGreeting, hdr: make([]byte, 0, 9)}
}

func (c *cappedConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if ferr := c.scan(p[:n]); ferr != nil {
		// Nothing of this read reaches zmq4: it never sees the header.
		c.err = ferr
		_ = c.Conn.Close()
		return 0, ferr
	}
	return n, err
}

// scan advances the framing state over b and reports an oversized frame.
func (c *cappedConn) scan(b []byte) error {
	for len(b) > 0 {
		switch {
		case c.greeting > 0:
			k := min(c.greeting, len(b))
			c.greeting -= k
			b = b[k:]
		case c.body > 0:
			k := uint64(len(b))
			if k > c.body {
				k = c.body
			}
			c.body -= k
			b = b[k:]
		default:
			c.hdr = append(c.hdr, b[0])
			b = b[1:]
			flags := c.hdr[0]
			need := 2
			if flags&0x02 != 0 { // LONG
				need = 9
			}
			if len(c.hdr) < need {
				continue
			}
			var size uint64
			if need == 2 {
				size = uint64(c.hdr[1])
			} else {
				size = binary.BigEndian.Uint64(c.hdr[1:9])
			}
			c.hdr = c.hdr[:0]
			if size > c.maxFrame {
				return errFrameTooLarge{size, c.maxFrame}
			}
			if !c.more {
				c.msg = 0
			}
			c.msg += size
			if c.msg > c.maxMsg {
				return errFrameTooLarge{c.msg, c.maxMsg}
			}
			c.more = flags&0x01 != 0
			c.body = size
		}
	}
	return nil
}
