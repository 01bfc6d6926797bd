package kernel

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// notebookFiles lists the notebooks of the repository's notebooks/ folder.
func notebookFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// notebook is the part of an .ipynb file the tests read.
type notebook struct {
	Cells []struct {
		CellType       string            `json:"cell_type"`
		ExecutionCount *int              `json:"execution_count"`
		Outputs        []json.RawMessage `json:"outputs"`
		Source         []string          `json:"source"`
	} `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
}

func readNotebook(t *testing.T, path string) notebook {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var nb notebook
	require.NoError(t, json.Unmarshal(data, &nb), path)
	return nb
}

// TestNotebooksStripped checks that the notebooks are committed without
// outputs and use the tablerun kernel.
func TestNotebooksStripped(t *testing.T) {
	for _, f := range notebookFiles(t) {
		nb := readNotebook(t, f)
		require.Equal(t, KernelName, nb.Metadata.Kernelspec.Name, f)
		for i, c := range nb.Cells {
			if c.CellType != "code" {
				continue
			}
			require.Empty(t, c.Outputs, "%s: cell %d has outputs", f, i)
			require.Nil(t, c.ExecutionCount, "%s: cell %d has an execution count", f, i)
		}
	}
}

// TestNotebooksExecute runs every notebook with `jupyter nbconvert
// --execute` on the kernel (a kernelspec starting this test binary), and
// checks that every code cell produced output.
func TestNotebooksExecute(t *testing.T) {
	jupyter, err := exec.LookPath("jupyter")
	if err != nil || exec.Command(jupyter, "nbconvert", "--version").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("jupyter nbconvert is not installed; .ci/run installs it")
		}
		t.Skip("jupyter nbconvert is not installed (apt-get install jupyter-nbconvert python3-jupyter-client): the notebooks did not run")
	}
	jpath := testKernelspec(t)
	out := t.TempDir()
	for _, f := range notebookFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			abs, err := filepath.Abs(f)
			require.NoError(t, err)
			cmd := exec.Command(jupyter, "nbconvert", "--to", "notebook", "--execute",
				"--ExecutePreprocessor.timeout=120", "--output-dir", out, abs)
			cmd.Env = append(os.Environ(), jupyterEnv(jpath)...)
			res, err := cmd.CombinedOutput()
			require.NoError(t, err, "nbconvert:\n%s", res)
			nb := readNotebook(t, filepath.Join(out, filepath.Base(f)))
			for i, c := range nb.Cells {
				if c.CellType == "code" {
					require.NotEmpty(t, c.Outputs, "cell %d has no output", i)
				}
			}
		})
	}
}

// TestNotebookChartInHTML converts the tour notebook to HTML with
// `jupyter nbconvert --to html --execute`: its %chart cell's SVG must be
// in the page (nbconvert shows one MIME type per output, preferring HTML,
// so a chart sharing an output with its table was dropped), as must the
// table.
func TestNotebookChartInHTML(t *testing.T) {
	jupyter, err := exec.LookPath("jupyter")
	if err != nil || exec.Command(jupyter, "nbconvert", "--version").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("jupyter nbconvert is not installed; .ci/run installs it")
		}
		t.Skip("jupyter nbconvert is not installed (apt-get install jupyter-nbconvert python3-jupyter-client)")
	}
	jpath := testKernelspec(t)
	out := t.TempDir()
	abs, err := filepath.Abs(filepath.Join("..", "..", "notebooks", "tour.ipynb"))
	require.NoError(t, err)
	cmd := exec.Command(jupyter, "nbconvert", "--to", "html", "--execute",
		"--ExecutePreprocessor.timeout=120", "--output-dir", out, abs)
	cmd.Env = append(os.Environ(), jupyterEnv(jpath)...)
	res, err := cmd.CombinedOutput()
	require.NoError(t, err, "nbconvert:\n%s", res)
	page, err := os.ReadFile(filepath.Join(out, "tour.html"))
	require.NoError(t, err)
	html := string(page)
	require.Contains(t, html, "Revenue per customer") // the chart's title, inside the SVG
	require.Regexp(t, `(?s)<svg[^>]*>.*Revenue per customer`, html)
	require.Contains(t, html, "<table")
}
