package apiserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"k8s.io/klog/v2"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
)

// AuditEvent is an audit.k8s.io/v1 Event at the Metadata level: who did
// what to which object and the answer, without request or response bodies.
type AuditEvent struct {
	Kind                     string               `json:"kind"`
	APIVersion               string               `json:"apiVersion"`
	Level                    string               `json:"level"`
	AuditID                  string               `json:"auditID"`
	Stage                    string               `json:"stage"`
	RequestURI               string               `json:"requestURI"`
	Verb                     string               `json:"verb"`
	User                     AuditUser            `json:"user"`
	ImpersonatedUser         *AuditUser           `json:"impersonatedUser,omitempty"`
	SourceIPs                []string             `json:"sourceIPs,omitempty"`
	UserAgent                string               `json:"userAgent,omitempty"`
	ObjectRef                *AuditObjectRef      `json:"objectRef,omitempty"`
	ResponseStatus           *AuditResponseStatus `json:"responseStatus,omitempty"`
	RequestReceivedTimestamp metav1.MicroTime     `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime     `json:"stageTimestamp"`
	// Annotations are what the request's handling added
	// (apirequest.AddAuditAnnotation), such as admission webhooks'.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// AuditUser is an authentication.k8s.io/v1 UserInfo.
type AuditUser struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// AuditObjectRef names the object of a resource request.
type AuditObjectRef struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// AuditResponseStatus is the meta/v1 Status of the response, reduced to
// its code at the Metadata level.
type AuditResponseStatus struct {
	Metadata struct{} `json:"metadata"`
	Code     int      `json:"code"`
}

// Stages of a request an event is written at: long-running requests
// (watches, exec, logs) get one when the response starts and one when it
// ends, others only the second.
const (
	AuditStageResponseStarted  = "ResponseStarted"
	AuditStageResponseComplete = "ResponseComplete"
)

// headerAuditID carries the audit ID in both directions: a client may
// choose it, and every response names it.
const headerAuditID = "Audit-Id"

// maxAuditIDLength bounds an audit ID a client chooses; a longer one is
// replaced.
const maxAuditIDLength = 128

// AuditSink receives the audit events of requests. Process is called on
// the request's goroutine and must not block.
type AuditSink interface {
	Process(ev *AuditEvent)
}

// withAudit names every request with an audit ID (the client's Audit-Id,
// or a new UUID), returns it in the Audit-Id header and, with an audit
// sink, records the request. It runs outside authentication, so that
// refused credentials are recorded too, and reads the user from the slot
// the logging filter leaves for authentication.
func (s *Server) withAudit(h http.Handler) http.Handler {
	sink := s.cfg.Audit
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(headerAuditID)
		if id == "" || len(id) > maxAuditIDLength {
			id = uuid.NewString()
		}
		w.Header().Set(headerAuditID, id)
		if sink == nil {
			h.ServeHTTP(w, r)
			return
		}
		a := &auditRequest{sink: sink, r: r, id: id, received: time.Now()}
		aw := &auditWriter{ResponseWriter: w, req: a}
		info, _ := apirequest.RequestInfoFrom(r.Context())
		aw.longRunning = isLongRunning(info)
		defer func() {
			p := recover()
			code := aw.code
			if p != nil {
				code = http.StatusInternalServerError
			}
			a.emit(AuditStageResponseComplete, code)
			if p != nil {
				panic(p)
			}
		}()
		h.ServeHTTP(aw, r.WithContext(apirequest.WithAuditAnnotator(r.Context(), a.annotate)))
	})
}

// auditRequest is what the events of one request are made from.
type auditRequest struct {
	sink     AuditSink
	r        *http.Request
	id       string
	received time.Time

	mu          sync.Mutex
	annotations map[string]string
}

// annotate adds an annotation to the request's later events; the first
// value of a key stays.
func (a *auditRequest) annotate(key, value string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.annotations[key]; ok {
		return
	}
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[key] = value
}

// emit hands the sink an event of stage with the response code so far
// (0: nothing written, which net/http answers with 200).
func (a *auditRequest) emit(stage string, code int) {
	if code == 0 {
		code = http.StatusOK
	}
	ev := &AuditEvent{
		Kind:                     "Event",
		APIVersion:               "audit.k8s.io/v1",
		Level:                    "Metadata",
		AuditID:                  a.id,
		Stage:                    stage,
		RequestURI:               a.r.URL.RequestURI(),
		Verb:                     strings.ToLower(a.r.Method),
		SourceIPs:                sourceIPs(a.r),
		UserAgent:                a.r.UserAgent(),
		ResponseStatus:           &AuditResponseStatus{Code: code},
		RequestReceivedTimestamp: metav1.NewMicroTime(a.received),
		StageTimestamp:           metav1.NowMicro(),
	}
	a.mu.Lock()
	if len(a.annotations) > 0 {
		ev.Annotations = maps.Clone(a.annotations)
	}
	a.mu.Unlock()
	if info, ok := apirequest.RequestInfoFrom(a.r.Context()); ok {
		ev.Verb = info.Verb
		if info.IsResourceRequest {
			ev.ObjectRef = &AuditObjectRef{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
				APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource}
		}
	}
	if slot, ok := a.r.Context().Value(requestUserKey{}).(*requestUser); ok {
		ev.User = auditUser(slot.user)
		if slot.impersonated != nil {
			u := auditUser(slot.impersonated)
			ev.ImpersonatedUser = &u
		}
	}
	a.sink.Process(ev)
}

func auditUser(u *apirequest.UserInfo) AuditUser {
	if u == nil {
		return AuditUser{}
	}
	return AuditUser{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// sourceIPs are the addresses X-Forwarded-For and X-Real-Ip name, then
// the peer's, each once.
func sourceIPs(r *http.Request) []string {
	var ips []string
	add := func(s string) {
		if ip := net.ParseIP(strings.TrimSpace(s)); ip != nil && !slices.Contains(ips, ip.String()) {
			ips = append(ips, ip.String())
		}
	}
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for part := range strings.SplitSeq(v, ",") {
			add(part)
		}
	}
	add(r.Header.Get("X-Real-Ip"))
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		add(host)
	}
	return ips
}

// auditWriter remembers the response code and, for a long-running
// request, writes the ResponseStarted event when the response starts: at
// its header, first write, or when the connection is taken over.
type auditWriter struct {
	http.ResponseWriter
	req         *auditRequest
	longRunning bool
	code        int
}

func (a *auditWriter) started(code int) {
	if a.code != 0 {
		return
	}
	a.code = code
	if a.longRunning {
		a.req.emit(AuditStageResponseStarted, code)
	}
}

func (a *auditWriter) WriteHeader(code int) {
	a.started(code)
	a.ResponseWriter.WriteHeader(code)
}

func (a *auditWriter) Write(b []byte) (int, error) {
	a.started(http.StatusOK)
	return a.ResponseWriter.Write(b)
}

// Hijack hands over the connection of an upgraded request (exec over
// WebSocket), which answers 101 Switching Protocols itself.
func (a *auditWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(a.ResponseWriter).Hijack()
	if err == nil {
		a.started(http.StatusSwitchingProtocols)
	}
	return conn, rw, err
}

func (a *auditWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// AuditLogOptions say where an AuditLog writes.
type AuditLogOptions struct {
	// Path is the file events are appended to; "-" is standard output.
	Path string
	// MaxSizeMiB rotates the file before it grows past this many MiB; 0
	// never rotates it.
	MaxSizeMiB int
	// MaxBackups is how many rotated files are kept, the newest; 0 keeps
	// them all.
	MaxBackups int
}

// auditBufferSize is how many events wait for the writer before new ones
// are dropped (Kubernetes' default audit buffer holds as many).
const auditBufferSize = 10000

// AuditLog writes audit events as JSON lines, one event a line, from a
// goroutine of its own: a request only queues its event, so a slow disk
// never holds up requests. When the queue is full, events are dropped and
// counted in the server log. Close writes what is queued and closes the
// file.
type AuditLog struct {
	events  chan *AuditEvent
	dropped atomic.Int64
	done    chan struct{}

	mu     sync.RWMutex // guards closed against Process sending on a closed channel
	closed bool

	// Owned by the writer goroutine.
	out      *auditFile
	maxBytes int64
	backups  int
	err      error
}

var _ AuditSink = (*AuditLog)(nil)

// NewAuditLog opens (or creates) the log and starts its writer.
func NewAuditLog(o AuditLogOptions) (*AuditLog, error) {
	if o.Path == "" {
		return nil, errors.New("audit log path is empty")
	}
	if o.MaxSizeMiB < 0 || o.MaxBackups < 0 {
		return nil, fmt.Errorf("audit log: negative size %d or backups %d", o.MaxSizeMiB, o.MaxBackups)
	}
	out, err := openAuditFile(o.Path)
	if err != nil {
		return nil, err
	}
	return newAuditLog(out, int64(o.MaxSizeMiB)<<20, o.MaxBackups), nil
}

func newAuditLog(out *auditFile, maxBytes int64, backups int) *AuditLog {
	l := &AuditLog{
		events:   make(chan *AuditEvent, auditBufferSize),
		done:     make(chan struct{}),
		out:      out,
		maxBytes: maxBytes,
		backups:  backups,
	}
	go l.run()
	return l
}

// Process implements AuditSink: it queues ev, or drops it when the queue
// is full or the log closed.
func (l *AuditLog) Process(ev *AuditEvent) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		l.dropped.Add(1)
		return
	}
	select {
	case l.events <- ev:
	default:
		l.dropped.Add(1)
	}
}

// Dropped is how many events were not written for want of room.
func (l *AuditLog) Dropped() int64 { return l.dropped.Load() }

// Close writes the queued events, flushes and closes the file, and
// returns the first error writing met. Later calls do nothing.
func (l *AuditLog) Close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.events)
	}
	l.mu.Unlock()
	<-l.done
	return l.err
}

// run writes events until the queue closes, flushing whenever it is
// empty.
func (l *AuditLog) run() {
	defer close(l.done)
	bw := bufio.NewWriterSize(l.out, 64<<10)
	var reported int64
	// fail records a write error, losing what was buffered: the first is
	// logged and returned by Close. The buffer is reset, as bufio refuses
	// every write after an error, so that writing resumes if the disk
	// recovers.
	fail := func(err error) {
		if l.err == nil {
			klog.ErrorS(err, "Cannot write the audit log; events are lost", "path", l.out.path)
			l.err = err
		}
		bw.Reset(l.out)
	}
	flush := func() {
		if err := bw.Flush(); err != nil {
			fail(err)
		}
		if n := l.dropped.Load(); n > reported {
			klog.ErrorS(nil, "Audit events were dropped: the audit log does not keep up", "dropped", n-reported, "path", l.out.path)
			reported = n
		}
	}
	for ev := range l.events {
		line, err := json.Marshal(ev)
		if err != nil {
			klog.ErrorS(err, "Cannot encode an audit event", "auditID", ev.AuditID)
			continue
		}
		line = append(line, '\n')
		if pending := l.out.size + int64(bw.Buffered()); l.maxBytes > 0 && pending > 0 && pending+int64(len(line)) > l.maxBytes {
			flush()
			if err := l.out.rotate(time.Now(), l.backups); err != nil {
				fail(err)
			}
			bw.Reset(l.out)
		}
		if _, err := bw.Write(line); err != nil {
			fail(err)
		}
		if len(l.events) == 0 {
			flush()
		}
	}
	flush()
	if err := l.out.close(); err != nil && l.err == nil {
		l.err = err
	}
}

// auditFile is the file an AuditLog appends to, or standard output.
type auditFile struct {
	path string
	w    io.Writer
	f    *os.File // nil for standard output
	// size is what the file held when opened plus what was written since.
	size int64
}

func openAuditFile(path string) (*auditFile, error) {
	if path == "-" {
		return &auditFile{path: path, w: os.Stdout}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &auditFile{path: path, w: f, f: f, size: st.Size()}, nil
}

func (a *auditFile) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
	a.size += int64(n)
	return n, err
}

// backupLayout dates a rotated file to the millisecond, in a form that
// sorts by time and is valid in file names everywhere.
const backupLayout = "2006-01-02T15-04-05.000"

// rotate renames the file to NAME-TIME.EXT beside it, opens a new one,
// and removes the oldest rotated files beyond backups (0 keeps all).
// Standard output is never rotated.
func (a *auditFile) rotate(now time.Time, backups int) error {
	if a.f == nil {
		return nil
	}
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	ext := filepath.Ext(a.path)
	base := strings.TrimSuffix(a.path, ext)
	backup := base + "-" + now.UTC().Format(backupLayout) + ext
	// Two rotations within a millisecond: date the second one later.
	for _, err := os.Lstat(backup); err == nil; _, err = os.Lstat(backup) {
		now = now.Add(time.Millisecond)
		backup = base + "-" + now.UTC().Format(backupLayout) + ext
	}
	if err := os.Rename(a.path, backup); err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	f, err := os.OpenFile(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	a.w, a.f, a.size = f, f, 0
	if backups == 0 {
		return nil
	}
	old, err := a.backups()
	if err != nil {
		return err
	}
	for _, p := range old[:max(0, len(old)-backups)] {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("remove old audit log: %w", err)
		}
	}
	return nil
}

// backups lists the rotated files of the log, oldest first.
func (a *auditFile) backups() ([]string, error) {
	ext := filepath.Ext(a.path)
	base := strings.TrimSuffix(a.path, ext)
	matches, err := filepath.Glob(globEscape(base) + "-????-??-??T??-??-??.???" + globEscape(ext))
	if err != nil {
		return nil, fmt.Errorf("list old audit logs: %w", err)
	}
	slices.Sort(matches)
	return matches, nil
}

// globEscape quotes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (a *auditFile) close() error {
	if a.f == nil {
		return nil
	}
	return a.f.Close()
}
