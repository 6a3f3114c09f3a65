// Package serviceaccount holds the integration tests of service account
// tokens: TokenRequest (serviceaccounts/token) through the typed client and
// the stock kubectl, the API access volume pods get at admission, and a
// kubelet running a pod that reads its projected token and calls the API
// server with it.
package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "kubecore.io/api/authentication/v1"
	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/rootcacert"
	"kubecore.io/kubecore/pkg/controller/serviceaccount"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

// TestMain runs the tests, or the process runtime's shim when the runtime
// starts this binary as one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == process.ShimSubcommand {
		os.Exit(process.RunShim(os.Args[2:]))
	}
	os.Exit(framework.RunWithEtcd(m, &testEtcd))
}

// server is a test's API server with its admin client.
type server struct {
	t     *testing.T
	s     *framework.APIServer
	admin *typed.Clientset
}

func start(t *testing.T) *server {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	return &server{t: t, s: s, admin: s.Clientset(t)}
}

// runControllers runs the service account and root CA publisher
// controllers until the test ends.
func (s *server) runControllers() {
	t := s.t
	ca, err := os.ReadFile(filepath.Join(s.s.DataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(s.admin)
	sa, err := serviceaccount.New(s.admin, factory)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := rootcacert.New(s.admin, factory, rootcacert.Options{CA: ca})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	done := make(chan error, 2)
	go func() { done <- sa.Run(ctx, 1) }()
	go func() { done <- pub.Run(ctx, 1) }()
	t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
		factory.Shutdown()
	})
}

// config returns a client config of the server with the given
// credentials instead of the admin's: a bearer token, or a certificate
// the cluster CA signs for cn in groups.
func (s *server) config(token, cn string, groups ...string) *rest.Config {
	t := s.t
	t.Helper()
	rc := rest.CopyConfig(s.s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = nil, nil
	rc.TLSClientConfig.CertFile, rc.TLSClientConfig.KeyFile = "", ""
	rc.BearerToken = token
	if cn != "" {
		hosts, _ := pki.DefaultHosts("127.0.0.1")
		b, err := pki.EnsureServing(filepath.Join(s.s.DataDir, "pki"), pki.Options{Hosts: hosts})
		if err != nil {
			t.Fatal(err)
		}
		kp, err := b.EnsureClientCert("test-"+strings.ReplaceAll(cn, ":", "-"), cn, groups)
		if err != nil {
			t.Fatal(err)
		}
		key, _ := kp.KeyPEM()
		rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = kp.CertPEM(), key
	}
	return rc
}

func (s *server) clients(rc *rest.Config) *typed.Clientset {
	s.t.Helper()
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		s.t.Fatal(err)
	}
	return cs
}

// requestToken POSTs tr to serviceaccounts/NAME/token as cs.
func requestToken(ctx context.Context, cs *typed.Clientset, ns, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	out := &authenticationv1.TokenRequest{}
	err := cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("serviceaccounts").Name(name).SubResource("token").Body(tr).Do(ctx).Into(out)
	return out, err
}

// eventually retries f until it succeeds or 10 s have passed: the
// authenticators and authorizers read the watch cache, which trails a
// write by a moment.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wantStatus checks that err is an API error of the code whose message
// contains msg.
func wantStatus(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != code {
		t.Fatalf("err = %v, want a %d Status", err, code)
	}
	if !strings.Contains(se.ErrStatus.Message, msg) {
		t.Errorf("message %q, want it to contain %q", se.ErrStatus.Message, msg)
	}
}

// createSA makes a service account and returns it.
func (s *server) createSA(ctx context.Context, ns, name string) *corev1.ServiceAccount {
	s.t.Helper()
	sa, err := s.admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("create service account %s: %v", name, err)
	}
	return sa
}

func ptr[T any](v T) *T { return &v }

// bindView binds the view ClusterRole to service account name in ns.
func (s *server) bindView(ctx context.Context, ns, name string) {
	s.t.Helper()
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name + "-view"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: name}}}
	if _, err := s.admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
