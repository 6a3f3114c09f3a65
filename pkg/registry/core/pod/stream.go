package pod

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// StreamREST serves a pods subresource whose connection the pod's
// kubelet streams: exec and portforward. It proxies the request, and the
// connection it upgrades to (WebSocket or SPDY/3.1, which kubectl POSTs
// when it does not use WebSockets), to the kubelet; the subprotocol is
// negotiated between the client and the kubelet: the apiserver passes the
// headers both ways unchanged.
type StreamREST struct {
	pods    rest.Getter
	kubelet KubeletConnectionGetter
	// admission sees each connection as a CONNECT of the subresource,
	// after the pod (and container) are known.
	admission rest.Admission
	stream    streamKind
}

// streamKind is what differs between the streamed subresources.
type streamKind struct {
	subresource string // "exec"
	kind        string // "PodExecOptions", as discovery shows it
	kubeletPath string // "exec"
	// request checks the client's query and returns the container the
	// kubelet path names ("" for none) and the kubelet's query.
	request func(pod *corev1.Pod, query url.Values) (container string, kq url.Values, err error)
	// options is the object admission sees for the checked request
	// (a PodExecOptions for an exec).
	options func(container string, kq url.Values) runtime.Object
}

// NewExecREST serves pods/exec: a command in a container, through the
// kubelet's /exec.
func NewExecREST(pods rest.Getter, kubelets KubeletConnectionGetter, admission rest.Admission) *StreamREST {
	return &StreamREST{pods: pods, kubelet: kubelets, admission: admission, stream: streamKind{
		subresource: "exec", kind: "PodExecOptions", kubeletPath: "exec", request: execRequest,
		options: func(container string, kq url.Values) runtime.Object {
			return &corev1.PodExecOptions{
				Stdin: kq.Has("stdin"), Stdout: kq.Has("stdout"), Stderr: kq.Has("stderr"), TTY: kq.Has("tty"),
				Container: container, Command: kq["command"],
			}
		},
	}}
}

// execRequest reads the PodExecOptions of a query.
func execRequest(pod *corev1.Pod, query url.Values) (string, url.Values, error) {
	kq := url.Values{}
	for _, p := range []string{"stdin", "stdout", "stderr", "tty"} {
		v, err := boolParam(query, p)
		if err != nil {
			return "", nil, err
		}
		if v {
			kq.Set(p, "true")
		}
	}
	kq["command"] = query["command"]
	container, err := resolveContainer(pod, query.Get("container"))
	return container, kq, err
}

var (
	_ rest.CreateOnGetConnecter = (*StreamREST)(nil)
	_ rest.KindProvider         = (*StreamREST)(nil)
)

// New implements rest.Connecter.
func (r *StreamREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy implements rest.Storage.
func (r *StreamREST) Destroy() {}

// GroupVersionKind implements rest.KindProvider: discovery shows
// pods/exec as kind PodExecOptions.
func (r *StreamREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind(r.stream.kind)
}

// ConnectMethods implements rest.Connecter: GET for WebSocket clients,
// POST for SPDY ones.
func (r *StreamREST) ConnectMethods() []string { return []string{http.MethodGet, http.MethodPost} }

// AuthorizeGetAsCreate implements rest.CreateOnGetConnecter: running a
// command or forwarding a port needs create on the subresource however
// the client connects.
func (r *StreamREST) AuthorizeGetAsCreate() bool { return true }

// Connect implements rest.Connecter: it checks the pod (and container)
// and returns a proxy to the kubelet.
func (r *StreamREST) Connect(ctx context.Context, name string, query url.Values, resp rest.Responder) (http.Handler, error) {
	skipVerify, err := boolParam(query, "insecureSkipTLSVerifyBackend")
	if err != nil {
		return nil, err
	}
	pod, err := getPod(ctx, r.pods, name)
	if err != nil {
		return nil, err
	}
	container, kq, err := r.stream.request(pod, query)
	if err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	// As in Kubernetes, admission sees the connection as a CONNECT whose
	// object is the request's options (kind v1 PodExecOptions for an
	// exec) and which has no old object.
	opts := r.stream.options(container, kq)
	opts.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(r.stream.kind))
	attrs := rest.NewAttributes(ctx, rest.OperationConnect, corev1.Resource("pods"), r.stream.subresource, schema.GroupKind{Kind: r.stream.kind}, name, opts, nil, false, nil)
	attrs.Kind.Version = corev1.SchemeGroupVersion.Version
	if err := rest.Admit(ctx, r.admission, attrs); err != nil {
		return nil, err
	}
	if err := rest.Validate(ctx, r.admission, attrs); err != nil {
		return nil, err
	}
	info, err := r.kubelet.GetConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	loc, rt := kubeletLocation(info, r.stream.kubeletPath, pod, container, kq, skipVerify)
	return newKubeletProxy(loc, rt, pod, container, resp), nil
}

// newKubeletProxy forwards a request, and the connection it upgrades to,
// to loc. The caller's credentials stay here: the kubelet knows the
// apiserver by its client certificate. A kubelet's refusal is answered as
// a Status.
func newKubeletProxy(loc *url.URL, rt http.RoundTripper, pod *corev1.Pod, container string, resp rest.Responder) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = &url.URL{Scheme: loc.Scheme, Host: loc.Host, Path: loc.Path, RawQuery: loc.RawQuery}
			pr.Out.Host = loc.Host
			for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
				pr.Out.Header.Del(h)
			}
		},
		Transport:     rt,
		FlushInterval: -1,
		ErrorLog:      klog.NewStandardLogger("INFO"),
		ModifyResponse: func(r *http.Response) error {
			if r.StatusCode == http.StatusSwitchingProtocols || (r.StatusCode >= 200 && r.StatusCode <= 299) {
				return nil
			}
			defer func() { _ = r.Body.Close() }()
			return &kubeletRefusal{err: kubeletError(r, pod, container, false)}
		},
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			var refused *kubeletRefusal
			if errors.As(err, &refused) {
				resp.Error(refused.err)
				return
			}
			if req.Context().Err() != nil {
				return // the client went away
			}
			resp.Error(proxyError(&url.Error{Op: req.Method, URL: loc.String(), Err: err}))
		},
	}
}

// kubeletRefusal carries the Status of a kubelet's error answer from
// ModifyResponse to ErrorHandler.
type kubeletRefusal struct{ err error }

func (k *kubeletRefusal) Error() string { return k.err.Error() }

// NewAttachREST serves pods/attach: the standard streams of a container's
// own process, through the kubelet's /attach.
func NewAttachREST(pods rest.Getter, kubelets KubeletConnectionGetter, admission rest.Admission) *StreamREST {
	return &StreamREST{pods: pods, kubelet: kubelets, admission: admission, stream: streamKind{
		subresource: "attach", kind: "PodAttachOptions", kubeletPath: "attach", request: attachRequest,
		options: func(container string, kq url.Values) runtime.Object {
			return &corev1.PodAttachOptions{
				Stdin: kq.Has("stdin"), Stdout: kq.Has("stdout"), Stderr: kq.Has("stderr"), TTY: kq.Has("tty"),
				Container: container,
			}
		},
	}}
}

// attachRequest reads the PodAttachOptions of a query: an exec's without
// a command.
func attachRequest(pod *corev1.Pod, query url.Values) (string, url.Values, error) {
	q := maps.Clone(query)
	delete(q, "command")
	return execRequest(pod, q)
}
