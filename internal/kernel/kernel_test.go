package kernel

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/stretchr/testify/require"
)

// freePorts returns n distinct free TCP ports on the loopback interface.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		require.NoError(t, l.Close())
	}
	return ports
}

// client talks to a kernel over ZeroMQ as a Jupyter front end does.
type client struct {
	t       *testing.T
	sg      signer
	shell   zmq4.Socket
	control zmq4.Socket
	iopub   zmq4.Socket
	hb      zmq4.Socket
	iopubCh chan *Message
	session string
	ci      ConnectionInfo
}

func newClient(t *testing.T, ctx context.Context, ci ConnectionInfo) *client {
	c := &client{
		t: t, sg: signer{key: []byte(ci.Key)}, session: newID(), ci: ci,
		shell:   zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("shell-"+newID()))),
		control: zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("control-"+newID()))),
		iopub:   zmq4.NewSub(ctx),
		hb:      zmq4.NewReq(ctx),
		iopubCh: make(chan *Message, 1000),
	}
	require.NoError(t, c.shell.Dial(ci.Endpoint(ci.ShellPort)))
	require.NoError(t, c.control.Dial(ci.Endpoint(ci.ControlPort)))
	require.NoError(t, c.iopub.Dial(ci.Endpoint(ci.IOPubPort)))
	require.NoError(t, c.iopub.SetOption(zmq4.OptionSubscribe, ""))
	require.NoError(t, c.hb.Dial(ci.Endpoint(ci.HBPort)))
	go func() {
		for {
			raw, err := c.iopub.Recv()
			if err != nil {
				return
			}
			m, err := c.sg.decode(raw.Frames)
			if err != nil {
				t.Errorf("iopub message: %v", err)
				continue
			}
			c.iopubCh <- m
		}
	}()
	t.Cleanup(func() {
		for _, s := range []zmq4.Socket{c.shell, c.control, c.iopub, c.hb} {
			_ = s.Close()
		}
	})
	return c
}

// send sends a request on sock and returns its msg_id.
func (c *client) send(sock zmq4.Socket, msgType string, content any) string {
	c.t.Helper()
	b, err := json.Marshal(content)
	require.NoError(c.t, err)
	m := &Message{Header: newHeader(c.session, msgType), Parent: json.RawMessage("{}"), Metadata: json.RawMessage("{}"), Content: b}
	m.Header.Username = "test"
	frames, err := c.sg.encode(m)
	require.NoError(c.t, err)
	require.NoError(c.t, sock.Send(zmq4.NewMsgFrom(frames...)))
	return m.Header.MsgID
}

// recv reads one reply from sock, checking its signature.
func (c *client) recv(sock zmq4.Socket) *Message {
	c.t.Helper()
	raw, err := sock.Recv()
	require.NoError(c.t, err)
	m, err := c.sg.decode(raw.Frames)
	require.NoError(c.t, err, "reply signature")
	return m
}

// parentID returns the msg_id of m's parent header.
func parentID(m *Message) string {
	var h Header
	_ = json.Unmarshal(m.Parent, &h)
	return h.MsgID
}

// request sends a request and returns the reply content and the iopub
// messages published for it (between busy and idle).
func (c *client) request(sock zmq4.Socket, msgType string, content any) (map[string]any, []*Message) {
	c.t.Helper()
	id := c.send(sock, msgType, content)
	reply := c.recv(sock)
	require.Equal(c.t, id, parentID(reply))
	require.Equal(c.t, strings.TrimSuffix(msgType, "_request")+"_reply", reply.Header.MsgType)
	var out map[string]any
	require.NoError(c.t, json.Unmarshal(reply.Content, &out))
	var pub []*Message
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-c.iopubCh:
			if parentID(m) != id {
				continue
			}
			if m.Header.MsgType == "status" {
				var st map[string]any
				require.NoError(c.t, json.Unmarshal(m.Content, &st))
				if st["execution_state"] == "idle" {
					return out, pub
				}
				continue
			}
			pub = append(pub, m)
		case <-deadline:
			c.t.Fatalf("no idle status for %s", msgType)
		}
	}
}

func content(t *testing.T, m *Message) map[string]any {
	var out map[string]any
	require.NoError(t, json.Unmarshal(m.Content, &out))
	return out
}

// startKernel runs a kernel on a fresh connection file and returns a
// connected client and the channel Run's error arrives on.
func startKernel(t *testing.T) (*client, chan error) {
	ports := freePorts(t, 5)
	ci := ConnectionInfo{
		Transport: "tcp", IP: "127.0.0.1",
		ShellPort: ports[0], ControlPort: ports[1], IOPubPort: ports[2], StdinPort: ports[3], HBPort: ports[4],
		SignatureScheme: "hmac-sha256", Key: "a0436f6c-1916-498b-8eb9-e81ab9368e84", KernelName: KernelName,
	}
	file := filepath.Join(t.TempDir(), "kernel.json")
	data, err := json.Marshal(ci)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, file) }()
	time.Sleep(100 * time.Millisecond)
	c := newClient(t, ctx, ci)
	// Wait until the SUB socket receives: kernel_info until its busy status
	// arrives.
	deadline := time.Now().Add(10 * time.Second)
	for {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.recv(c.shell)
		got := false
		timeout := time.After(300 * time.Millisecond)
	drain:
		for {
			select {
			case m := <-c.iopubCh:
				if parentID(m) == id && m.Header.MsgType == "status" && content(t, m)["execution_state"] == "idle" {
					got = true
					break drain
				}
			case <-timeout:
				break drain
			}
		}
		if got {
			break
		}
		require.True(t, time.Now().Before(deadline), "iopub never connected")
	}
	return c, done
}

func TestKernelProtocol(t *testing.T) {
	c, done := startKernel(t)

	t.Run("kernel_info", func(t *testing.T) {
		r, _ := c.request(c.shell, "kernel_info_request", map[string]any{})
		require.Equal(t, "ok", r["status"])
		require.Equal(t, ProtocolVersion, r["protocol_version"])
		require.Equal(t, "sql", r["language_info"].(map[string]any)["name"])
	})

	t.Run("heartbeat", func(t *testing.T) {
		require.NoError(t, c.hb.Send(zmq4.NewMsgString("ping")))
		m, err := c.hb.Recv()
		require.NoError(t, err)
		require.Equal(t, "ping", string(m.Frames[0]))
	})

	t.Run("execute create and select", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{
			"code": "CREATE TABLE orders (id BIGINT, item STRING) WITH ('connector' = 'values');\n" +
				"SELECT * FROM (VALUES (1, 'a<b'), (2, CAST(NULL AS STRING))) AS t(id, item)",
			"silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true,
		})
		require.Equal(t, "ok", r["status"])
		require.EqualValues(t, 1, r["execution_count"])
		var types []string
		for _, m := range pub {
			types = append(types, m.Header.MsgType)
		}
		require.Equal(t, []string{"execute_input", "display_data", "execute_result"}, types)
		info := content(t, pub[1])["data"].(map[string]any)
		require.Equal(t, "[INFO] Execute statement succeeded.", info["text/plain"])
		res := content(t, pub[2])
		require.EqualValues(t, 1, res["execution_count"])
		data := res["data"].(map[string]any)
		require.Equal(t, "+----+--------+\n| id |   item |\n+----+--------+\n|  1 |    a<b |\n|  2 | <NULL> |\n+----+--------+\n2 rows in set", data["text/plain"])
		html := data["text/html"].(string)
		require.Contains(t, html, `<th title="INT NOT NULL">id</th>`)
		require.Contains(t, html, `<td style="text-align: right">1</td><td>a&lt;b</td>`)
		require.Contains(t, html, `<td>&lt;NULL&gt;</td>`)
		require.Contains(t, html, "<p>2 rows in set</p>")
	})

	t.Run("execute error", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{"code": "SELECT * FROM missing; SELECT 1", "silent": false})
		require.Equal(t, "error", r["status"])
		require.Equal(t, "org.apache.calcite.sql.validate.SqlValidatorException", r["ename"])
		require.Contains(t, r["evalue"], "Object 'missing' not found")
		require.Len(t, pub, 2)
		require.Equal(t, "error", pub[1].Header.MsgType)
		tb := content(t, pub[1])["traceback"].([]any)
		require.Equal(t, "[ERROR] Could not execute SQL statement. Reason:", tb[0])
		// the caret under the token, in the cell's text
		require.Equal(t, []any{"From line 1, column 15 to line 1, column 21:", "SELECT * FROM missing; SELECT 1", "              ^^^^^^^"}, tb[len(tb)-3:])
	})

	t.Run("print connector output streams", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{
			"code": "CREATE TEMPORARY TABLE p (s STRING) WITH ('connector' = 'print');\nINSERT INTO p VALUES ('hello, world');", "silent": false,
		})
		require.Equal(t, "ok", r["status"])
		var text string
		for _, m := range pub {
			if m.Header.MsgType == "stream" {
				text += content(t, m)["text"].(string)
			}
		}
		require.Contains(t, text, "+I[hello, world]")
	})

	t.Run("UDF output goes to the cell", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{
			"code": "CREATE TEMPORARY FUNCTION py_hello(s STRING) RETURNS STRING LANGUAGE PYTHON AS $$\ndef py_hello(s):\n    print('py says', s)\n    return s.upper()\n$$;\n" +
				"CREATE TEMPORARY FUNCTION js_hello(s STRING) RETURNS STRING LANGUAGE JAVASCRIPT AS $$\nfunction js_hello(s) { console.log('js says', s); return s.toLowerCase(); }\n$$;\n" +
				"SELECT py_hello('a'), js_hello('B')", "silent": false,
		})
		require.Equal(t, "ok", r["status"])
		var text string
		for _, m := range pub {
			if m.Header.MsgType == "stream" {
				text += content(t, m)["text"].(string)
			}
		}
		require.Contains(t, text, "py says a")
		require.Contains(t, text, "js says B")
	})

	t.Run("chart option", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{
			"code": "%chart bar x=k y=v title=\"Totals\"\nSELECT * FROM (VALUES ('a', 1), ('b', 2)) AS t(k, v)",
		})
		require.Equal(t, "ok", r["status"])
		// the chart and the table are separate outputs: a front end shows
		// one MIME type per output, and prefers HTML to SVG
		chart := content(t, pub[len(pub)-2])
		require.Equal(t, "display_data", pub[len(pub)-2].Header.MsgType)
		require.Contains(t, chart["data"].(map[string]any)["image/svg+xml"], "<svg")
		require.Equal(t, "[bar chart of v by k]", chart["data"].(map[string]any)["text/plain"])
		require.NotContains(t, chart["data"], "text/html")
		require.Equal(t, "execute_result", pub[len(pub)-1].Header.MsgType)
		data := content(t, pub[len(pub)-1])["data"].(map[string]any)
		require.NotContains(t, data, "image/svg+xml")
		require.Contains(t, data["text/html"], "<table")
		r, _ = c.request(c.shell, "execute_request", map[string]any{"code": "%chart pie x=k y=v\nSELECT 1"})
		require.Equal(t, "error", r["status"])
		require.Equal(t, "ChartError", r["ename"])
		r, _ = c.request(c.shell, "execute_request", map[string]any{"code": "%chart bar x=k y=missing\nSELECT 1 AS k"})
		require.Equal(t, "error", r["status"])
		require.Contains(t, r["evalue"], "column 'missing' is not in the result")
	})

	t.Run("python and javascript cells define modules", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{"code": "%%python\ndef shout(s):\n    return s.upper() + '!'\n"})
		require.Equal(t, "ok", r["status"])
		text := content(t, pub[len(pub)-1])["data"].(map[string]any)["text/plain"]
		require.Contains(t, text, "[INFO] Python module 'notebook' defined: shout.")
		r, _ = c.request(c.shell, "execute_request", map[string]any{"code": "%%javascript jsmod\nfunction twice(x) { return 2 * x; }\n"})
		require.Equal(t, "ok", r["status"])
		r, pub = c.request(c.shell, "execute_request", map[string]any{"code": "CREATE TEMPORARY FUNCTION shout(s STRING) RETURNS STRING LANGUAGE PYTHON AS 'notebook.shout';\n" +
			"CREATE TEMPORARY FUNCTION twice(x INT) RETURNS INT LANGUAGE JAVASCRIPT AS 'jsmod.twice';\n" +
			"SELECT shout('hi') AS s, twice(21) AS t"})
		require.Equal(t, "ok", r["status"], r["evalue"])
		data := content(t, pub[len(pub)-1])["data"].(map[string]any)
		require.Contains(t, data["text/plain"], "| HI! | 42 |")
		r, _ = c.request(c.shell, "execute_request", map[string]any{"code": "%%ruby\nputs 1"})
		require.Equal(t, "error", r["status"])
		require.Equal(t, "ScriptCellError", r["ename"])
		// a syntax error fails the cell that has it, and keeps the module
		// defined before
		r, _ = c.request(c.shell, "execute_request", map[string]any{"code": "%%python\ndef shout(s):\n    return s.upper( + '!'\n"})
		require.Equal(t, "error", r["status"])
		require.Equal(t, "SyntaxError", r["ename"])
		require.Contains(t, r["evalue"], "Python module 'notebook' at cell line ")
		r, _ = c.request(c.shell, "execute_request", map[string]any{"code": "SELECT shout('a') AS s"})
		require.Equal(t, "ok", r["status"], r["evalue"])
	})

	t.Run("silent execution publishes nothing", func(t *testing.T) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{"code": "SELECT 1", "silent": true})
		require.Equal(t, "ok", r["status"])
		require.Empty(t, pub)
	})

	t.Run("complete", func(t *testing.T) {
		r, _ := c.request(c.shell, "complete_request", map[string]any{"code": "SELECT * FROM ord", "cursor_pos": 17})
		require.ElementsMatch(t, []any{"order", "orders"}, r["matches"])
		require.EqualValues(t, 14, r["cursor_start"])
		require.EqualValues(t, 17, r["cursor_end"])
		r, _ = c.request(c.shell, "complete_request", map[string]any{"code": "SELECT orders.it FROM orders", "cursor_pos": 16})
		require.Equal(t, []any{"item"}, r["matches"])
	})

	t.Run("inspect", func(t *testing.T) {
		r, _ := c.request(c.shell, "inspect_request", map[string]any{"code": "SELECT * FROM orders", "cursor_pos": 15, "detail_level": 0})
		require.Equal(t, true, r["found"])
		data := r["data"].(map[string]any)
		require.Contains(t, data["text/plain"], "item")
		require.Contains(t, data["text/html"], "<table")
		r, _ = c.request(c.shell, "inspect_request", map[string]any{"code": "nothing", "cursor_pos": 3, "detail_level": 0})
		require.Equal(t, false, r["found"])
	})

	t.Run("is_complete", func(t *testing.T) {
		for code, want := range map[string]string{
			"SELECT 1;": "complete", "SELECT 1": "complete", "SELECT 'a": "incomplete", "SELECT 1 FROM": "incomplete",
		} {
			r, _ := c.request(c.shell, "is_complete_request", map[string]any{"code": code})
			require.Equal(t, want, r["status"], code)
		}
	})

	t.Run("bad signature is dropped", func(t *testing.T) {
		bad := &client{t: t, sg: signer{key: []byte("wrong")}, session: "x"}
		bad.send(c.shell, "kernel_info_request", map[string]any{})
		r, _ := c.request(c.shell, "kernel_info_request", map[string]any{})
		require.Equal(t, "ok", r["status"])
	})

	t.Run("interrupt cancels a running cell", func(t *testing.T) {
		id := c.send(c.shell, "execute_request", map[string]any{
			"code": "CREATE TABLE big (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000000000');\nSELECT COUNT(*) FROM big",
		})
		// The cell is running once its execute_input is published.
		deadline := time.After(10 * time.Second)
	wait:
		for {
			select {
			case m := <-c.iopubCh:
				if parentID(m) == id && m.Header.MsgType == "execute_input" {
					break wait
				}
			case <-deadline:
				t.Fatal("the cell did not start")
			}
		}
		time.Sleep(100 * time.Millisecond)
		r, _ := c.request(c.control, "interrupt_request", map[string]any{})
		require.Equal(t, "ok", r["status"])
		reply := c.recv(c.shell)
		require.Equal(t, id, parentID(reply))
		rc := content(t, reply)
		require.Equal(t, "error", rc["status"])
		require.Equal(t, "Interrupted", rc["ename"])
	})

	t.Run("shutdown", func(t *testing.T) {
		id := c.send(c.control, "shutdown_request", map[string]any{"restart": false})
		reply := c.recv(c.control)
		require.Equal(t, id, parentID(reply))
		require.Equal(t, "ok", content(t, reply)["status"])
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(5 * time.Second):
			t.Fatal("the kernel did not stop")
		}
	})
}

func TestSignature(t *testing.T) {
	s := signer{key: []byte("key")}
	m := &Message{Identities: [][]byte{[]byte("id")}, Header: newHeader("s", "status"), Content: json.RawMessage(`{"a":1}`)}
	frames, err := s.encode(m)
	require.NoError(t, err)
	got, err := s.decode(frames)
	require.NoError(t, err)
	require.Equal(t, "status", got.Header.MsgType)
	require.Equal(t, [][]byte{[]byte("id")}, got.Identities)
	frames[5] = []byte(`{"a":2}`) // tamper with the content
	_, err = s.decode(frames)
	require.ErrorIs(t, err, errBadSignature)
	_, err = s.decode([][]byte{[]byte("no delimiter")})
	require.Error(t, err)
}

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kernels", KernelName)
	require.NoError(t, Install(dir, "/usr/local/bin/tablerun"))
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	require.NoError(t, err)
	var spec map[string]any
	require.NoError(t, json.Unmarshal(data, &spec))
	require.Equal(t, []any{"/usr/local/bin/tablerun", "kernel", "--connection-file", "{connection_file}"}, spec["argv"])
	require.Equal(t, "tablerun (Flink SQL)", spec["display_name"])
	require.Equal(t, "sql", spec["language"])
	require.Equal(t, "message", spec["interrupt_mode"])
}

func TestReadConnectionFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body, err string
	}{
		{"ok", `{"ip":"127.0.0.1","shell_port":1,"key":"k","signature_scheme":"hmac-sha256","transport":"tcp"}`, ""},
		{"bad json", `{`, "parse connection file"},
		{"bad scheme", `{"key":"k","signature_scheme":"hmac-md5"}`, "not supported yet: signature scheme"},
		{"bad transport", `{"transport":"udp"}`, "not supported yet: transport"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".json")
			require.NoError(t, os.WriteFile(p, []byte(c.body), 0o600))
			ci, err := ReadConnectionFile(p)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "tcp://127.0.0.1:1", ci.Endpoint(ci.ShellPort))
		})
	}
	_, err := ReadConnectionFile(filepath.Join(dir, "missing.json"))
	require.Error(t, err)
}

func TestKernelStreamingDisplay(t *testing.T) {
	c, _ := startKernel(t)
	r, pub := c.request(c.shell, "execute_request", map[string]any{
		"code": "SET 'execution.runtime-mode' = 'streaming';\n" +
			"SELECT k, COUNT(*) AS c FROM (VALUES (1), (2), (1)) AS t(k) GROUP BY k",
	})
	require.Equal(t, "ok", r["status"])
	var types []string
	displayIDs := map[string]bool{}
	var final map[string]any
	for _, m := range pub {
		types = append(types, m.Header.MsgType)
		mc := content(t, m)
		if tr, ok := mc["transient"].(map[string]any); ok && tr["display_id"] != nil {
			displayIDs[tr["display_id"].(string)] = true
			final = mc["data"].(map[string]any)
		}
	}
	require.Equal(t, "execute_input", types[0])
	require.Equal(t, "display_data", types[1]) // [INFO] of SET
	require.Equal(t, "display_data", types[2]) // the live table
	require.Equal(t, "update_display_data", types[len(types)-1])
	require.Len(t, displayIDs, 1)
	require.Contains(t, final["text/html"], "2 rows in set (")
	require.Contains(t, final["text/html"], "finished)")
	require.Contains(t, final["text/plain"], "| 1 | 2 |")
	require.Contains(t, final["text/plain"], "| 2 | 1 |")
}

// zmtpHandshake opens a raw TCP connection to a kernel socket and completes
// the ZMTP 3.0 NULL handshake as a DEALER, as any peer on the network can.
func zmtpHandshake(t *testing.T, port int, sockType string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	greeting := make([]byte, 64)
	greeting[0], greeting[9], greeting[10], greeting[11] = 0xff, 0x7f, 3, 0
	copy(greeting[12:], "NULL")
	_, err = conn.Write(greeting)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	peer := make([]byte, 64)
	_, err = io.ReadFull(conn, peer)
	require.NoError(t, err)
	require.Equal(t, byte(0xff), peer[0])
	// READY with Socket-Type DEALER.
	var ready []byte
	ready = append(ready, 5)
	ready = append(ready, "READY"...)
	ready = append(ready, byte(len("Socket-Type")))
	ready = append(ready, "Socket-Type"...)
	ready = binary.BigEndian.AppendUint32(ready, uint32(len(sockType)))
	ready = append(ready, sockType...)
	_, err = conn.Write(append([]byte{0x04, byte(len(ready))}, ready...))
	require.NoError(t, err)
	// The kernel's READY command.
	hdr := make([]byte, 2)
	_, err = io.ReadFull(conn, hdr)
	require.NoError(t, err)
	require.Equal(t, byte(0x04), hdr[0]&0x04, "expected a command frame")
	_, err = io.ReadFull(conn, make([]byte, hdr[1]))
	require.NoError(t, err)
	return conn
}

// An unauthenticated peer announcing a huge frame is dropped before the
// kernel allocates the frame, and the kernel goes on serving.
func TestKernelDropsOversizedFrame(t *testing.T) {
	c, _ := startKernel(t)
	for _, p := range []struct {
		port     int
		sockType string
	}{{c.ci.ShellPort, "DEALER"}, {c.ci.HBPort, "REQ"}, {c.ci.ControlPort, "DEALER"}} {
		conn := zmtpHandshake(t, p.port, p.sockType)
		hdr := []byte{0x02} // LONG, last frame
		hdr = binary.BigEndian.AppendUint64(hdr, 100<<30)
		_, err := conn.Write(hdr)
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, err = conn.Read(make([]byte, 1))
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "the kernel kept the connection open: %v", err)
		require.Error(t, err)
	}
	// The kernel still answers.
	r, _ := c.request(c.shell, "kernel_info_request", map[string]any{})
	require.Equal(t, "ok", r["status"])
}

func TestConnectionFileEmptyIPIsLoopback(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"ip":"","shell_port":5,"transport":"tcp"}`), 0o600))
	ci, err := ReadConnectionFile(p)
	require.NoError(t, err)
	require.Equal(t, "tcp://127.0.0.1:5", ci.Endpoint(ci.ShellPort))
	require.NoError(t, os.WriteFile(p, []byte(`{"shell_port":5,"transport":"ipc"}`), 0o600))
	ci, err = ReadConnectionFile(p)
	require.NoError(t, err)
	require.Equal(t, "ipc://kernel-ipc-5", ci.Endpoint(ci.ShellPort))
}

// TestKernelUnboundedLive runs an unbounded streaming GROUP BY in a cell:
// update_display_data messages with the running view (all 10 groups, never
// one missing) arrive while the query runs, and an interrupt ends the cell
// with a final "canceled" update and an Interrupted error.
func TestKernelUnboundedLive(t *testing.T) {
	c, _ := startKernel(t)
	r, _ := c.request(c.shell, "execute_request", map[string]any{"code": "SET 'execution.runtime-mode' = 'streaming';\n" +
		"CREATE TABLE g (k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000', 'fields.k.min' = '1', 'fields.k.max' = '10')"})
	require.Equal(t, "ok", r["status"])
	id := c.send(c.shell, "execute_request", map[string]any{"code": "SELECT k, SUM(v) AS s FROM g GROUP BY k"})
	updates := 0
	var lastRunning string
	deadline := time.After(15 * time.Second)
	for updates < 5 {
		select {
		case m := <-c.iopubCh:
			if parentID(m) != id || m.Header.MsgType != "update_display_data" {
				continue
			}
			text := content(t, m)["data"].(map[string]any)["text/plain"].(string)
			require.Contains(t, text, "running)")
			if strings.Contains(text, "10 rows in set") {
				updates++
				lastRunning = text
			} else {
				require.Zero(t, updates, "a group is missing from a live update:\n%s", text)
			}
		case <-deadline:
			t.Fatalf("only %d live updates before the deadline", updates)
		}
	}
	// not c.request: it would drop the cell's iopub messages
	c.send(c.control, "interrupt_request", map[string]any{})
	require.Equal(t, "ok", content(t, c.recv(c.control))["status"])
	interrupted := time.Now()
	reply := c.recv(c.shell)
	require.Less(t, time.Since(interrupted), time.Second)
	require.Equal(t, id, parentID(reply))
	rc := content(t, reply)
	require.Equal(t, "Interrupted", rc["ename"])
	require.Equal(t, []any{"[INFO] Query canceled."}, rc["traceback"])
	require.Contains(t, lastRunning, "|  k |")
	// the last update says canceled
	for {
		select {
		case m := <-c.iopubCh:
			if parentID(m) == id && m.Header.MsgType == "update_display_data" {
				text := content(t, m)["data"].(map[string]any)["text/plain"].(string)
				if strings.Contains(text, "canceled)") {
					require.NotContains(t, text, "java.")
					return
				}
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no final canceled update")
		}
	}
}
