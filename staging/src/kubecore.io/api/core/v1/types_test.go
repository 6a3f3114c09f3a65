package v1

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// TestMinimalPod pins the encoding of the smallest useful pod: a struct
// without omitempty handling still writes "resources": {} and "status": {},
// and the zero creation time writes null, exactly as Kubernetes' types do.
func TestMinimalPod(t *testing.T) {
	p := Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Spec:       PodSpec{Containers: []Container{{Name: "c", Image: "i"}}},
	}
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"metadata":{"name":"x","creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"i","resources":{}}]},"status":{}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	var back Pod
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("decoded %+v, want %+v", back, p)
	}
}

// TestZeroValueEncoding pins which fields are always written and which are
// omitted when empty: each zero value encodes as Kubernetes' own type of
// the same name does.
func TestZeroValueEncoding(t *testing.T) {
	const meta = `"metadata":{"creationTimestamp":null}`
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"Pod", Pod{}, `{` + meta + `,"spec":{"containers":null},"status":{}}`},
		{"PodList", PodList{}, `{"metadata":{},"items":null}`},
		{"PodTemplate", PodTemplate{}, `{` + meta + `,"template":{` + meta + `,"spec":{"containers":null}}}`},
		{"Container", Container{}, `{"name":"","resources":{}}`},
		{"ContainerStatus", ContainerStatus{}, `{"name":"","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":""}`},
		{"ContainerStateTerminated", ContainerStateTerminated{}, `{"exitCode":0,"startedAt":null,"finishedAt":null}`},
		{"ContainerStateRunning", ContainerStateRunning{}, `{"startedAt":null}`},
		{"PodCondition", PodCondition{}, `{"type":"","status":"","lastProbeTime":null,"lastTransitionTime":null}`},
		{"Probe", Probe{}, `{}`},
		{"HTTPGetAction", HTTPGetAction{}, `{"port":0}`},
		{"TCPSocketAction", TCPSocketAction{}, `{"port":0}`},
		{"GRPCAction", GRPCAction{}, `{"port":0,"service":null}`},
		{"ResourceFieldSelector", ResourceFieldSelector{}, `{"resource":"","divisor":"0"}`},
		{"EnvVar", EnvVar{}, `{"name":""}`},
		{"Volume", Volume{}, `{"name":""}`},
		{"VolumeMount", VolumeMount{}, `{"name":"","mountPath":""}`},
		{"ContainerPort", ContainerPort{}, `{"containerPort":0}`},
		{"Toleration", Toleration{}, `{}`},
		{"Taint", Taint{}, `{"key":"","effect":""}`},
		{"NodeSelector", NodeSelector{}, `{"nodeSelectorTerms":null}`},
		{"WeightedPodAffinityTerm", WeightedPodAffinityTerm{}, `{"weight":0,"podAffinityTerm":{"topologyKey":""}}`},
		{"PreferredSchedulingTerm", PreferredSchedulingTerm{}, `{"weight":0,"preference":{}}`},
		{"TopologySpreadConstraint", TopologySpreadConstraint{}, `{"maxSkew":0,"topologyKey":"","whenUnsatisfiable":""}`},
		{"ProjectedVolumeSource", ProjectedVolumeSource{}, `{"sources":null}`},
		{"TypedLocalObjectReference", TypedLocalObjectReference{}, `{"apiGroup":null,"kind":"","name":""}`},
		{"Node", Node{}, `{` + meta + `,"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}}`},
		{"NodeCondition", NodeCondition{}, `{"type":"","status":"","lastHeartbeatTime":null,"lastTransitionTime":null}`},
		{"Namespace", Namespace{}, `{` + meta + `,"spec":{},"status":{}}`},
		{"Service", Service{}, `{` + meta + `,"spec":{},"status":{"loadBalancer":{}}}`},
		{"ServicePort", ServicePort{}, `{"port":0,"targetPort":0}`},
		{"Endpoints", Endpoints{}, `{` + meta + `}`},
		{"ConfigMap", ConfigMap{}, `{` + meta + `}`},
		{"Secret", Secret{}, `{` + meta + `}`},
		{"ServiceAccount", ServiceAccount{}, `{` + meta + `}`},
		{"Binding", Binding{}, `{` + meta + `,"target":{}}`},
		{"Event", Event{}, `{` + meta + `,"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""}`},
		{"EventSeries", EventSeries{}, `{"lastObservedTime":null}`},
		{"PersistentVolume", PersistentVolume{}, `{` + meta + `,"spec":{},"status":{}}`},
		{"PersistentVolumeClaim", PersistentVolumeClaim{}, `{` + meta + `,"spec":{"resources":{}},"status":{}}`},
		{"List", List{}, `{"metadata":{},"items":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal(%s{})\n got: %s\nwant: %s", tt.name, got, tt.want)
			}
		})
	}
}

// TestAbsentAndZeroDiffer checks fields where Kubernetes tells "not set"
// from an explicit zero or false: both must survive a round trip.
func TestAbsentAndZeroDiffer(t *testing.T) {
	zero64, no := int64(0), false
	tests := []struct {
		name string
		in   PodSpec
		want string
	}{
		{"absent", PodSpec{}, `{"containers":null}`},
		{"explicit zero and false", PodSpec{
			TerminationGracePeriodSeconds: &zero64,
			AutomountServiceAccountToken:  &no,
			EnableServiceLinks:            &no,
		}, `{"containers":null,"terminationGracePeriodSeconds":0,"automountServiceAccountToken":false,"enableServiceLinks":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			var back PodSpec
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.in) {
				t.Errorf("round trip: got %+v, want %+v", back, tt.in)
			}
		})
	}
}

// TestDecodeWireValues decodes values whose Go form differs from their JSON
// form: IntOrString ports, quantities, base64 bytes, times and the
// capitalised daemon endpoint port.
func TestDecodeWireValues(t *testing.T) {
	t.Run("probe ports", func(t *testing.T) {
		var c Container
		in := `{"name":"c","livenessProbe":{"httpGet":{"port":"http","path":"/"}},"readinessProbe":{"tcpSocket":{"port":8080}}}`
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			t.Fatal(err)
		}
		if p := c.LivenessProbe.HTTPGet.Port; p.Type != intstr.String || p.StrVal != "http" {
			t.Errorf("httpGet port = %+v, want the string http", p)
		}
		if p := c.ReadinessProbe.TCPSocket.Port; p.Type != intstr.Int || p.IntVal != 8080 {
			t.Errorf("tcpSocket port = %+v, want the int 8080", p)
		}
	})
	t.Run("resources", func(t *testing.T) {
		var r ResourceRequirements
		if err := json.Unmarshal([]byte(`{"limits":{"cpu":"1500m","memory":"1Gi"},"requests":{"cpu":"0.5"}}`), &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Limits.Cpu().MilliValue(); got != 1500 {
			t.Errorf("limits.cpu = %dm, want 1500m", got)
		}
		if got := r.Limits.Memory().Value(); got != 1<<30 {
			t.Errorf("limits.memory = %d, want %d", got, 1<<30)
		}
		if got := r.Requests.Cpu().String(); got != "500m" {
			t.Errorf("requests.cpu = %s, want 500m", got)
		}
	})
	t.Run("secret data", func(t *testing.T) {
		var s Secret
		if err := json.Unmarshal([]byte(`{"data":{"k":"aGVsbG8="},"type":"Opaque"}`), &s); err != nil {
			t.Fatal(err)
		}
		if string(s.Data["k"]) != "hello" || s.Type != SecretTypeOpaque {
			t.Errorf("got %q type %q", s.Data["k"], s.Type)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out, []byte(`"data":{"k":"aGVsbG8="}`)) {
			t.Errorf("encoded %s, want base64 data", out)
		}
	})
	t.Run("bad secret data", func(t *testing.T) {
		var s Secret
		if err := json.Unmarshal([]byte(`{"data":{"k":"not base64!"}}`), &s); err == nil {
			t.Error("want an error for data that is not base64")
		}
	})
	t.Run("node daemon endpoint", func(t *testing.T) {
		var n NodeStatus
		if err := json.Unmarshal([]byte(`{"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}`), &n); err != nil {
			t.Fatal(err)
		}
		if n.DaemonEndpoints.KubeletEndpoint.Port != 10250 {
			t.Errorf("kubelet port = %d", n.DaemonEndpoints.KubeletEndpoint.Port)
		}
	})
	t.Run("event times", func(t *testing.T) {
		var e Event
		in := `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"eventTime":"2025-04-02T11:15:27.123456Z","firstTimestamp":"2025-04-02T11:15:27Z","reportingComponent":"kubelet","reportingInstance":"n1"}`
		if err := json.Unmarshal([]byte(in), &e); err != nil {
			t.Fatal(err)
		}
		if got := e.EventTime.UTC().Nanosecond(); got != 123456000 {
			t.Errorf("eventTime nanoseconds = %d", got)
		}
		want := time.Date(2025, 4, 2, 11, 15, 27, 0, time.UTC)
		if !e.FirstTimestamp.Time.Equal(want) {
			t.Errorf("firstTimestamp = %v, want %v", e.FirstTimestamp, want)
		}
	})
	t.Run("list items stay raw", func(t *testing.T) {
		var l List
		in := `{"kind":"List","apiVersion":"v1","metadata":{},"items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}]}`
		if err := json.Unmarshal([]byte(in), &l); err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 1 || !bytes.Contains(l.Items[0].Raw, []byte(`"name":"a"`)) {
			t.Fatalf("items = %+v", l.Items)
		}
		out, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("got  %s\nwant %s", out, in)
		}
	})
}

// TestPatchTags checks the strategic-merge-patch tags the patch code reads:
// the merge key of every list Kubernetes merges, and retainKeys on volumes.
func TestPatchTags(t *testing.T) {
	tests := []struct {
		typ      any
		field    string
		strategy string
		mergeKey string
	}{
		{PodSpec{}, "Volumes", "merge,retainKeys", "name"},
		{PodSpec{}, "InitContainers", "merge", "name"},
		{PodSpec{}, "Containers", "merge", "name"},
		{PodSpec{}, "EphemeralContainers", "merge", "name"},
		{PodSpec{}, "ImagePullSecrets", "merge", "name"},
		{PodSpec{}, "HostAliases", "merge", "ip"},
		{PodSpec{}, "TopologySpreadConstraints", "merge", "topologyKey"},
		{PodSpec{}, "SchedulingGates", "merge", "name"},
		{PodSpec{}, "ResourceClaims", "merge,retainKeys", "name"},
		{PodSpec{}, "Tolerations", "", ""},
		{Container{}, "Ports", "merge", "containerPort"},
		{Container{}, "Env", "merge", "name"},
		{Container{}, "EnvFrom", "", ""},
		{Container{}, "VolumeMounts", "merge", "mountPath"},
		{Container{}, "VolumeDevices", "merge", "devicePath"},
		{PodStatus{}, "Conditions", "merge", "type"},
		{PodStatus{}, "HostIPs", "merge", "ip"},
		{PodStatus{}, "PodIPs", "merge", "ip"},
		{ContainerStatus{}, "VolumeMounts", "merge", "mountPath"},
		{NodeSpec{}, "PodCIDRs", "merge", ""},
		{NodeSpec{}, "Taints", "", ""},
		{NodeStatus{}, "Conditions", "merge", "type"},
		{NodeStatus{}, "Addresses", "merge", "type"},
		{NamespaceStatus{}, "Conditions", "merge", "type"},
		{ServiceSpec{}, "Ports", "merge", "port"},
		{ServiceStatus{}, "Conditions", "merge", "type"},
		{ServiceAccount{}, "Secrets", "merge", "name"},
		{PersistentVolumeClaimStatus{}, "Conditions", "merge", "type"},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.typ)
		t.Run(typ.Name()+"."+tt.field, func(t *testing.T) {
			f, ok := typ.FieldByName(tt.field)
			if !ok {
				t.Fatalf("%s has no field %s", typ.Name(), tt.field)
			}
			if got := f.Tag.Get("patchStrategy"); got != tt.strategy {
				t.Errorf("patchStrategy = %q, want %q", got, tt.strategy)
			}
			if got := f.Tag.Get("patchMergeKey"); got != tt.mergeKey {
				t.Errorf("patchMergeKey = %q, want %q", got, tt.mergeKey)
			}
		})
	}
}

// TestTopLevelTypesAreObjects checks that every registered kind is a
// runtime.Object whose deep copy is equal but shares nothing.
func TestTopLevelTypesAreObjects(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	objs := []runtime.Object{
		&Pod{Spec: PodSpec{Containers: []Container{{Name: "c", Resources: ResourceRequirements{
			Limits: ResourceList{ResourceCPU: resource.MustParse("1")}}}}}},
		&PodList{}, &PodTemplate{}, &PodTemplateList{},
		&Node{Spec: NodeSpec{Taints: []Taint{{Key: TaintNodeUnschedulable, Effect: TaintEffectNoSchedule}}}},
		&NodeList{}, &Namespace{}, &NamespaceList{},
		&Service{Spec: ServiceSpec{Ports: []ServicePort{{Port: 80, TargetPort: intstr.FromString("http")}}}},
		&ServiceList{}, &Endpoints{}, &EndpointsList{},
		&ConfigMap{Data: map[string]string{"a": "b"}}, &ConfigMapList{},
		&Secret{Data: map[string][]byte{"a": []byte("b")}}, &SecretList{},
		&ServiceAccount{}, &ServiceAccountList{}, &Event{}, &EventList{},
		&PersistentVolume{}, &PersistentVolumeList{}, &PersistentVolumeClaim{}, &PersistentVolumeClaimList{},
		&Binding{Target: ObjectReference{Kind: "Node", Name: "n"}},
		&List{Items: []runtime.RawExtension{{Raw: []byte(`{}`)}}},
	}
	for _, obj := range objs {
		name := reflect.TypeOf(obj).Elem().Name()
		t.Run(name, func(t *testing.T) {
			gvks, _, err := scheme.ObjectKinds(obj)
			if err != nil {
				t.Fatalf("not registered: %v", err)
			}
			if gvks[0] != SchemeGroupVersion.WithKind(name) {
				t.Errorf("kind = %v, want v1 %s", gvks[0], name)
			}
			c := obj.DeepCopyObject()
			if !reflect.DeepEqual(c, obj) {
				t.Errorf("deep copy differs: %+v", c)
			}
			if reflect.ValueOf(c).Pointer() == reflect.ValueOf(obj).Pointer() {
				t.Error("deep copy returned the same pointer")
			}
		})
	}

	p := objs[0].(*Pod)
	c := p.DeepCopy()
	c.Spec.Containers[0].Name = "changed"
	c.Spec.Containers[0].Resources.Limits[ResourceMemory] = resource.MustParse("1Gi")
	if p.Spec.Containers[0].Name != "c" || len(p.Spec.Containers[0].Resources.Limits) != 1 {
		t.Error("changing the copy changed the original")
	}
}

// TestGroupVersion checks the core group's names.
func TestGroupVersion(t *testing.T) {
	if got := SchemeGroupVersion.String(); got != "v1" {
		t.Errorf("SchemeGroupVersion = %q, want v1", got)
	}
	if got := Resource("pods").String(); got != "pods" {
		t.Errorf("Resource(pods) = %q, want pods", got)
	}
}
