package endpoints

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/controller/sliceplan"
)

func pod(name, ip string, ready bool, ports ...corev1.ContainerPort) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Ports: ports}}},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			PodIP:      ip,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}},
		},
	}
}

func addr(name, ip string) corev1.EndpointAddress {
	node := "n1"
	return corev1.EndpointAddress{IP: ip, NodeName: &node, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
}

func TestSubsets(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("web")},
			{Name: "metrics", Port: 9000, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9100)},
		}},
	}
	webPort := corev1.ContainerPort{Name: "web", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}
	otherPort := corev1.ContainerPort{Name: "web", ContainerPort: 8081, Protocol: corev1.ProtocolTCP}
	gone := pod("gone", "10.0.0.9", true, webPort)
	now := metav1.Now()
	gone.DeletionTimestamp = &now
	finished := pod("done", "10.0.0.8", false, webPort)
	finished.Status.Phase = corev1.PodSucceeded
	pods := []*corev1.Pod{
		pod("b", "10.0.0.2", true, webPort),
		pod("a", "10.0.0.1", true, webPort),
		pod("c", "10.0.0.3", false, webPort),
		pod("d", "10.0.0.4", true, otherPort),
		pod("noip", "", true, webPort),
		pod("unnamed", "10.0.0.5", true), // only the numeric target resolves
		gone, finished,
	}
	got := subsets(svc, backends(svc, pods))
	want := []corev1.EndpointSubset{
		{
			Addresses:         []corev1.EndpointAddress{addr("a", "10.0.0.1"), addr("b", "10.0.0.2")},
			NotReadyAddresses: []corev1.EndpointAddress{addr("c", "10.0.0.3")},
			Ports: []corev1.EndpointPort{
				{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP},
			},
		},
		{
			Addresses: []corev1.EndpointAddress{addr("d", "10.0.0.4")},
			Ports: []corev1.EndpointPort{
				{Name: "http", Port: 8081, Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP},
			},
		},
		{
			Addresses: []corev1.EndpointAddress{addr("unnamed", "10.0.0.5")},
			Ports:     []corev1.EndpointPort{{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("subsets:\n got %+v\nwant %+v", got, want)
	}

	// Published not-ready addresses count as ready, terminating ones too.
	svc.Spec.PublishNotReadyAddresses = true
	got = subsets(svc, backends(svc, []*corev1.Pod{pod("c", "10.0.0.3", false, webPort), gone}))
	if len(got) != 1 || len(got[0].Addresses) != 2 || len(got[0].NotReadyAddresses) != 0 {
		t.Errorf("publishNotReadyAddresses: %+v", got)
	}
}

func webService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "svc-uid", Labels: map[string]string{"app": "web"}},
		Spec: corev1.ServiceSpec{
			Selector:   map[string]string{"app": "web"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports:      []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}},
		},
	}
}

// sliceSummary is "name: ip/ready/serving/terminating ..." for comparing plans.
func sliceSummary(s *discoveryv1.EndpointSlice) string {
	out := s.Name + ":"
	for _, ep := range s.Endpoints {
		out += fmt.Sprintf(" %s/%t/%t/%t", ep.Addresses[0], *ep.Conditions.Ready, *ep.Conditions.Serving, *ep.Conditions.Terminating)
	}
	return out
}

func summaries(ss []*discoveryv1.EndpointSlice) []string {
	var out []string
	for _, s := range ss {
		out = append(out, sliceSummary(s))
	}
	return out
}

func TestSliceEndpoints(t *testing.T) {
	svc := webService()
	ready, notReady := pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", false)
	terminating := pod("c", "10.0.0.3", true)
	now := metav1.Now()
	terminating.DeletionTimestamp = &now
	named := pod("d", "10.0.0.4", true)
	named.Spec.Hostname, named.Spec.Subdomain = "d0", "web"
	finished := pod("e", "10.0.0.5", true)
	finished.Status.Phase = corev1.PodFailed

	plan := planSlices(svc, sliceGroups(svc, backends(svc, []*corev1.Pod{named, terminating, notReady, ready, finished})), nil)
	if len(plan.Creates) != 1 || len(plan.Updates)+len(plan.Deletes) != 0 {
		t.Fatalf("plan %+v, want one creation", plan)
	}
	s := plan.Creates[0]
	// Terminating pods are listed, not ready but serving as their readiness says.
	if got, want := sliceSummary(s), ": 10.0.0.1/true/true/false 10.0.0.2/false/false/false 10.0.0.3/false/true/true 10.0.0.4/true/true/false"; got != want {
		t.Errorf("endpoints %q, want %q", got, want)
	}
	if s.GenerateName != "web-" || s.Namespace != "ns" || s.AddressType != discoveryv1.AddressTypeIPv4 {
		t.Errorf("meta %+v, address type %s", s.ObjectMeta, s.AddressType)
	}
	wantLabels := map[string]string{"app": "web", discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: ManagedBy}
	if !reflect.DeepEqual(s.Labels, wantLabels) {
		t.Errorf("labels %v, want %v", s.Labels, wantLabels)
	}
	if refs := s.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Service" || refs[0].APIVersion != "v1" || refs[0].UID != "svc-uid" || !*refs[0].Controller || !*refs[0].BlockOwnerDeletion {
		t.Errorf("owner references %+v", refs)
	}
	if p := s.Ports; len(p) != 1 || *p[0].Name != "http" || *p[0].Port != 8080 || *p[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %+v", p)
	}
	d := s.Endpoints[3]
	if d.Hostname == nil || *d.Hostname != "d0" || *d.NodeName != "n1" || d.TargetRef.Name != "d" || d.TargetRef.UID != "uid-d" || d.TargetRef.Kind != "Pod" {
		t.Errorf("endpoint of d: %+v", d)
	}
	if s.Endpoints[0].Hostname != nil {
		t.Errorf("a got hostname %q", *s.Endpoints[0].Hostname)
	}

	// A service publishing not-ready addresses has every endpoint ready.
	svc.Spec.PublishNotReadyAddresses = true
	plan = planSlices(svc, sliceGroups(svc, backends(svc, []*corev1.Pod{notReady, terminating})), nil)
	if got, want := summaries(plan.Creates), []string{": 10.0.0.2/true/false/false 10.0.0.3/true/true/true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("published: %q, want %q", got, want)
	}
}

func TestSliceGroups(t *testing.T) {
	svc := webService()
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("web")}}
	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	a := pod("a", "10.0.0.1", true, corev1.ContainerPort{Name: "web", ContainerPort: 8080})
	a.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}
	b := pod("b", "10.0.0.2", true, corev1.ContainerPort{Name: "web", ContainerPort: 9090})
	groups := sliceGroups(svc, backends(svc, []*corev1.Pod{a, b}))
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%s %d", g.Key(), len(g.Endpoints)))
	}
	want := []string{"IPv4|http/TCP/8080/<nil> 1", "IPv4|http/TCP/9090/<nil> 1", "IPv6|http/TCP/8080/<nil> 1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}

	// Without endpoints, one placeholder group per family, without ports.
	groups = sliceGroups(svc, nil)
	if len(groups) != 2 || groups[0].Key() != "IPv4" || groups[1].Key() != "IPv6" || groups[0].Endpoints != nil {
		t.Errorf("placeholders %+v", groups)
	}
}

// existingSlice is a stored slice of svc listing pods.
func existingSlice(svc *corev1.Service, name string, pods ...*corev1.Pod) *discoveryv1.EndpointSlice {
	g := sliceGroups(svc, backends(svc, pods))[0]
	s := planSlices(svc, []*sliceplan.Group{g}, nil).Creates[0]
	s.Name, s.UID, s.ResourceVersion = name, types.UID("uid-"+name), "7"
	return s
}

func TestPlanSlicesInPlace(t *testing.T) {
	svc := webService()
	a, b, c := pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", true), pod("c", "10.0.0.3", true)
	plan := func(existing []*discoveryv1.EndpointSlice, pods ...*corev1.Pod) sliceplan.Plan {
		return planSlices(svc, sliceGroups(svc, backends(svc, pods)), existing)
	}

	// Up to date: nothing to write.
	cur := existingSlice(svc, "web-x", a, b)
	if p := plan([]*discoveryv1.EndpointSlice{cur}, a, b); len(p.Creates)+len(p.Updates)+len(p.Deletes) != 0 {
		t.Errorf("up to date: %+v", p)
	}
	// A new pod and a readiness change update the slice in place.
	bNotReady := pod("b", "10.0.0.2", false)
	p := plan([]*discoveryv1.EndpointSlice{cur}, c, bNotReady, a)
	if got, want := summaries(p.Updates), []string{"web-x: 10.0.0.1/true/true/false 10.0.0.2/false/false/false 10.0.0.3/true/true/false"}; !reflect.DeepEqual(got, want) || len(p.Creates)+len(p.Deletes) != 0 {
		t.Errorf("in place: updates %q creates %d deletes %d, want %q", got, len(p.Creates), len(p.Deletes), want)
	}
	if p.Updates[0].ResourceVersion != "7" {
		t.Errorf("update lost the resourceVersion")
	}
	// A hand edit (labels, endpoints) is put back.
	edited := cur.DeepCopy()
	edited.Labels["app"] = "changed"
	edited.Endpoints = nil
	p = plan([]*discoveryv1.EndpointSlice{edited}, a, b)
	if len(p.Updates) != 1 || !reflect.DeepEqual(p.Updates[0].Labels, cur.Labels) || sliceSummary(p.Updates[0]) != sliceSummary(cur) {
		t.Errorf("hand edit not repaired: %+v", p)
	}
	// No pod left: as in Kubernetes the slice is replaced by a placeholder
	// without ports, which stays.
	p = plan([]*discoveryv1.EndpointSlice{cur})
	if len(p.Creates) != 1 || p.Creates[0].Ports != nil || p.Creates[0].Endpoints != nil || len(p.Deletes) != 1 || len(p.Updates) != 0 {
		t.Errorf("placeholder: %+v", p)
	}
	placeholder := p.Creates[0]
	placeholder.Name = "web-y"
	if p := plan([]*discoveryv1.EndpointSlice{placeholder}); len(p.Creates)+len(p.Updates)+len(p.Deletes) != 0 {
		t.Errorf("placeholder not kept: %+v", p)
	}
	if p := plan([]*discoveryv1.EndpointSlice{placeholder}, a); len(p.Creates) != 1 || len(p.Deletes) != 1 || p.Deletes[0] != placeholder {
		t.Errorf("placeholder not replaced: %+v", p)
	}
	// Ports changed: the old slice goes, a new one comes.
	svc2 := svc.DeepCopy()
	svc2.Spec.Ports[0].TargetPort = intstr.FromInt32(9090)
	p = planSlices(svc2, sliceGroups(svc2, backends(svc2, []*corev1.Pod{a})), []*discoveryv1.EndpointSlice{cur})
	if len(p.Creates) != 1 || *p.Creates[0].Ports[0].Port != 9090 || len(p.Deletes) != 1 || p.Deletes[0].Name != "web-x" {
		t.Errorf("ports changed: %+v", p)
	}
	// A slice of an older service of the same name goes.
	old := cur.DeepCopy()
	old.OwnerReferences[0].UID = "old-uid"
	p = plan([]*discoveryv1.EndpointSlice{old}, a)
	if len(p.Creates) != 1 || len(p.Deletes) != 1 || p.Deletes[0] != old {
		t.Errorf("foreign owner: %+v", p)
	}
}

func TestPlanSlicesSplits(t *testing.T) {
	svc := webService()
	var pods []*corev1.Pod
	for i := range 250 {
		pods = append(pods, pod(fmt.Sprintf("p%03d", i), fmt.Sprintf("10.0.%d.%d", i/100, i%100+1), true))
	}
	p := planSlices(svc, sliceGroups(svc, backends(svc, pods)), nil)
	var sizes []int
	for _, s := range p.Creates {
		sizes = append(sizes, len(s.Endpoints))
	}
	if !reflect.DeepEqual(sizes, []int{100, 100, 50}) {
		t.Fatalf("slice sizes %v, want [100 100 50]", sizes)
	}

	// Stored, then one pod of the first slice goes and two come: they
	// fill the slices with room in place, nothing is created.
	var existing []*discoveryv1.EndpointSlice
	for i, s := range p.Creates {
		s.Name = fmt.Sprintf("web-%d", i)
		existing = append(existing, s)
	}
	pods = append(pods[1:], pod("q1", "10.0.9.1", true), pod("q2", "10.0.9.2", true))
	p = planSlices(svc, sliceGroups(svc, backends(svc, pods)), existing)
	if len(p.Creates)+len(p.Deletes) != 0 || len(p.Updates) != 2 || p.Updates[0].Name != "web-0" || p.Updates[1].Name != "web-2" {
		t.Fatalf("churn: creates %d deletes %d updates %d", len(p.Creates), len(p.Deletes), len(p.Updates))
	}
	// Addresses sort as strings: 10.0.0.1 was first, 10.0.0.10 is now.
	if e := p.Updates[0].Endpoints; len(e) != 100 || e[0].TargetRef.Name != "p009" || e[99].TargetRef.Name != "q1" {
		t.Errorf("web-0: %d endpoints, first %s, last %s", len(e), e[0].TargetRef.Name, e[99].TargetRef.Name)
	}
	if e := p.Updates[1].Endpoints; len(e) != 51 || e[50].TargetRef.Name != "q2" {
		t.Errorf("web-2: %d endpoints, last %s", len(e), e[50].TargetRef.Name)
	}
	if e := existing[2].Endpoints; len(e) != 50 {
		t.Errorf("the stored slice was changed")
	}
}
