package volumebinding

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// cluster is the claims and volumes the plugin sees.
type cluster struct {
	mu      sync.Mutex
	claims  map[string]*corev1.PersistentVolumeClaim
	volumes map[string]*corev1.PersistentVolume
	patches []string
	// onPatch simulates the provisioner.
	onPatch func(c *corev1.PersistentVolumeClaim)
}

func (c *cluster) args() Args {
	return Args{
		Claim: func(ns, name string) (*corev1.PersistentVolumeClaim, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if cl, ok := c.claims[ns+"/"+name]; ok {
				return cl.DeepCopy(), nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "persistentvolumeclaims"}, name)
		},
		Volume: func(name string) (*corev1.PersistentVolume, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if v, ok := c.volumes[name]; ok {
				return v, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "persistentvolumes"}, name)
		},
		PatchClaim: func(_ context.Context, ns, name string, patch []byte) error {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.patches = append(c.patches, ns+"/"+name+" "+string(patch))
			if c.onPatch != nil {
				c.onPatch(c.claims[ns+"/"+name])
			}
			return nil
		},
		BindTimeout: 300 * time.Millisecond,
	}
}

func claim(name, class, volume string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + "name"}}
	if class != "<nil>" {
		c.Spec.StorageClassName = &class
	}
	c.Spec.VolumeName = volume
	if volume != "" {
		c.Status.Phase = corev1.ClaimBound
	}
	return c
}

func volumeOn(name, node string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}}},
	}}
}

func podWithClaims(names ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	for _, n := range names {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: n, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: n}}})
	}
	return p
}

func nodeInfo(name string) *framework.NodeInfo {
	n := framework.NewNodeInfo()
	n.SetNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	return n
}

func TestPreFilterAndFilter(t *testing.T) {
	c := &cluster{
		claims: map[string]*corev1.PersistentVolumeClaim{
			"ns/bound-a":   claim("bound-a", "local-path", "pv-a"),
			"ns/delayed":   claim("delayed", "<nil>", ""),
			"ns/local":     claim("local", "local-path", ""),
			"ns/immediate": claim("immediate", "manual", ""),
			"ns/dangling":  claim("dangling", "local-path", "pv-gone"),
		},
		volumes: map[string]*corev1.PersistentVolume{"pv-a": volumeOn("pv-a", "a")},
	}
	for _, tc := range []struct {
		name       string
		pod        *corev1.Pod
		preFilter  framework.Code
		msg        string
		onA, onB   framework.Code
		delayedLen int
	}{
		{name: "no claims", pod: podWithClaims(), preFilter: framework.Skip},
		{name: "bound volume pins the node", pod: podWithClaims("bound-a"), onA: framework.Success, onB: framework.UnschedulableAndUnresolvable},
		{name: "delayed claims fit anywhere", pod: podWithClaims("delayed", "local"), onA: framework.Success, onB: framework.Success, delayedLen: 2},
		{name: "missing claim", pod: podWithClaims("nope"), preFilter: framework.UnschedulableAndUnresolvable, msg: `persistentvolumeclaim "nope" not found`},
		{name: "unbound claim of another class", pod: podWithClaims("immediate"), preFilter: framework.UnschedulableAndUnresolvable, msg: ErrReasonUnboundClaims},
		{name: "claim bound to a missing volume", pod: podWithClaims("dangling"), preFilter: framework.UnschedulableAndUnresolvable, msg: "pvc(s) bound to non-existent pv(s): pv-gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(c.args())(nil)
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*VolumeBinding)
			cs := framework.NewCycleState()
			_, st := pl.PreFilter(context.Background(), cs, tc.pod)
			if st.Code() != tc.preFilter {
				t.Fatalf("PreFilter = %v, want %v", st, tc.preFilter)
			}
			if tc.msg != "" && st.Message() != tc.msg {
				t.Errorf("PreFilter message %q, want %q", st.Message(), tc.msg)
			}
			if !st.IsSuccess() {
				return
			}
			if got := pl.Filter(context.Background(), cs, tc.pod, nodeInfo("a")).Code(); got != tc.onA {
				t.Errorf("Filter(a) = %v, want %v", got, tc.onA)
			}
			st = pl.Filter(context.Background(), cs, tc.pod, nodeInfo("b"))
			if st.Code() != tc.onB {
				t.Errorf("Filter(b) = %v, want %v", st.Code(), tc.onB)
			}
			if st.Code() == framework.UnschedulableAndUnresolvable && st.Message() != ErrReasonNodeConflict {
				t.Errorf("Filter(b) message %q", st.Message())
			}
			s, _ := framework.ReadState[*state](cs, stateKey)
			if len(s.delayed) != tc.delayedLen {
				t.Errorf("%d delayed claims, want %d", len(s.delayed), tc.delayedLen)
			}
		})
	}
}

func TestPreBind(t *testing.T) {
	for _, tc := range []struct {
		name      string
		provision bool
		wantErr   bool
	}{
		{name: "the provisioner binds the claim", provision: true},
		{name: "nobody binds the claim: time out", provision: false, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cluster{claims: map[string]*corev1.PersistentVolumeClaim{"ns/delayed": claim("delayed", "<nil>", "")}}
			if tc.provision {
				c.onPatch = func(cl *corev1.PersistentVolumeClaim) {
					go func() {
						time.Sleep(50 * time.Millisecond)
						c.mu.Lock()
						defer c.mu.Unlock()
						cl.Spec.VolumeName, cl.Status.Phase = "pv-1", corev1.ClaimBound
					}()
				}
			}
			p, _ := New(c.args())(nil)
			pl := p.(*VolumeBinding)
			cs := framework.NewCycleState()
			pod := podWithClaims("delayed")
			if _, st := pl.PreFilter(context.Background(), cs, pod); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := pl.PreBind(context.Background(), cs, pod, "node-1")
			if st.IsSuccess() == tc.wantErr {
				t.Fatalf("PreBind = %v, want error %v", st, tc.wantErr)
			}
			if len(c.patches) != 1 || c.patches[0] != `ns/delayed {"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"node-1"}}}` {
				t.Errorf("patches = %q", c.patches)
			}
		})
	}
}
