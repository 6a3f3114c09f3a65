package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// logOptions are the query parameters of /containerLogs.
type logOptions struct {
	follow, previous, timestamps bool
	tail                         int64 // -1: every line
	since                        time.Time
	limit                        int64 // -1: no limit
}

func parseBool(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q is not a boolean", name, v)
	}
	return b, nil
}

func parseLogOptions(q url.Values, now time.Time) (logOptions, error) {
	o := logOptions{tail: -1, limit: -1}
	var err error
	for name, p := range map[string]*bool{"follow": &o.follow, "previous": &o.previous, "timestamps": &o.timestamps} {
		if *p, err = parseBool(q, name); err != nil {
			return o, err
		}
	}
	for name, p := range map[string]*int64{"tailLines": &o.tail, "limitBytes": &o.limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || (name == "limitBytes" && n == 0) {
				return o, fmt.Errorf("%s=%q must be a positive integer", name, v)
			}
			*p = n
		}
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return o, fmt.Errorf("sinceTime=%q is not an RFC 3339 time", v)
		}
		o.since = t
	}
	if v := q.Get("sinceSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("sinceSeconds=%q must be a positive integer", v)
		}
		o.since = now.Add(-time.Duration(n) * time.Second)
	}
	return o, nil
}

// logEntry is one line of a CRI log file:
// "<RFC 3339 nano time> <stdout|stderr> <F|P> <content>".
type logEntry struct {
	time    time.Time
	rawTime []byte
	full    bool // F: the content ends a line; P: a part of a longer one
	content []byte
}

func parseLogEntry(line []byte) (logEntry, error) {
	ts, rest, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return logEntry{}, errors.New("no timestamp")
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts))
	if err != nil {
		return logEntry{}, fmt.Errorf("timestamp: %w", err)
	}
	_, rest, ok = bytes.Cut(rest, []byte{' '}) // stream
	if !ok {
		return logEntry{}, errors.New("no stream")
	}
	tag, content, _ := bytes.Cut(rest, []byte{' '})
	return logEntry{time: t, rawTime: ts, full: !bytes.Equal(tag, []byte("P")), content: content}, nil
}

// errLimit ends output at limitBytes.
var errLimit = errors.New("limitBytes reached")

// logWriter writes entries as the client asked for them.
type logWriter struct {
	w    io.Writer
	o    logOptions
	left int64 // bytes left under limitBytes; -1: no limit
}

func (lw *logWriter) write(e logEntry) error {
	if !lw.o.since.IsZero() && e.time.Before(lw.o.since) {
		return nil
	}
	var b []byte
	if lw.o.timestamps {
		b = append(append(b, e.rawTime...), ' ')
	}
	b = append(b, e.content...)
	if e.full {
		b = append(b, '\n')
	}
	if lw.left >= 0 {
		if int64(len(b)) >= lw.left {
			_, _ = lw.w.Write(b[:lw.left])
			lw.left = 0
			return errLimit
		}
		lw.left -= int64(len(b))
	}
	_, err := lw.w.Write(b)
	return err
}

// lastLines returns the entries of the last n lines.
func lastLines(entries []logEntry, n int64) []logEntry {
	if n < 0 {
		return entries
	}
	i := len(entries)
	for lines := int64(0); i > 0; i-- {
		// entries[i-1] ends a line when full, or is the unfinished end.
		if entries[i-1].full || i == len(entries) {
			if lines == n {
				break
			}
			lines++
		}
	}
	return entries[i:]
}

// readEntries parses the complete lines of b and returns what is left.
func readEntries(b []byte) ([]logEntry, []byte) {
	var out []logEntry
	for {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		if !ok {
			return out, b
		}
		b = rest
		if e, err := parseLogEntry(line); err == nil {
			out = append(out, e)
		}
	}
}

// logSequence reads a container's log across its rotations: the rotated
// files oldest first, then the live file, which a follower keeps reading
// and leaves for the next file when the writer rotates it.
type logSequence struct {
	path string
	f    *os.File // the file being read
}

// openLogSequence opens the oldest file of the log at path; nil when the
// container has written nothing yet.
func openLogSequence(path string) (*logSequence, error) {
	f, err := openFirst(kruntime.LogFiles(path))
	if err != nil || f == nil {
		return nil, err
	}
	return &logSequence{path: path, f: f}, nil
}

// openFirst opens the first of files that still exists (nil if none).
func openFirst(files []string) (*os.File, error) {
	for _, name := range files {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue // rotated away meanwhile
		}
		return f, err
	}
	return nil, nil
}

// firstExisting returns the file info of the first of files that exists.
func firstExisting(files []string) os.FileInfo {
	for _, name := range files {
		if st, err := os.Stat(name); err == nil {
			return st
		}
	}
	return nil
}

// live tells whether the file being read is the log's live file (not
// rotated away).
func (s *logSequence) live() bool {
	cur, err1 := s.f.Stat()
	at, err2 := os.Stat(s.path)
	return err1 == nil && err2 == nil && os.SameFile(cur, at)
}

// filesAfter lists the files written after cur: those after it in a fresh
// listing, or, if it was removed (the oldest of too many), all left.
func (s *logSequence) filesAfter(cur os.FileInfo) []string {
	files := kruntime.LogFiles(s.path)
	for i, name := range files {
		if st, err := os.Stat(name); err == nil && os.SameFile(st, cur) {
			return files[i+1:]
		}
	}
	return files
}

// next moves to the file written after the one being read. It tells
// whether there was one to move to.
func (s *logSequence) next() (bool, error) {
	cur, err := s.f.Stat()
	if err != nil {
		return false, err
	}
	for {
		f, err := openFirst(s.filesAfter(cur))
		if err != nil || f == nil {
			return false, err
		}
		// The live file's name opens a newer file if the writer rotated
		// between the listing and the open: a fresh listing must agree,
		// or the file in between would be skipped.
		opened, err := f.Stat()
		if err != nil {
			_ = f.Close()
			return false, err
		}
		if want := firstExisting(s.filesAfter(cur)); want != nil && os.SameFile(want, opened) {
			_ = s.f.Close()
			s.f = f
			return true, nil
		}
		_ = f.Close()
	}
}

func (s *logSequence) Close() error { return s.f.Close() }

// readTo reads the file being read to its end, after pending (an
// unfinished line), and returns its complete entries and what is left.
func (s *logSequence) readTo(pending, buf []byte) ([]logEntry, []byte, error) {
	for {
		n, err := s.f.Read(buf)
		pending = append(pending, buf[:n]...)
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return nil, pending, err
		}
	}
	entries, rest := readEntries(pending)
	return entries, rest, nil
}

// streamLog writes the log at path, across its rotated files; with
// follow it goes on while running says the container runs (and after,
// until the log has no more).
func streamLog(ctx context.Context, w io.Writer, path string, o logOptions, poll time.Duration, running func() bool) error {
	seq, err := openLogSequence(path)
	if err != nil || seq == nil {
		return err // nil: nothing written yet
	}
	defer func() { _ = seq.Close() }()
	lw := &logWriter{w: w, o: o, left: o.limit}
	write := func(entries []logEntry) error {
		for _, e := range entries {
			if err := lw.write(e); err != nil {
				return err
			}
		}
		return nil
	}
	// With tailLines, the last lines are held until the live file's end.
	holding := o.tail >= 0
	var held []logEntry
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	var pending []byte
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		wasRunning := running()
		// Rotated before the read: the read gets all the writer put in it.
		rotated := !seq.live()
		entries, rest, err := seq.readTo(pending, buf)
		if err != nil {
			return err
		}
		pending = rest
		if holding {
			held = lastLines(append(held, entries...), o.tail)
		} else if err := write(entries); err != nil {
			return err
		}
		if rotated {
			moved, err := seq.next()
			if err != nil {
				return err
			}
			if moved {
				// Entries never span files: an unfinished end is dropped.
				pending = pending[:0]
				continue
			}
			// The writer has not started the next file yet.
		}
		if holding {
			holding = false
			if err := write(held); err != nil {
				return err
			}
			held = nil
		}
		if !o.follow || (!wasRunning && len(entries) == 0) {
			return nil
		}
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (s *Server) serveLogs(w http.ResponseWriter, r *http.Request) {
	ns, pod, name := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	o, err := parseLogOptions(r.URL.Query(), time.Now())
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	c, err := s.cfg.Host.Container(r.Context(), ns, pod, name, o.previous)
	if err != nil {
		containerError(w, err)
		return
	}
	if o.previous {
		o.follow = false
	}
	rt := s.cfg.Host.Runtime()
	running := func() bool {
		st, err := rt.ContainerStatus(r.Context(), c.ID)
		return err == nil && st.State == kruntime.ContainerRunning
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if err := streamLog(r.Context(), w, c.LogPath, o, s.cfg.LogPollInterval, running); err != nil && !errors.Is(err, errLimit) {
		// Headers are out: all that is left is to end the body early.
		_, _ = fmt.Fprintf(w, "\nerror reading the log: %v\n", err)
	}
}
