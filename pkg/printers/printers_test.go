package printers

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/storage"
)

// now is the fixed instant of every test; ago gives times before it.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

func meta(name string, age time.Duration) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: ago(age), ResourceVersion: "7", UID: types.UID("uid-" + name)}
}

func ptr[T any](v T) *T { return &v }

func convert(t *testing.T, gr schema.GroupResource, obj runtime.Object, opts *metav1.TableOptions) *metav1.Table {
	t.Helper()
	c := NewTableConvertor(gr, func() time.Time { return now })
	if c == nil {
		t.Fatalf("no printer for %v", gr)
	}
	table, err := c.ConvertToTable(context.Background(), obj, opts)
	if err != nil {
		t.Fatalf("ConvertToTable(%v): %v", gr, err)
	}
	return table
}

func runningPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: meta("web-1", 10*time.Minute),
		Spec: corev1.PodSpec{
			NodeName:   "node-a",
			Containers: []corev1.Container{{Name: "app", Image: "nginx"}, {Name: "log", Image: "busybox"}},
		},
		Status: corev1.PodStatus{
			Phase:  corev1.PodRunning,
			PodIPs: []corev1.PodIP{{IP: "10.0.0.5"}},
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue},
			},
			ContainerStatuses: []corev1.ContainerStatus{
				{Name: "app", Ready: true, RestartCount: 2, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: ago(5 * time.Minute)}}},
				{Name: "log", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
			},
		},
	}
}

// TestResources checks, per resource, the cells kubectl shows for a typical
// object (the expected rows are Kubernetes' output for the same object).
func TestResources(t *testing.T) {
	core := func(r string) schema.GroupResource { return schema.GroupResource{Resource: r} }
	apps := func(r string) schema.GroupResource { return schema.GroupResource{Group: "apps", Resource: r} }
	rwo := corev1.PersistentVolumeFilesystem
	tests := []struct {
		name string
		gr   schema.GroupResource
		obj  runtime.Object
		// header is the column names, "|" before the wide ones.
		header string
		want   []any
	}{{
		name:   "pod",
		gr:     core("pods"),
		obj:    runningPod(),
		header: "Name Ready Status Restarts Age | IP Node Nominated-Node Readiness-Gates",
		want:   []any{"web-1", "2/2", "Running", "2 (5m ago)", "10m", "10.0.0.5", "node-a", "<none>", "<none>"},
	}, {
		name: "node",
		gr:   core("nodes"),
		obj: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "node-a", CreationTimestamp: ago(50 * time.Hour), Labels: map[string]string{
				"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/worker": "", "kubernetes.io/role": "edge"}},
			Spec: corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "node-a"}, {Type: corev1.NodeInternalIP, Address: "192.168.1.10"}},
				NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.33.0", OSImage: "Debian GNU/Linux 12", KernelVersion: "6.1.0", ContainerRuntimeVersion: "containerd://1.7.0"},
			},
		},
		header: "Name Status Roles Age Version | Internal-IP External-IP OS-Image Kernel-Version Container-Runtime",
		want:   []any{"node-a", "Ready,SchedulingDisabled", "control-plane,edge,worker", "2d2h", "v1.33.0", "192.168.1.10", "<none>", "Debian GNU/Linux 12", "6.1.0", "containerd://1.7.0"},
	}, {
		name:   "namespace",
		gr:     core("namespaces"),
		obj:    &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system", CreationTimestamp: ago(3*time.Hour + 5*time.Minute)}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		header: "Name Status Age",
		want:   []any{"kube-system", "Active", "3h5m"},
	}, {
		name: "deployment",
		gr:   apps("deployments"),
		obj: &appsv1.Deployment{
			ObjectMeta: meta("web", 5*time.Second),
			Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}, {Name: "side", Image: "busybox"}}}}},
			Status: appsv1.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 2},
		},
		header: "Name Ready Up-to-date Available Age | Containers Images Selector",
		want:   []any{"web", "2/3", int64(3), int64(2), "5s", "nginx,side", "nginx:1.27,busybox", "app=web"},
	}, {
		name: "replicaset",
		gr:   apps("replicasets"),
		obj: &appsv1.ReplicaSet{
			ObjectMeta: meta("web-5d4f", 2*time.Minute),
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "pod-template-hash": "5d4f"}},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}},
			Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 1},
		},
		header: "Name Desired Current Ready Age | Containers Images Selector",
		want:   []any{"web-5d4f", int64(3), int64(3), int64(1), "2m", "nginx", "nginx", "app=web,pod-template-hash=5d4f"},
	}, {
		name: "replicationcontroller",
		gr:   core("replicationcontrollers"),
		obj: &corev1.ReplicationController{
			ObjectMeta: meta("web", 2*time.Minute),
			Spec: corev1.ReplicationControllerSpec{Replicas: ptr(int32(3)), Selector: map[string]string{"app": "web"},
				Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}},
			Status: corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1},
		},
		header: "Name Desired Current Ready Age | Containers Images Selector",
		want:   []any{"web", int64(3), int64(2), int64(1), "2m", "nginx", "nginx", "app=web"},
	}, {
		name: "resourcequota",
		gr:   core("resourcequotas"),
		obj: &corev1.ResourceQuota{ObjectMeta: meta("q", time.Hour), Status: corev1.ResourceQuotaStatus{
			Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "limits.cpu": resource.MustParse("2"), "requests.memory": resource.MustParse("1Gi")},
			Used: corev1.ResourceList{"pods": resource.MustParse("3"), "limits.cpu": resource.MustParse("500m")}}},
		header: "Name Age Request Limit",
		want:   []any{"q", "60m", "pods: 3/10, requests.memory: 0/1Gi", "limits.cpu: 500m/2"},
	}, {
		name: "componentstatus",
		gr:   core("componentstatuses"),
		obj: &corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: "scheduler"}, Conditions: []corev1.ComponentCondition{
			{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Error: "connection refused"}}},
		header: "Name Status Message Error",
		want:   []any{"scheduler", "Unhealthy", "", "connection refused"},
	}, {
		name: "statefulset",
		gr:   apps("statefulsets"),
		obj: &appsv1.StatefulSet{
			ObjectMeta: meta("db", 9*24*time.Hour),
			Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pg", Image: "postgres:16"}}}}},
			Status: appsv1.StatefulSetStatus{ReadyReplicas: 3},
		},
		header: "Name Ready Age | Containers Images",
		want:   []any{"db", "3/3", "9d", "pg", "postgres:16"},
	}, {
		name: "daemonset",
		gr:   apps("daemonsets"),
		obj: &appsv1.DaemonSet{
			ObjectMeta: meta("proxy", time.Hour),
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "proxy"}},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/os": "linux"}, Containers: []corev1.Container{{Name: "proxy", Image: "proxy:1"}}}}},
			Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 3, NumberAvailable: 2},
		},
		header: "Name Desired Current Ready Up-to-date Available Node-Selector Age | Containers Images Selector",
		want:   []any{"proxy", int64(3), int64(3), int64(2), int64(3), int64(2), "kubernetes.io/os=linux", "60m", "proxy", "proxy:1", "k8s-app=proxy"},
	}, {
		name: "controllerrevision",
		gr:   apps("controllerrevisions"),
		obj: &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: "db-7f9c", CreationTimestamp: ago(time.Minute), OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "u", Controller: ptr(true)}}},
			Revision: 2,
		},
		header: "Name Controller Revision Age",
		want:   []any{"db-7f9c", "statefulset.apps/db", int64(2), "60s"},
	}, {
		name: "service",
		gr:   core("services"),
		obj: &corev1.Service{
			ObjectMeta: meta("web", 20*time.Minute),
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10"},
				Selector: map[string]string{"app": "web", "tier": "front"},
				Ports:    []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}, {Port: 443, NodePort: 30443, Protocol: corev1.ProtocolTCP}}},
		},
		header: "Name Type Cluster-IP External-IP Port(s) Age | Selector",
		want:   []any{"web", "NodePort", "10.96.0.10", "<none>", "80/TCP,443:30443/TCP", "20m", "app=web,tier=front"},
	}, {
		name:   "endpoints",
		gr:     core("endpoints"),
		obj:    &corev1.Endpoints{ObjectMeta: meta("web", time.Minute), Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}, Ports: []corev1.EndpointPort{{Port: 80}, {Port: 443}}}}},
		header: "Name Endpoints Age",
		want:   []any{"web", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...", "60s"},
	}, {
		name:   "configmap",
		gr:     core("configmaps"),
		obj:    &corev1.ConfigMap{ObjectMeta: meta("cfg", 30*time.Second), Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"c": {1}}},
		header: "Name Data Age",
		want:   []any{"cfg", int64(3), "30s"},
	}, {
		name:   "secret",
		gr:     core("secrets"),
		obj:    &corev1.Secret{ObjectMeta: meta("tls", 4*time.Minute), Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil}},
		header: "Name Type Data Age",
		want:   []any{"tls", "kubernetes.io/tls", int64(2), "4m"},
	}, {
		name:   "serviceaccount",
		gr:     core("serviceaccounts"),
		obj:    &corev1.ServiceAccount{ObjectMeta: meta("default", 400*24*time.Hour)},
		header: "Name Secrets Age",
		want:   []any{"default", int64(0), "400d"},
	}, {
		name: "event",
		gr:   core("events"),
		obj: &corev1.Event{
			ObjectMeta:     meta("web-1.17f", time.Minute),
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1", FieldPath: "spec.containers{app}"},
			Reason:         "BackOff", Message: "Back-off restarting failed container\n", Type: corev1.EventTypeWarning,
			Source:         corev1.EventSource{Component: "kubelet", Host: "node-a"},
			FirstTimestamp: ago(10 * time.Minute), LastTimestamp: ago(30 * time.Second), Count: 12,
		},
		header: "Last-Seen Type Reason Object | Subobject Source | Message | First-Seen Count Name",
		want:   []any{"30s", "Warning", "BackOff", "pod/web-1", "spec.containers{app}", "kubelet, node-a", "Back-off restarting failed container", "10m", int64(12), "web-1.17f"},
	}, {
		name:   "podtemplate",
		gr:     core("podtemplates"),
		obj:    &corev1.PodTemplate{ObjectMeta: meta("tpl", time.Minute), Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}},
		header: "Name Containers Images Pod-Labels",
		want:   []any{"tpl", "c", "i", "app=x"},
	}, {
		name: "pvc",
		gr:   core("persistentvolumeclaims"),
		obj: &corev1.PersistentVolumeClaim{
			ObjectMeta: meta("data", 15*time.Minute),
			Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1", StorageClassName: ptr("standard"), VolumeMode: &rwo},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadWriteOnce},
				Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		header: "Name Status Volume Capacity Access-Modes StorageClass VolumeAttributesClass Age | VolumeMode",
		want:   []any{"data", "Bound", "pv-1", "10Gi", "RWO,RWX", "standard", "<unset>", "15m", "Filesystem"},
	}, {
		name: "pv",
		gr:   core("persistentvolumes"),
		obj: &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-1", CreationTimestamp: ago(15 * time.Minute)},
			Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
				ClaimRef: &corev1.ObjectReference{Namespace: "default", Name: "data"}, StorageClassName: "standard"},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
		},
		header: "Name Capacity Access-Modes Reclaim-Policy Status Claim StorageClass VolumeAttributesClass Reason Age | VolumeMode",
		want:   []any{"pv-1", "10Gi", "RWO", "Delete", "Bound", "default/data", "standard", "<unset>", "", "15m", "<unset>"},
	}, {
		name:   "lease",
		gr:     schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"},
		obj:    &coordinationv1.Lease{ObjectMeta: meta("kube-scheduler", time.Hour), Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("host_1234")}},
		header: "Name Holder Age",
		want:   []any{"kube-scheduler", "host_1234", "60m"},
	}, {
		name:   "priorityclass",
		gr:     schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"},
		obj:    &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical", CreationTimestamp: ago(24 * time.Hour)}, Value: 2000001000, PreemptionPolicy: ptr(corev1.PreemptLowerPriority)},
		header: "Name Value Global-Default Age PreemptionPolicy",
		want:   []any{"system-node-critical", int64(2000001000), false, "24h", "PreemptLowerPriority"},
	}, {
		name:   "poddisruptionbudget",
		gr:     schema.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"},
		obj:    &policyv1.PodDisruptionBudget{ObjectMeta: meta("web", time.Minute), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("50%"))}, Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}},
		header: "Name Min-Available Max-Unavailable Allowed-Disruptions Age",
		want:   []any{"web", "50%", "N/A", int64(1), "60s"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, tt.gr, tt.obj, nil)
			if got := header(table.ColumnDefinitions); got != tt.header {
				t.Errorf("columns = %q, want %q", got, tt.header)
			}
			if len(table.Rows) != 1 {
				t.Fatalf("rows = %d, want 1", len(table.Rows))
			}
			if got := table.Rows[0].Cells; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells =\n%#v\nwant\n%#v", got, tt.want)
			}
			if len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
				t.Errorf("%d cells for %d columns", len(table.Rows[0].Cells), len(table.ColumnDefinitions))
			}
			for i, c := range table.ColumnDefinitions {
				if c.Type == "integer" {
					if _, ok := table.Rows[0].Cells[i].(int64); !ok {
						t.Errorf("integer column %q holds %T", c.Name, table.Rows[0].Cells[i])
					}
				}
			}
		})
	}
}

// header renders column names ("-" for spaces), with "|" where the
// priority changes between 0 and 1.
func header(cols []metav1.TableColumnDefinition) string {
	var b strings.Builder
	var prio int32
	for i, c := range cols {
		if i > 0 {
			b.WriteString(" ")
		}
		if c.Priority != prio {
			b.WriteString("| ")
			prio = c.Priority
		}
		b.WriteString(strings.ReplaceAll(c.Name, " ", "-"))
	}
	return b.String()
}

func TestPodStatus(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	waiting := func(reason string) corev1.ContainerState {
		return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
	}
	terminated := func(reason string, code, signal int32) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code, Signal: signal}}
	}
	always := corev1.ContainerRestartPolicyAlways
	pod := func(phase corev1.PodPhase, inits []corev1.ContainerStatus, cs ...corev1.ContainerStatus) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: meta("p", time.Minute), Status: corev1.PodStatus{Phase: phase, InitContainerStatuses: inits, ContainerStatuses: cs}}
		for _, c := range cs {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c.Name})
		}
		for _, c := range inits {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: c.Name})
		}
		return p
	}
	tests := []struct {
		name      string
		pod       *corev1.Pod
		ready     string
		status    string
		restarts  string
		completed string
	}{
		{name: "pending", pod: pod(corev1.PodPending, nil), ready: "0/0", status: "Pending", restarts: "0"},
		{name: "container creating", pod: pod(corev1.PodPending, nil, corev1.ContainerStatus{Name: "a", State: waiting("ContainerCreating")}), ready: "0/1", status: "ContainerCreating", restarts: "0"},
		{name: "running", pod: pod(corev1.PodRunning, nil, corev1.ContainerStatus{Name: "a", Ready: true, State: running}), ready: "1/1", status: "Running", restarts: "0"},
		{name: "crash loop", pod: pod(corev1.PodRunning, nil, corev1.ContainerStatus{Name: "a", RestartCount: 4, State: waiting("CrashLoopBackOff")}), ready: "0/1", status: "CrashLoopBackOff", restarts: "4"},
		{name: "completed", pod: pod(corev1.PodSucceeded, nil, corev1.ContainerStatus{Name: "a", State: terminated("Completed", 0, 0)}), ready: "0/1", status: "Completed", restarts: "0", completed: "Succeeded"},
		{name: "error", pod: pod(corev1.PodFailed, nil, corev1.ContainerStatus{Name: "a", State: terminated("Error", 1, 0)}), ready: "0/1", status: "Error", restarts: "0", completed: "Failed"},
		{name: "exit code", pod: pod(corev1.PodFailed, nil, corev1.ContainerStatus{Name: "a", State: terminated("", 3, 0)}), ready: "0/1", status: "ExitCode:3", restarts: "0", completed: "Failed"},
		{name: "signal", pod: pod(corev1.PodFailed, nil, corev1.ContainerStatus{Name: "a", State: terminated("", 137, 9)}), ready: "0/1", status: "Signal:9", restarts: "0", completed: "Failed"},
		{name: "evicted", pod: func() *corev1.Pod { p := pod(corev1.PodFailed, nil); p.Status.Reason = "Evicted"; return p }(), ready: "0/0", status: "Evicted", restarts: "0", completed: "Failed"},
		{name: "init waiting", pod: pod(corev1.PodPending, []corev1.ContainerStatus{{Name: "i1", State: terminated("Completed", 0, 0)}, {Name: "i2", State: waiting("PodInitializing")}}, corev1.ContainerStatus{Name: "a", State: waiting("PodInitializing")}),
			ready: "0/1", status: "Init:1/2", restarts: "0"},
		{name: "init crash", pod: pod(corev1.PodPending, []corev1.ContainerStatus{{Name: "i1", RestartCount: 3, State: waiting("CrashLoopBackOff")}}, corev1.ContainerStatus{Name: "a", State: waiting("PodInitializing")}),
			ready: "0/1", status: "Init:CrashLoopBackOff", restarts: "3"},
		{name: "init error", pod: pod(corev1.PodPending, []corev1.ContainerStatus{{Name: "i1", State: terminated("Error", 1, 0)}}), ready: "0/0", status: "Init:Error", restarts: "0"},
		{name: "init exit code", pod: pod(corev1.PodPending, []corev1.ContainerStatus{{Name: "i1", State: terminated("", 2, 0)}}), ready: "0/0", status: "Init:ExitCode:2", restarts: "0"},
		{name: "sidecar running", pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, []corev1.ContainerStatus{{Name: "side", Ready: true, Started: ptr(true), RestartCount: 1, State: running}}, corev1.ContainerStatus{Name: "a", Ready: true, State: running})
			p.Spec.InitContainers[0].RestartPolicy = &always
			return p
		}(), ready: "2/2", status: "Running", restarts: "1"},
		{name: "terminating", pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, nil, corev1.ContainerStatus{Name: "a", Ready: true, State: running})
			p.DeletionTimestamp = ptr(ago(time.Second))
			return p
		}(), ready: "1/1", status: "Terminating", restarts: "0"},
		{name: "node lost", pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, nil)
			p.Status.Reason = "NodeLost"
			p.DeletionTimestamp = ptr(ago(time.Second))
			return p
		}(), ready: "0/0", status: "Unknown", restarts: "0"},
		{name: "completed container with one running", pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, nil, corev1.ContainerStatus{Name: "a", State: terminated("Completed", 0, 0)}, corev1.ContainerStatus{Name: "b", Ready: true, State: running})
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
			return p
		}(), ready: "1/2", status: "NotReady", restarts: "0"},
		{name: "scheduling gated", pod: func() *corev1.Pod {
			p := pod(corev1.PodPending, nil)
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}
			return p
		}(), ready: "0/0", status: "SchedulingGated", restarts: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, schema.GroupResource{Resource: "pods"}, tt.pod, nil)
			r := table.Rows[0]
			if got := []any{r.Cells[1], r.Cells[2], r.Cells[3]}; !reflect.DeepEqual(got, []any{tt.ready, tt.status, tt.restarts}) {
				t.Errorf("READY STATUS RESTARTS = %v, want [%s %s %s]", got, tt.ready, tt.status, tt.restarts)
			}
			completed := ""
			if len(r.Conditions) == 1 && r.Conditions[0].Type == metav1.RowCompleted && r.Conditions[0].Status == metav1.ConditionTrue {
				completed = r.Conditions[0].Reason
			}
			if completed != tt.completed || len(r.Conditions) > 1 {
				t.Errorf("conditions = %+v, want Completed/%q", r.Conditions, tt.completed)
			}
		})
	}
}

func TestListsAndIncludeObject(t *testing.T) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42", Continue: "next", RemainingItemCount: ptr(int64(5))}}
	for _, n := range []string{"a", "b", "c"} {
		p := runningPod()
		p.Name = n
		list.Items = append(list.Items, *p)
	}
	pods := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		policy   metav1.IncludeObjectPolicy
		wantKind string // "" means no object
	}{
		{"", "PartialObjectMetadata"},
		{metav1.IncludeMetadata, "PartialObjectMetadata"},
		{metav1.IncludeObject, "Pod"},
		{metav1.IncludeNone, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			table := convert(t, pods, list, &metav1.TableOptions{IncludeObject: tt.policy})
			if len(table.Rows) != 3 {
				t.Fatalf("rows = %d, want 3", len(table.Rows))
			}
			if table.ResourceVersion != "42" || table.Continue != "next" || table.RemainingItemCount == nil || *table.RemainingItemCount != 5 {
				t.Errorf("list meta = %+v", table.ListMeta)
			}
			for i, r := range table.Rows {
				if r.Cells[0] != list.Items[i].Name {
					t.Errorf("row %d name = %v", i, r.Cells[0])
				}
				if tt.wantKind == "" {
					if r.Object != nil {
						t.Errorf("row %d object = %s, want none", i, r.Object)
					}
					continue
				}
				var got struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
					Metadata   struct {
						Name string `json:"name"`
					} `json:"metadata"`
					Spec *struct {
						NodeName string `json:"nodeName"`
					} `json:"spec"`
				}
				if err := json.Unmarshal(r.Object, &got); err != nil {
					t.Fatalf("row %d object: %v", i, err)
				}
				if got.Kind != tt.wantKind || got.Metadata.Name != list.Items[i].Name {
					t.Errorf("row %d object = %s", i, r.Object)
				}
				if (got.Spec != nil) != (tt.wantKind == "Pod") {
					t.Errorf("row %d object spec presence wrong: %s", i, r.Object)
				}
			}
			if list.Items[0].Kind != "" {
				t.Errorf("the list's items were modified: kind %q", list.Items[0].Kind)
			}
		})
	}

	t.Run("empty list", func(t *testing.T) {
		table := convert(t, pods, &corev1.PodList{}, nil)
		if table.Rows == nil || len(table.Rows) != 0 || len(table.ColumnDefinitions) != 9 {
			t.Errorf("table = %+v", table)
		}
	})
	t.Run("encoded object", func(t *testing.T) {
		pod := runningPod()
		enc := storage.NewEncodedObject(pod, func(runtime.Object) ([]byte, error) { return []byte(`{"kind":"Pod","apiVersion":"v1"}`), nil })
		table := convert(t, pods, enc, &metav1.TableOptions{IncludeObject: metav1.IncludeObject})
		if string(table.Rows[0].Object) != `{"kind":"Pod","apiVersion":"v1"}` || table.Rows[0].Cells[0] != "web-1" {
			t.Errorf("row = %+v %s", table.Rows[0].Cells, table.Rows[0].Object)
		}
	})
	t.Run("no headers", func(t *testing.T) {
		table := convert(t, pods, runningPod(), &metav1.TableOptions{NoHeaders: true})
		if table.ColumnDefinitions != nil || len(table.Rows) != 1 {
			t.Errorf("table = %+v", table)
		}
	})
	t.Run("wrong type", func(t *testing.T) {
		c := NewTableConvertor(pods, func() time.Time { return now })
		if _, err := c.ConvertToTable(context.Background(), &corev1.Node{}, nil); err == nil {
			t.Error("converting a Node with the pod printer succeeded")
		}
	})
	t.Run("unknown resource", func(t *testing.T) {
		if c := TableConvertorFor(schema.GroupResource{Group: "example.com", Resource: "widgets"}); c != nil {
			t.Errorf("TableConvertorFor(widgets) = %T, want nil", c)
		}
	})
	t.Run("bad selector", func(t *testing.T) {
		d := &appsv1.Deployment{ObjectMeta: meta("d", time.Minute), Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}}}
		c := NewTableConvertor(schema.GroupResource{Group: "apps", Resource: "deployments"}, func() time.Time { return now })
		if _, err := c.ConvertToTable(context.Background(), d, nil); err == nil {
			t.Error("a deployment with an invalid selector printed")
		}
	})
}

// TestPodTableGolden pins the JSON kubectl receives for one pod.
func TestPodTableGolden(t *testing.T) {
	table := convert(t, schema.GroupResource{Resource: "pods"}, runningPod(), nil)
	got, err := json.MarshalIndent(table, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "pod-table.json")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got)+"\n" != string(want) {
		t.Errorf("pod table JSON differs from %s (UPDATE_GOLDEN=1 rewrites it):\n%s", path, got)
	}
}
