package framework

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// hackDir is the repository's hack/ directory, found from this source
// file so that tests of any package depth can run its scripts.
func hackDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("locate the framework's source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "hack"), nil
}

// BuildTool runs hack/<script>, which builds a stock tool from a test-only
// module through the module proxy (cached in _output/bin) and prints the
// binary's path, and returns that path. An error carries the script's
// output: a test needing the tool fails with it, never skips.
func BuildTool(script string) (string, error) {
	dir, err := hackDir()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(dir, script))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/%s: %w\n%s", script, err, stderr.String())
	}
	path := strings.TrimSpace(string(out))
	if path == "" {
		return "", fmt.Errorf("hack/%s printed no path", script)
	}
	return path, nil
}

// Helm builds the stock Helm 4 CLI that test/helm pins (hack/helm.sh) and
// returns its path.
func Helm() (string, error) { return BuildTool("helm.sh") }
