package kubelet

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	authenticationv1 "kubecore.io/api/authentication/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

// podAPI is the part of the API a kubelet writes to while it starts pods:
// pods/status (JSON merge patches applied to the stored pod) and
// serviceaccounts/token. It counts the requests of each.
type podAPI struct {
	t  *testing.T
	mu sync.Mutex
	// pods by namespace/name, as JSON.
	pods          map[string][]byte
	rv            int
	statusPatches []string
	tokenRequests int
}

func newPodAPI(t *testing.T) (*podAPI, *typed.Clientset) {
	a := &podAPI{t: t, pods: map[string][]byte{}}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	cs, err := typed.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return a, cs
}

func (a *podAPI) put(pod *corev1.Pod) {
	b, err := json.Marshal(pod)
	if err != nil {
		a.t.Fatal(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pods[pod.Namespace+"/"+pod.Name] = b
}

// get returns the stored pod, as a watch would deliver it.
func (a *podAPI) get(namespace, name string) *corev1.Pod {
	a.mu.Lock()
	defer a.mu.Unlock()
	pod := &corev1.Pod{}
	if err := json.Unmarshal(a.pods[namespace+"/"+name], pod); err != nil {
		a.t.Fatal(err)
	}
	return pod
}

func (a *podAPI) counts() (statusPatches, tokenRequests int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.statusPatches), a.tokenRequests
}

func (a *podAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	// api v1 namespaces NS RESOURCE NAME SUBRESOURCE
	if len(parts) != 7 || parts[0] != "api" || parts[2] != "namespaces" {
		http.Error(w, "not served", http.StatusNotFound)
		return
	}
	ns, resource, name, sub := parts[3], parts[4], parts[5], parts[6]
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case r.Method == http.MethodPatch && resource == "pods" && sub == "status":
		cur, ok := a.pods[ns+"/"+name]
		if !ok {
			http.Error(w, "no such pod", http.StatusNotFound)
			return
		}
		patched, err := jsonpatch.MergePatch(cur, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		pod := &corev1.Pod{}
		if err := json.Unmarshal(patched, pod); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.rv++
		pod.ResourceVersion = strconv.Itoa(a.rv)
		out, _ := json.Marshal(pod)
		a.pods[ns+"/"+name] = out
		a.statusPatches = append(a.statusPatches, string(body))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	case r.Method == http.MethodPost && resource == "serviceaccounts" && sub == "token":
		tr := &authenticationv1.TokenRequest{}
		if err := json.Unmarshal(body, tr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.tokenRequests++
		tr.Status = authenticationv1.TokenRequestStatus{Token: "token-" + strconv.Itoa(a.tokenRequests),
			ExpirationTimestamp: metav1.NewTime(time.Now().Add(time.Hour))}
		out, _ := json.Marshal(tr)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(out)
	default:
		http.Error(w, "not served", http.StatusNotFound)
	}
}

// benchPod is a pod as a Deployment's ReplicaSet makes it and the service
// account admission completes it, bound to node n by the scheduler.
func benchPod(name string) *corev1.Pod {
	expiry := int64(3607)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec: corev1.PodSpec{
			NodeName: "n", ServiceAccountName: "default", RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "pause", Image: "pause", Command: []string{"/pause"},
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}}}},
			Volumes: []corev1.Volume{{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiry}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
						Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
						FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
				}}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second))}}},
	}
}

func newAPIKubelet(t *testing.T, clock *fakeClock) (*Kubelet, *podAPI) {
	t.Helper()
	api, cs := newPodAPI(t)
	kl, err := New(Config{
		NodeName: "n", Client: cs, Runtime: fake.New("10.0.0.7", clock), Clock: clock, RootDir: t.TempDir(), NodeIP: "10.0.0.7",
		Machine: &MachineInfo{}, DisableEvents: true, Recorder: &eventLog{},
	})
	if err != nil {
		t.Fatal(err)
	}
	kl.objects = objects{configMaps: map[string]*corev1.ConfigMap{"kube-root-ca.crt": {
		ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "ns"}, Data: map[string]string{"ca.crt": "CA"}}}}
	return kl, api
}

// TestPodStartWritesStatusOnce: a pod that starts at once is reported by
// one status write carrying what users and controllers wait for (Running,
// Ready, podIP, startTime); the syncs that follow write nothing, also
// those that see the pod as it was before that write (a relist or resync
// wakes the pod before the watch delivers the write) seconds later, whose
// conditions would otherwise get new transition times. Its token is
// requested once.
func TestPodStartWritesStatusOnce(t *testing.T) {
	clock := newFakeClock()
	kl, api := newAPIKubelet(t, clock)
	ctx := t.Context()
	pod := benchPod("web-1")
	api.put(pod)
	st := newPodState()
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	got := api.get("ns", "web-1")
	if got.Status.Phase != corev1.PodRunning || got.Status.PodIP != "10.0.0.7" || got.Status.StartTime == nil {
		t.Fatalf("status after the first sync: %+v", got.Status)
	}
	if c := findCondition(got.Status.Conditions, corev1.PodReady); c == nil || c.Status != corev1.ConditionTrue {
		t.Fatalf("Ready condition after the first sync: %+v", c)
	}
	// Syncs before the watch delivers the write (the relist that saw the
	// container start, a resync): the pod as it was bound, seconds later.
	// Then the pod as the watch delivers it after the write.
	for _, p := range []*corev1.Pod{pod, pod, api.get("ns", "web-1"), pod} {
		clock.Step(1500 * time.Millisecond)
		if _, _, err := kl.syncPod(ctx, st, p, false); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := api.counts(); n != 1 {
		t.Fatalf("%d status writes, want 1:\n%s", n, strings.Join(api.statusPatches, "\n"))
	}
	ready := findCondition(api.get("ns", "web-1").Status.Conditions, corev1.PodReady)
	if want := got.Status.StartTime.Time; !ready.LastTransitionTime.Time.Equal(want) {
		t.Errorf("Ready since %v, want %v (its first write)", ready.LastTransitionTime, want)
	}

	// A change is still written, even when the sync sees a stale pod.
	id := strings.TrimPrefix(got.Status.ContainerStatuses[0].ContainerID, "fake://")
	if err := kl.runtime.StopContainer(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	clock.Step(time.Second)
	if _, _, err := kl.syncPod(ctx, st, pod, false); err != nil {
		t.Fatal(err)
	}
	if n, _ := api.counts(); n != 2 {
		t.Fatalf("%d status writes after the container stopped, want 2", n)
	}
	if _, n := api.counts(); n != 1 {
		t.Errorf("%d TokenRequests for the pod's projected token, want 1 (kept until due for renewal)", n)
	}
	if cs := api.get("ns", "web-1").Status.ContainerStatuses[0]; cs.RestartCount != 1 || cs.LastTerminationState.Terminated == nil {
		t.Errorf("container status after it stopped and restarted: %+v", cs)
	}
}
