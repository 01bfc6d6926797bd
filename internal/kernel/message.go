package kernel

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// ProtocolVersion is the version of the Jupyter messaging protocol spoken.
const ProtocolVersion = "5.3"

// delimiter separates the routing identities from the message frames.
const delimiter = "<IDS|MSG>"

// Header is a Jupyter message header.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is a Jupyter message: the routing identities and the four JSON
// parts (parent_header, metadata and content kept raw so that they are
// echoed byte for byte).
type Message struct {
	Identities [][]byte
	Header     Header
	// rawHeader is the header as received, echoed as the parent header of
	// replies.
	rawHeader []byte
	Parent    json.RawMessage
	Metadata  json.RawMessage
	Content   json.RawMessage
	Buffers   [][]byte
}

// ConnectionInfo is the content of a Jupyter connection file.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	Key             string `json:"key"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile reads and checks a connection file.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	data, err := os.ReadFile(path)
	if err != nil {
		return ci, fmt.Errorf("read connection file: %w", err)
	}
	if err := json.Unmarshal(data, &ci); err != nil {
		return ci, fmt.Errorf("parse connection file %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	// An empty address would make the sockets listen on every interface;
	// a kernel is reachable only from this machine unless the file says
	// otherwise (jupyter_client's defaults: localhost, and "kernel-ipc" as
	// the path prefix of ipc sockets).
	if ci.IP == "" {
		if ci.Transport == "ipc" {
			ci.IP = "kernel-ipc"
		} else {
			ci.IP = "127.0.0.1"
		}
	}
	if ci.SignatureScheme == "" {
		ci.SignatureScheme = "hmac-sha256"
	}
	if ci.Key != "" && ci.SignatureScheme != "hmac-sha256" {
		return ci, fmt.Errorf("not supported yet: signature scheme %q (only hmac-sha256)", ci.SignatureScheme)
	}
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return ci, fmt.Errorf("not supported yet: transport %q", ci.Transport)
	}
	return ci, nil
}

// Endpoint returns the ZeroMQ address of a port of the connection.
func (ci ConnectionInfo) Endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return fmt.Sprintf("tcp://%s:%d", ci.IP, port)
}

// signer computes message signatures (no key: no signatures).
type signer struct{ key []byte }

// sign returns the hex HMAC-SHA256 of the parts ("" without a key).
func (s signer) sign(parts ...[]byte) string {
	if len(s.key) == 0 {
		return ""
	}
	mac := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// errBadSignature is returned for a message whose signature does not match.
var errBadSignature = errors.New("invalid message signature")

// decode parses the frames of a received message and checks its signature.
func (s signer) decode(frames [][]byte) (*Message, error) {
	i := 0
	for i < len(frames) && string(frames[i]) != delimiter {
		i++
	}
	if i == len(frames) || len(frames) < i+6 {
		return nil, fmt.Errorf("malformed message: %d frames, delimiter at %d", len(frames), i)
	}
	m := &Message{Identities: frames[:i]}
	sig := string(frames[i+1])
	header, parent, meta, content := frames[i+2], frames[i+3], frames[i+4], frames[i+5]
	if len(s.key) > 0 {
		want := s.sign(header, parent, meta, content)
		if !hmac.Equal([]byte(want), []byte(sig)) {
			return nil, errBadSignature
		}
	}
	if err := json.Unmarshal(header, &m.Header); err != nil {
		return nil, fmt.Errorf("malformed message header: %w", err)
	}
	m.rawHeader = header
	m.Parent = json.RawMessage(parent)
	m.Metadata = json.RawMessage(meta)
	m.Content = json.RawMessage(content)
	m.Buffers = frames[i+6:]
	return m, nil
}

// encode returns the frames of m, signed.
func (s signer) encode(m *Message) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, fmt.Errorf("encode header: %w", err)
	}
	parent, meta, content := orEmpty(m.Parent), orEmpty(m.Metadata), orEmpty(m.Content)
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(delimiter), []byte(s.sign(header, parent, meta, content)), header, parent, meta, content)
	return append(frames, m.Buffers...), nil
}

func orEmpty(b json.RawMessage) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("{}")
	}
	return b
}

// newID returns a random UUID-like message id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newHeader returns a header for a new message of the kernel's session.
func newHeader(session, msgType string) Header {
	return Header{
		MsgID:    newID(),
		Session:  session,
		Username: "kernel",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// reply builds a message answering parent, with the given type and
// content, addressed to parent's identities.
func reply(session string, parent *Message, msgType string, content any) (*Message, error) {
	c, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", msgType, err)
	}
	ph := json.RawMessage(parent.rawHeader)
	if len(ph) == 0 {
		if ph, err = json.Marshal(parent.Header); err != nil {
			return nil, fmt.Errorf("encode parent header: %w", err)
		}
	}
	return &Message{
		Identities: parent.Identities,
		Header:     newHeader(session, msgType),
		Parent:     ph,
		Metadata:   json.RawMessage("{}"),
		Content:    c,
	}, nil
}
