package endpoints

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/endpoints"
	"kubecore.io/kubecore/test/integration/framework"
)

const timeout = 20 * time.Second

// setup runs an apiserver and the endpoints controller until the test
// ends, and returns a client and a fresh namespace.
func setup(t *testing.T) (context.Context, *typed.Clientset, string) {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	factory := informers.NewSharedInformerFactory(cs)
	c, err := endpoints.New(cs, factory)
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 2) })
	return context.Background(), cs, s.CreateNamespace(t, "endpoints")
}

// runPod creates a pod labelled app=web and gives it the status a kubelet
// would: Running with ip, Ready or not.
func runPod(ctx context.Context, t *testing.T, cs *typed.Clientset, ns, name, ip string, ready bool) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{
			Name: "c", Image: "busybox",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		}}},
	}
	created, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setReady(ctx, t, cs, created, ip, ready)
}

func setReady(ctx context.Context, t *testing.T, cs *typed.Clientset, pod *corev1.Pod, ip string, ready bool) {
	t.Helper()
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.PodIP = ip
	pod.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if _, err := cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitForEndpoints waits until the Endpoints of name have exactly the
// ready and not-ready IPs given, on port 8080.
func waitForEndpoints(ctx context.Context, t *testing.T, cs *typed.Clientset, ns, name string, ready, notReady []string) {
	t.Helper()
	var last *corev1.Endpoints
	framework.WaitFor(t, timeout, "endpoints "+name, func() (bool, error) {
		ep, err := cs.CoreV1().Endpoints(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		last = ep
		var gotReady, gotNotReady []string
		for _, s := range ep.Subsets {
			if len(s.Ports) != 1 || s.Ports[0].Port != 8080 || s.Ports[0].Name != "web" {
				return false, nil
			}
			for _, a := range s.Addresses {
				gotReady = append(gotReady, a.IP)
			}
			for _, a := range s.NotReadyAddresses {
				gotNotReady = append(gotNotReady, a.IP)
			}
		}
		return reflect.DeepEqual(gotReady, ready) && reflect.DeepEqual(gotNotReady, notReady), nil
	})
	if last.Labels["app"] != "web" {
		t.Errorf("endpoints labels %v, want the service's", last.Labels)
	}
}

func TestEndpointsFollowPods(t *testing.T) {
	ctx, cs, ns := setup(t)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runPod(ctx, t, cs, ns, "a", "10.1.0.1", true)
	runPod(ctx, t, cs, ns, "b", "10.1.0.2", false)
	waitForEndpoints(ctx, t, cs, ns, "web", []string{"10.1.0.1"}, []string{"10.1.0.2"})

	// b turns ready; a is relabelled out of the service.
	b, err := cs.CoreV1().Pods(ns).Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setReady(ctx, t, cs, b, "10.1.0.2", true)
	a, err := cs.CoreV1().Pods(ns).Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Labels = map[string]string{"app": "other"}
	if _, err := cs.CoreV1().Pods(ns).Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForEndpoints(ctx, t, cs, ns, "web", []string{"10.1.0.2"}, nil)

	// A hand edit is put back.
	ep, err := cs.CoreV1().Endpoints(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ep.Subsets = nil
	if _, err := cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForEndpoints(ctx, t, cs, ns, "web", []string{"10.1.0.2"}, nil)

	// Deleting the service deletes its endpoints.
	if err := cs.CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, timeout, "the endpoints to go", func() (bool, error) {
		_, err := cs.CoreV1().Endpoints(ns).Get(ctx, "web", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// A service without a selector keeps the Endpoints its owner writes.
func TestManualEndpointsLeftAlone(t *testing.T) {
	ctx, cs, ns := setup(t)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "external"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5432}}},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	manual := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "external"},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "192.0.2.10"}},
			Ports:     []corev1.EndpointPort{{Port: 5432}},
		}},
	}
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, manual, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A selector service created after it is synced; by then the manual
	// one has been seen too.
	other := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, timeout, "the endpoints of web", func() (bool, error) {
		_, err := cs.CoreV1().Endpoints(ns).Get(ctx, "web", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	got, err := cs.CoreV1().Endpoints(ns).Get(ctx, "external", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Subsets) != 1 || len(got.Subsets[0].Addresses) != 1 || got.Subsets[0].Addresses[0].IP != "192.0.2.10" {
		t.Errorf("manual endpoints changed: %+v", got.Subsets)
	}
}

// An Endpoints object without a service (the conformance suite's Endpoint
// lifecycle writes one) survives its updates: the controller deletes
// Endpoints only for a service that is gone.
func TestEndpointsWithoutServiceSurviveUpdates(t *testing.T) {
	ctx, cs, ns := setup(t)
	lone := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "lone", Labels: map[string]string{"step": "created"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "192.0.2.20"}},
			Ports:     []corev1.EndpointPort{{Port: 80}},
		}},
	}
	created, err := cs.CoreV1().Endpoints(ns).Create(ctx, lone, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Labels["step"] = "updated"
	if _, err := cs.CoreV1().Endpoints(ns).Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The endpoints of a service created after the update show the
	// controller at work since; by then the update has been seen.
	web := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, web, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runPod(ctx, t, cs, ns, "a", "10.0.0.1", true)
	waitForEndpoints(ctx, t, cs, ns, "web", []string{"10.0.0.1"}, nil)
	got, err := cs.CoreV1().Endpoints(ns).Get(ctx, "lone", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the updated Endpoints without a service: %v", err)
	}
	if got.Labels["step"] != "updated" || len(got.Subsets) != 1 {
		t.Errorf("the Endpoints changed: labels %v subsets %+v", got.Labels, got.Subsets)
	}
}
