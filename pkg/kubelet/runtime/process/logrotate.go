package process

import (
	"fmt"
	"os"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// rotatingLog is a container's log file, which the shim (its only writer)
// rotates: a write that would take it past maxSize first renames it to
// kruntime.RotatedLogName and starts a new one, and the oldest rotated
// files go so that at most maxFiles files, the live one included, are
// left. Each write is one whole log entry, so no entry is split across
// two files. maxSize 0 never rotates.
type rotatingLog struct {
	path     string
	maxSize  int64
	maxFiles int
	f        *os.File
	size     int64
}

func openRotatingLog(path string, maxSize int64, maxFiles int) (*rotatingLog, error) {
	l := &rotatingLog{path: path, maxSize: maxSize, maxFiles: max(maxFiles, 2)}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *rotatingLog) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	l.f, l.size = f, st.Size()
	return nil
}

func (l *rotatingLog) Write(p []byte) (int, error) {
	if l.maxSize > 0 && l.size > 0 && l.size+int64(len(p)) > l.maxSize {
		if err := l.rotate(); err != nil {
			// The shim's stderr is its own log; the entry still goes to
			// whichever file is open.
			fmt.Fprintf(os.Stderr, "rotate %s: %v\n", l.path, err)
		}
	}
	if l.f == nil {
		return 0, fmt.Errorf("log %s is not open", l.path)
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

func (l *rotatingLog) rotate() error {
	_ = l.f.Close()
	l.f = nil
	renamed := os.Rename(l.path, kruntime.RotatedLogName(l.path, time.Now()))
	if err := l.open(); err != nil {
		return err
	}
	if renamed != nil {
		return renamed
	}
	files := kruntime.LogFiles(l.path)
	for _, old := range files[:max(len(files)-l.maxFiles, 0)] {
		_ = os.Remove(old)
	}
	return nil
}

// Close closes the live file.
func (l *rotatingLog) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
