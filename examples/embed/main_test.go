package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeGoExample checks that the README's Go example is this
// program, verbatim (so go build ./... compiles it), and runs it from the
// repository root, where its data path resolves, as the README says.
func TestReadmeGoExample(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	require.NotEmpty(t, blocks, "README has no ```go block")
	require.Equal(t, string(src), string(blocks[0][1]), "README's Go example differs from examples/embed/main.go")

	t.Chdir(filepath.Join("..", ".."))
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		main()
	}()
	require.NoError(t, w.Close())
	out := string(<-done)
	require.Equal(t, `+---------+--------+-------------------------+
| user_id |  total |              last_order |
+---------+--------+-------------------------+
|       1 | 342.39 | 2024-03-04 07:55:42.700 |
|       2 | 131.50 | 2024-03-03 09:01:37.000 |
|       3 | 140.99 | 2024-03-03 18:22:10.010 |
|       4 | 341.99 | 2024-03-04 20:10:03.333 |
|       5 |  49.90 | 2024-03-02 16:44:08.250 |
|       6 |  64.75 | 2024-03-03 12:18:55.400 |
|       7 |  64.75 | 2024-03-04 13:36:29.000 |
+---------+--------+-------------------------+
7 rows in set
user 1 spent 342.39, last on 2024-03-04
user 2 spent 131.50, last on 2024-03-03
user 3 spent 140.99, last on 2024-03-03
user 4 spent 341.99, last on 2024-03-04
user 5 spent 49.90, last on 2024-03-02
user 6 spent 64.75, last on 2024-03-03
user 7 spent 64.75, last on 2024-03-04
`, out)
}
