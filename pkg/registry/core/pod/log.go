package pod

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gorilla/websocket"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// LogREST serves pods/log: the log of one of the pod's containers,
// streamed from its node's kubelet (/containerLogs).
type LogREST struct {
	pods    rest.Getter
	kubelet KubeletConnectionGetter
}

var _ rest.Connecter = (*LogREST)(nil)

// New implements rest.Connecter: discovery shows pods/log as kind Pod.
func (r *LogREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy implements rest.Storage.
func (r *LogREST) Destroy() {}

// ConnectMethods implements rest.Connecter.
func (r *LogREST) ConnectMethods() []string { return []string{http.MethodGet} }

// logOptions are the query parameters of pods/log.
type logOptions struct {
	container                    string
	follow, previous, timestamps bool
	sinceSeconds, tailLines      *int64
	limitBytes                   *int64
	sinceTime                    *time.Time
	skipVerify                   bool
}

// parseLogOptions reads and validates the query as Kubernetes does its
// PodLogOptions: values that do not parse are a 400, values out of range
// a 422 naming the field.
func parseLogOptions(q url.Values) (*logOptions, error) {
	o := &logOptions{container: q.Get("container")}
	var err error
	for name, p := range map[string]*bool{"follow": &o.follow, "previous": &o.previous, "timestamps": &o.timestamps, "insecureSkipTLSVerifyBackend": &o.skipVerify} {
		if *p, err = boolParam(q, name); err != nil {
			return nil, err
		}
	}
	for name, p := range map[string]**int64{"sinceSeconds": &o.sinceSeconds, "tailLines": &o.tailLines, "limitBytes": &o.limitBytes} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid value %q for query parameter %s: must be an integer", v, name))
		}
		*p = &n
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid value %q for query parameter sinceTime: must be an RFC 3339 time", v))
		}
		o.sinceTime = &t
	}
	var errs field.ErrorList
	if o.tailLines != nil && *o.tailLines < 0 {
		errs = append(errs, field.Invalid(field.NewPath("tailLines"), *o.tailLines, "must be greater than or equal to 0"))
	}
	if o.limitBytes != nil && *o.limitBytes < 1 {
		errs = append(errs, field.Invalid(field.NewPath("limitBytes"), *o.limitBytes, "must be greater than 0"))
	}
	switch {
	case o.sinceSeconds != nil && o.sinceTime != nil:
		errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case o.sinceSeconds != nil && *o.sinceSeconds < 1:
		errs = append(errs, field.Invalid(field.NewPath("sinceSeconds"), *o.sinceSeconds, "must be greater than 0"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, "", errs)
	}
	return o, nil
}

// kubeletQuery is the kubelet's /containerLogs query for o.
func (o *logOptions) kubeletQuery() url.Values {
	q := url.Values{}
	for name, set := range map[string]bool{"follow": o.follow, "previous": o.previous, "timestamps": o.timestamps} {
		if set {
			q.Set(name, "true")
		}
	}
	for name, v := range map[string]*int64{"sinceSeconds": o.sinceSeconds, "tailLines": o.tailLines, "limitBytes": o.limitBytes} {
		if v != nil {
			q.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	if o.sinceTime != nil {
		q.Set("sinceTime", o.sinceTime.Format(time.RFC3339))
	}
	return q
}

// Connect implements rest.Connecter: it checks the options, the pod and
// the container, and returns the handler streaming the kubelet's log.
func (r *LogREST) Connect(ctx context.Context, name string, query url.Values, resp rest.Responder) (http.Handler, error) {
	opts, err := parseLogOptions(query)
	if err != nil {
		return nil, err
	}
	pod, err := getPod(ctx, r.pods, name)
	if err != nil {
		return nil, err
	}
	container, err := resolveContainer(pod, opts.container)
	if err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		// Not scheduled: no log yet. Kubernetes answers an empty one.
		return emptyLog{}, nil
	}
	info, err := r.kubelet.GetConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	loc, rt := kubeletLocation(info, "containerLogs", pod, container, opts.kubeletQuery(), opts.skipVerify)
	return &logStreamer{location: loc, transport: rt, pod: pod, container: container, previous: opts.previous, responder: resp}, nil
}

// emptyLog answers an empty log.
type emptyLog struct{}

func (emptyLog) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
}

// logStreamer copies the kubelet's log to the client, flushing every chunk
// as it arrives so that a followed log shows lines as they are written.
type logStreamer struct {
	location  *url.URL
	transport http.RoundTripper
	pod       *corev1.Pod
	container string
	previous  bool
	responder rest.Responder
}

func (s *logStreamer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	// Canceled also when a WebSocket client hangs up (its request's
	// context does not end with a hijacked connection).
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	kreq, err := http.NewRequestWithContext(ctx, http.MethodGet, s.location.String(), nil)
	if err != nil {
		s.responder.Error(apierrors.NewInternalError(err))
		return
	}
	resp, err := s.transport.RoundTrip(kreq)
	if err != nil {
		s.responder.Error(proxyError(&url.Error{Op: "Get", URL: s.location.String(), Err: err}))
		return
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		s.responder.Error(kubeletError(resp, s.pod, s.container, s.previous))
		return
	}
	if websocket.IsWebSocketUpgrade(req) {
		s.overWebSocket(w, req, resp.Body, cancel)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the client went away
			}
			if ferr := rc.Flush(); ferr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && ctx.Err() == nil {
				klog.FromContext(ctx).V(2).Info("Log stream from the kubelet ended early", "pod", klog.KObj(s.pod), "container", s.container, "err", err)
			}
			return
		}
	}
}

// The WebSocket subprotocols of a log, as Kubernetes serves a stream: each
// message is a chunk of the log, binary (binary.k8s.io, or no subprotocol)
// or as base64 text (base64.binary.k8s.io); the server closes the
// connection at the end of the log.
const (
	logProtocolBinary = "binary.k8s.io"
	logProtocolBase64 = "base64.binary.k8s.io"
)

// overWebSocket streams the log body over a WebSocket, one message per
// chunk read, until the log ends or the client goes away.
func (s *logStreamer) overWebSocket(w http.ResponseWriter, req *http.Request, body io.Reader, hangUp context.CancelFunc) {
	requested := websocket.Subprotocols(req)
	protocol, known := "", len(requested) == 0
	for _, p := range requested {
		if p == logProtocolBinary || p == logProtocolBase64 {
			protocol, known = p, true
			break
		}
	}
	if !known {
		s.responder.Error(apierrors.NewBadRequest(fmt.Sprintf("none of the WebSocket subprotocols %v is served; a log serves %s, %s", requested, logProtocolBinary, logProtocolBase64)))
		return
	}
	var header http.Header
	if protocol != "" {
		header = http.Header{"Sec-Websocket-Protocol": {protocol}}
	}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }, HandshakeTimeout: 30 * time.Second}
	conn, err := up.Upgrade(w, req, header)
	if err != nil {
		return // the upgrader answered
	}
	defer func() { _ = conn.Close() }()
	// Nothing is read from the client but its close.
	go func() {
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				hangUp()
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			kind, msg := websocket.BinaryMessage, buf[:n]
			if protocol == logProtocolBase64 {
				kind, msg = websocket.TextMessage, base64.StdEncoding.AppendEncode(nil, buf[:n])
			}
			_ = conn.SetWriteDeadline(time.Now().Add(time.Minute))
			if werr := conn.WriteMessage(kind, msg); werr != nil {
				return // the client went away
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && req.Context().Err() == nil {
				klog.FromContext(req.Context()).V(2).Info("Log stream from the kubelet ended early", "pod", klog.KObj(s.pod), "container", s.container, "err", err)
			}
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			return
		}
	}
}
