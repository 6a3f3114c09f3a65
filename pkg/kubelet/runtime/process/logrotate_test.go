package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

func TestRotatingLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "main", "0.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const entry = 100
	l, err := openRotatingLog(path, 10*entry, 3)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for i := range 45 {
		line := fmt.Sprintf("%-*d\n", entry-1, i)
		all = append(all, line)
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// 45 entries of which 10 fit a file: 4 rotations; 3 files are kept,
	// the live one holding the last 5.
	files := kruntime.LogFiles(path)
	if len(files) != 3 || files[2] != path {
		t.Fatalf("log files %v, want 2 rotated and the live one", files)
	}
	var got strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 10*entry {
			t.Errorf("%s has %d bytes, more than the limit", f, len(b))
		}
		got.Write(b)
	}
	if want := strings.Join(all[20:], ""); got.String() != want {
		t.Errorf("kept entries:\n%s\nwant:\n%s", got.String(), want)
	}

	// Reopened (a shim of the same container after a restart), the live
	// file's size counts.
	l, err = openRotatingLog(path, 10*entry, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	for range 6 {
		if _, err := l.Write([]byte(all[0])); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); len(b) != entry {
		t.Errorf("after reopening, the live file has %d bytes, want one entry after a rotation", len(b))
	}
}
