package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// appendEntries appends CRI log entries for lines to the file at path.
func appendEntries(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	for _, l := range lines {
		if _, err := fmt.Fprintf(f, "%s stdout F %s\n", time.Now().UTC().Format(time.RFC3339Nano), l); err != nil {
			t.Fatal(err)
		}
	}
}

// rotate renames the live log as the process runtime's shim does.
func rotate(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path, kruntime.RotatedLogName(path, time.Now())); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a strings.Builder safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStreamLogAcrossRotations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	appendEntries(t, path, "a", "b")
	rotate(t, path)
	time.Sleep(time.Millisecond) // distinct rotation times
	appendEntries(t, path, "c", "d")
	rotate(t, path)
	appendEntries(t, path, "e", "f")
	notRunning := func() bool { return false }

	for _, tc := range []struct {
		name string
		o    logOptions
		want string
	}{
		{"every file in order", logOptions{tail: -1, limit: -1}, "a\nb\nc\nd\ne\nf\n"},
		{"tail reaching into a rotated file", logOptions{tail: 3, limit: -1}, "d\ne\nf\n"},
		{"tail of more lines than there are", logOptions{tail: 100, limit: -1}, "a\nb\nc\nd\ne\nf\n"},
		{"limitBytes across files", logOptions{tail: -1, limit: 5}, "a\nb\nc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if err := streamLog(t.Context(), &out, path, tc.o, time.Millisecond, notRunning); err != nil && err != errLimit {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got %q, want %q", out.String(), tc.want)
			}
		})
	}

	t.Run("follow across a rotation", func(t *testing.T) {
		var running atomic.Bool
		running.Store(true)
		var out syncBuffer
		done := make(chan error, 1)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		go func() {
			done <- streamLog(ctx, &out, path, logOptions{follow: true, tail: 1, limit: -1}, 5*time.Millisecond, running.Load)
		}()
		waitOutput := func(want string) {
			t.Helper()
			for deadline := time.Now().Add(5 * time.Second); out.String() != want; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("followed %q, want %q", out.String(), want)
				}
			}
		}
		waitOutput("f\n")
		// Written just before a rotation: not lost.
		appendEntries(t, path, "g")
		rotate(t, path)
		appendEntries(t, path, "h")
		waitOutput("f\ng\nh\n")
		// Two rotations between two polls.
		appendEntries(t, path, "i")
		rotate(t, path)
		time.Sleep(time.Millisecond)
		appendEntries(t, path, "j")
		rotate(t, path)
		appendEntries(t, path, "k")
		running.Store(false)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if want := "f\ng\nh\ni\nj\nk\n"; out.String() != want {
			t.Errorf("followed %q, want %q", out.String(), want)
		}
	})
}
