package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// The annotations of static and mirror pods, as Kubernetes names them.
const (
	annotationConfigSource = "kubernetes.io/config.source"
	annotationConfigHash   = "kubernetes.io/config.hash"
	annotationConfigMirror = "kubernetes.io/config.mirror"
	annotationConfigSeen   = "kubernetes.io/config.seen"
)

// isMirror says whether an API pod mirrors a static pod.
func isMirror(p *corev1.Pod) bool {
	_, ok := p.Annotations[annotationConfigMirror]
	return ok
}

// isStatic says whether a pod came from a file or URL, not the API.
func isStatic(p *corev1.Pod) bool {
	src := p.Annotations[annotationConfigSource]
	return src == "file" || src == "http"
}

// staticPods are the pods of the file and URL sources, by source and then
// by key (file path, or URL and index), and the mirror pods seen in the
// API by namespace/name.
type staticPods struct {
	mu      sync.Mutex
	pods    map[string]map[string]*corev1.Pod
	mirrors map[string]*corev1.Pod
	kick    chan struct{}
}

func newStaticPods() *staticPods {
	return &staticPods{pods: map[string]map[string]*corev1.Pod{}, mirrors: map[string]*corev1.Pod{}, kick: make(chan struct{}, 1)}
}

func (s *staticPods) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// all returns the static pods by namespace/name.
func (s *staticPods) all() map[string]*corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]*corev1.Pod{}
	for _, m := range s.pods {
		for _, p := range m {
			out[p.Namespace+"/"+p.Name] = p
		}
	}
	return out
}

func (s *staticPods) mirror(key string) *corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mirrors[key]
}

func (s *staticPods) setMirror(p *corev1.Pod, deleted bool) {
	s.mu.Lock()
	key := p.Namespace + "/" + p.Name
	if deleted {
		delete(s.mirrors, key)
	} else {
		s.mirrors[key] = p
	}
	s.mu.Unlock()
	s.wake()
}

// staticPod turns a manifest into the pod the kubelet runs: named
// <name>-<node>, bound to the node, its UID a hash of the manifest, the
// node and the source, so that a changed manifest is a new pod.
func staticPod(data []byte, source, key, nodeName string) (*corev1.Pod, error) {
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict(data, &pod); err != nil {
		return nil, err
	}
	if pod.Kind != "" && pod.Kind != "Pod" {
		return nil, fmt.Errorf("kind %q is not Pod", pod.Kind)
	}
	if pod.Name == "" {
		return nil, fmt.Errorf("metadata.name is required")
	}
	if len(pod.Spec.Containers) == 0 {
		return nil, fmt.Errorf("spec.containers is required")
	}
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	pod.Name += "-" + nodeName
	pod.Spec.NodeName = nodeName
	if pod.Spec.RestartPolicy == "" {
		pod.Spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	h := sha256.New()
	_, _ = fmt.Fprintf(h, "%s\x00%s\x00%s\x00", source, key, nodeName)
	_, _ = h.Write(data)
	hash := hex.EncodeToString(h.Sum(nil))[:32]
	pod.UID = types.UID(hash)
	pod.ResourceVersion = ""
	pod.Status = corev1.PodStatus{}
	pod.Annotations = maps.Clone(pod.Annotations)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[annotationConfigSource] = source
	pod.Annotations[annotationConfigHash] = hash
	return &pod, nil
}

// setStaticPods replaces the pods of a source and hands the changes to the
// pod workers.
func (kl *Kubelet) setStaticPods(ctx context.Context, source string, pods map[string]*corev1.Pod) {
	kl.static.mu.Lock()
	old := kl.static.pods[source]
	kl.static.pods[source] = pods
	kl.static.mu.Unlock()
	for key, p := range old {
		if n, ok := pods[key]; !ok || n.UID != p.UID {
			klog.FromContext(ctx).V(2).Info("Static pod removed", "pod", klog.KObj(p), "source", source, "key", key)
			kl.dispatch(ctx, p, true)
		}
	}
	for key, p := range pods {
		if o, ok := old[key]; !ok || o.UID != p.UID {
			klog.FromContext(ctx).V(2).Info("Static pod added", "pod", klog.KObj(p), "source", source, "key", key)
			kl.dispatch(ctx, p, false)
		}
	}
	kl.static.wake()
}

// readManifestDir reads every manifest of dir (files ending in .yaml,
// .yml or .json; hidden files are skipped); a file that does not parse is
// logged with its path and skipped.
func readManifestDir(ctx context.Context, dir, nodeName string, bad map[string]string) map[string]*corev1.Pod {
	logger := klog.FromContext(ctx)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !os.IsNotExist(err) {
			logger.Error(err, "Failed to read the static pod directory", "path", dir)
		}
		return map[string]*corev1.Pod{}
	}
	pods := map[string]*corev1.Pod{}
	names := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if ext := filepath.Ext(name); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err == nil {
			var p *corev1.Pod
			if p, err = staticPod(data, "file", path, nodeName); err == nil {
				if other, dup := names[p.Namespace+"/"+p.Name]; dup {
					err = fmt.Errorf("pod %s/%s is also defined in %s", p.Namespace, p.Name, other)
				} else {
					names[p.Namespace+"/"+p.Name] = path
					pods[path] = p
					delete(bad, path)
					continue
				}
			}
		}
		// Logged once per content, not at every poll.
		if msg := err.Error(); bad[path] != msg {
			bad[path] = msg
			logger.Error(err, "Skipping a static pod manifest that does not parse", "path", path)
		}
	}
	return pods
}

// runFileSource polls the manifest directory.
func (kl *Kubelet) runFileSource(ctx context.Context, synced *syncedFlag) {
	bad := map[string]string{}
	for {
		kl.setStaticPods(ctx, "file", readManifestDir(ctx, kl.cfg.StaticPodPath, kl.cfg.NodeName, bad))
		synced.set()
		if !sleep(ctx, kl.clock, kl.cfg.FileCheckFrequency) {
			return
		}
	}
}

// runURLSource polls the manifest URL: one pod, or a v1 PodList.
func (kl *Kubelet) runURLSource(ctx context.Context, synced *syncedFlag) {
	logger := klog.FromContext(ctx)
	client := &http.Client{Timeout: 10 * time.Second}
	lastErr := ""
	for {
		pods, err := fetchManifests(ctx, client, kl.cfg.StaticPodURL, kl.cfg.NodeName)
		if err != nil {
			if err.Error() != lastErr {
				logger.Error(err, "Failed to read static pods from the manifest URL; keeping the last ones", "url", kl.cfg.StaticPodURL)
			}
			lastErr = err.Error()
		} else {
			lastErr = ""
			kl.setStaticPods(ctx, "http", pods)
		}
		synced.set()
		if !sleep(ctx, kl.clock, kl.cfg.HTTPCheckFrequency) {
			return
		}
	}
}

func fetchManifests(ctx context.Context, client *http.Client, url, nodeName string) (map[string]*corev1.Pod, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("manifest at %s: %w", url, err)
	}
	pods := map[string]*corev1.Pod{}
	if meta.Kind == "PodList" {
		var list struct {
			Items []any `json:"items"`
		}
		if err := yaml.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("manifest at %s: %w", url, err)
		}
		for i, item := range list.Items {
			b, _ := yaml.Marshal(item)
			p, err := staticPod(b, "http", fmt.Sprintf("%s#%d", url, i), nodeName)
			if err != nil {
				return nil, fmt.Errorf("manifest at %s, item %d: %w", url, i, err)
			}
			pods[fmt.Sprintf("%s#%d", url, i)] = p
		}
		return pods, nil
	}
	p, err := staticPod(data, "http", url, nodeName)
	if err != nil {
		return nil, fmt.Errorf("manifest at %s: %w", url, err)
	}
	pods[url] = p
	return pods, nil
}

// mirrorLoop keeps one mirror pod in the API per static pod, annotated
// with the static pod's hash, and deletes mirror pods of no static pod.
func (kl *Kubelet) mirrorLoop(ctx context.Context) {
	t := kl.clock.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kl.static.kick:
		case <-t.C():
		}
		kl.syncMirrors(ctx)
		t.Reset(kl.cfg.SyncFrequency)
	}
}

func (kl *Kubelet) syncMirrors(ctx context.Context) {
	logger := klog.FromContext(ctx)
	statics := kl.static.all()
	kl.static.mu.Lock()
	mirrors := maps.Clone(kl.static.mirrors)
	kl.static.mu.Unlock()
	pods := kl.cfg.Client.CoreV1()
	for key, m := range mirrors {
		s, ok := statics[key]
		if ok && m.Annotations[annotationConfigMirror] == s.Annotations[annotationConfigHash] && m.DeletionTimestamp == nil {
			continue
		}
		uid := m.UID
		err := pods.Pods(m.Namespace).Delete(ctx, m.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			logger.Error(err, "Failed to delete a mirror pod", "pod", klog.KObj(m))
		}
		kl.static.setMirror(m, true)
	}
	keys := slices.Sorted(maps.Keys(statics))
	for _, key := range keys {
		if _, ok := mirrors[key]; ok && kl.static.mirror(key) != nil {
			continue
		}
		s := statics[key]
		m := s.DeepCopy()
		m.UID, m.ResourceVersion = "", ""
		m.Annotations[annotationConfigMirror] = s.Annotations[annotationConfigHash]
		if uid := kl.nodeUID(); uid != "" {
			m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: kl.cfg.NodeName, UID: uid, Controller: new(true)}}
		}
		created, err := pods.Pods(m.Namespace).Create(ctx, m, metav1.CreateOptions{})
		switch {
		case err == nil:
			logger.V(2).Info("Created mirror pod", "pod", klog.KObj(created))
			kl.static.setMirror(created, false)
			kl.workers.wake(string(s.UID))
		case apierrors.IsAlreadyExists(err):
			// The informer will tell what is there.
		default:
			logger.Error(err, "Failed to create a mirror pod", "pod", klog.KObj(m))
		}
	}
}

// syncedFlag is a source's "has delivered its pods".
type syncedFlag struct {
	mu sync.Mutex
	ok bool
}

func (f *syncedFlag) set() {
	f.mu.Lock()
	f.ok = true
	f.mu.Unlock()
}

func (f *syncedFlag) get() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ok
}
