package certificates

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	certificatesv1 "kubecore.io/api/certificates/v1"
	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/pkg/controller/certificates"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/integration/framework"
)

const kubeletSigner = certificatesv1.KubeAPIServerClientKubeletSignerName

// as returns typed clients of s acting as user in groups (impersonated by
// the admin).
func as(t *testing.T, s *framework.APIServer, user string, groups ...string) *typed.Clientset {
	t.Helper()
	c := rest.CopyConfig(s.Config)
	c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	cs, err := typed.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// request builds a request for subject (and dnsNames) with a new key.
func request(t *testing.T, name string, subject pkix.Name, usages []certificatesv1.KeyUsage, dnsNames ...string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	key, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject, DNSNames: dnsNames}, key)
	if err != nil {
		t.Fatal(err)
	}
	reqPEM := pem.EncodeToMemory(&pem.Block{Type: cert.CertificateRequestBlockType, Bytes: der})
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       certificatesv1.CertificateSigningRequestSpec{Request: reqPEM, SignerName: kubeletSigner, Usages: usages},
	}
}

func nodeSubject(node string) pkix.Name {
	return pkix.Name{CommonName: "system:node:" + node, Organization: []string{"system:nodes"}}
}

var clientUsages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}

// TestValidationAndSubresources checks what the API itself enforces: a
// signed PEM request, known usages, a qualified signer, the requester set
// by the server, the status only through /status and the approval only
// through /approval, both authorized per signer.
func TestValidationAndSubresources(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	ctx := context.Background()
	admin := s.Clientset(t)
	csrs := admin.CertificatesV1().CertificateSigningRequests()

	short := int32(599)
	for _, tc := range []struct {
		name   string
		mutate func(*certificatesv1.CertificateSigningRequest)
		field  string
	}{
		{"not PEM", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Request = []byte("hello") }, "spec.request"},
		{"certificate, not request", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = []byte(strings.Replace(string(c.Spec.Request), "CERTIFICATE REQUEST", "CERTIFICATE", 2))
		}, "spec.request"},
		{"no usages", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Usages = nil }, "spec.usages"},
		{"unknown usage", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Usages = append(c.Spec.Usages, "flying") }, "spec.usages[2]"},
		{"unqualified signer", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = "mysigner" }, "spec.signerName"},
		{"legacy signer", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.SignerName = certificatesv1.LegacyUnknownSignerName
		}, "spec.signerName"},
		{"too short", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.ExpirationSeconds = &short }, "spec.expirationSeconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := request(t, "invalid", nodeSubject("n1"), clientUsages)
			tc.mutate(c)
			_, err := csrs.Create(ctx, c, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("want 422 on %s, got %v", tc.field, err)
			}
		})
	}

	// The server, not the client, says who asked.
	c := request(t, "by-alice", nodeSubject("n1"), clientUsages)
	c.Spec.Username, c.Spec.Groups = "mallory", []string{"system:masters"}
	got, err := csrs.Create(ctx, c, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Username == "mallory" || slices.Contains(got.Spec.Groups, "mallory") || !slices.Contains(got.Spec.Groups, "system:masters") || got.Spec.Username == "" {
		t.Errorf("requester %q %v: want the admin's identity", got.Spec.Username, got.Spec.Groups)
	}

	// The main resource ignores status and spec changes.
	upd := got.DeepCopy()
	upd.Spec.SignerName = "example.com/other"
	upd.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
	if got, err = csrs.Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got.Spec.SignerName != kubeletSigner || len(got.Status.Conditions) != 0 {
		t.Fatalf("an update of the main resource changed spec or status: %+v", got)
	}

	// Approving needs verb approve on the signer: alice may update the
	// approval subresource but is no approver, until a role says so.
	grant(t, admin, "csr-approval-updater", rbacv1.PolicyRule{Verbs: []string{"get", "update", "patch"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests", "certificatesigningrequests/approval"}})
	alice := as(t, s, "alice").CertificatesV1().CertificateSigningRequests()
	approve := got.DeepCopy()
	approve.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test"}}
	// The authorizer reads the new role from its cache: until it has it,
	// RBAC itself refuses the update.
	waitFor(func() bool {
		_, err = alice.UpdateApproval(ctx, approve, metav1.UpdateOptions{})
		return err == nil || !strings.Contains(err.Error(), "cannot update resource")
	})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `user not permitted to approve requests with signerName "`+kubeletSigner+`"`) {
		t.Fatalf("approval without the approve verb on the signer: want 403, got %v", err)
	}
	// A server-side apply of the approval is checked as an update is.
	applied := fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":%q},"status":{"conditions":[{"type":"Approved","status":"True","reason":"Test"}]}}`, got.Name)
	if _, err := alice.Patch(ctx, got.Name, types.ApplyPatchType, []byte(applied), metav1.PatchOptions{FieldManager: "alice"}, "approval"); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `user not permitted to approve requests with signerName "`+kubeletSigner+`"`) {
		t.Fatalf("approval by server-side apply without the approve verb on the signer: want 403, got %v", err)
	}
	grant(t, admin, "csr-kubelet-approver", rbacv1.PolicyRule{Verbs: []string{"approve"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"kubernetes.io/*"}})
	var approved *certificatesv1.CertificateSigningRequest
	if !waitFor(func() bool {
		approved, err = alice.UpdateApproval(ctx, approve, metav1.UpdateOptions{})
		return err == nil
	}) {
		t.Fatalf("approval with approve on kubernetes.io/*: %v", err)
	}
	if cond := approved.Status.Conditions; len(cond) != 1 || cond[0].LastTransitionTime.IsZero() || cond[0].LastUpdateTime.IsZero() {
		t.Errorf("approved conditions %+v: want one, stamped", cond)
	}

	// Approved and Denied exclude each other, and stay once set.
	deny := approved.DeepCopy()
	deny.Status.Conditions = append(deny.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue})
	if _, err := csrs.UpdateApproval(ctx, deny, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "mutually exclusive") {
		t.Errorf("approved and denied: want 422, got %v", err)
	}
	unapprove := approved.DeepCopy()
	unapprove.Status.Conditions = nil
	if _, err := csrs.UpdateApproval(ctx, unapprove, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `may not remove a condition of type "Approved"`) {
		t.Errorf("removing the approval: want 422, got %v", err)
	}

	// /status keeps the approval and takes the certificate, once.
	ca := pkiBundle(t, s)
	issued := approved.DeepCopy()
	issued.Status.Conditions = nil
	issued.Status.Certificate = ca.CA.CertPEM()
	out, err := csrs.UpdateStatus(ctx, issued, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Status.Certificate) == 0 || len(out.Status.Conditions) != 1 || out.Status.Conditions[0].Type != certificatesv1.CertificateApproved {
		t.Errorf("after /status: %+v", out.Status)
	}
	out.Status.Certificate = ca.Admin.CertPEM()
	if _, err := csrs.UpdateStatus(ctx, out, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "may not modify existing certificate") {
		t.Errorf("replacing the certificate: want 422, got %v", err)
	}
}

// grant binds a cluster role of rule to user alice.
func grant(t *testing.T, cs *typed.Clientset, name string, rule rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{rule}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func pkiBundle(t *testing.T, s *framework.APIServer) *pki.Bundle {
	t.Helper()
	b, err := pki.EnsureServing(filepath.Join(s.DataDir, "pki"), pki.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestApproverAndSigner runs the two controllers: a bootstrap token user's
// request of a node client certificate, and a node's renewal of its own,
// are approved and issued by the cluster CA; requests of another shape or
// from anyone else stay pending.
func TestApproverAndSigner(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin := s.Clientset(t)
	bundle := pkiBundle(t, s)

	factory := informers.NewSharedInformerFactory(admin)
	approver, err := certificates.NewApprover(admin, factory)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := certificates.NewSigner(admin, factory, certificates.SignerConfig{CACert: bundle.CA.Cert, CAKey: bundle.CA.Key, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	errs := make(chan error, 2)
	go func() { errs <- approver.Run(ctx, 2) }()
	go func() { errs <- signer.Run(ctx, 2) }()
	defer func() {
		cancel()
		for range 2 {
			if err := <-errs; err != nil && !t.Failed() {
				t.Error(err)
			}
		}
	}()

	bootstrapper := as(t, s, "system:bootstrap:abcdef", "system:bootstrappers", "system:bootstrappers:kubecore:default-node-token").CertificatesV1().CertificateSigningRequests()
	node := as(t, s, "system:node:n2", "system:nodes").CertificatesV1().CertificateSigningRequests()
	eve := as(t, s, "eve").CertificatesV1().CertificateSigningRequests()
	grantEve(t, admin)
	tenMinutes := int32(600)
	create := func(client *typed.CSRClient, c *certificatesv1.CertificateSigningRequest) {
		t.Helper()
		if _, err := client.Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", c.Name, err)
		}
	}
	joining := request(t, "joining", nodeSubject("n1"), clientUsages)
	joining.Spec.ExpirationSeconds = &tenMinutes
	create(bootstrapper, joining)
	create(node, request(t, "renewing", nodeSubject("n2"), clientUsages))
	pending := map[string]*certificatesv1.CertificateSigningRequest{
		"other-node":    request(t, "other-node", nodeSubject("n3"), clientUsages),
		"with-dns-name": request(t, "with-dns-name", nodeSubject("n4"), clientUsages, "n4.example.com"),
		"masters":       request(t, "masters", pkix.Name{CommonName: "system:node:n5", Organization: []string{"system:nodes", "system:masters"}}, clientUsages),
		"server-usage":  request(t, "server-usage", nodeSubject("n6"), []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth}),
		"not-bootstrap": request(t, "not-bootstrap", nodeSubject("n7"), clientUsages),
		"not-a-kubelet": request(t, "not-a-kubelet", pkix.Name{CommonName: "bob"}, clientUsages),
	}
	create(node, pending["other-node"])
	create(bootstrapper, pending["with-dns-name"])
	create(bootstrapper, pending["masters"])
	create(bootstrapper, pending["server-usage"])
	// eve's binding takes effect once the authorizer's cache has it.
	if !waitFor(func() bool {
		_, err := eve.Create(ctx, pending["not-bootstrap"], metav1.CreateOptions{})
		return err == nil
	}) {
		t.Fatal("eve cannot create a request")
	}
	create(bootstrapper, pending["not-a-kubelet"])

	csrs := admin.CertificatesV1().CertificateSigningRequests()
	for name, node := range map[string]string{"joining": "n1", "renewing": "n2"} {
		var got *certificatesv1.CertificateSigningRequest
		if !waitFor(func() bool {
			got, err = csrs.Get(ctx, name, metav1.GetOptions{})
			return err == nil && len(got.Status.Certificate) > 0
		}) {
			t.Fatalf("%s was not issued: %+v %v", name, got, err)
		}
		if cond := got.Status.Conditions; len(cond) != 1 || cond[0].Type != certificatesv1.CertificateApproved || cond[0].Reason != "AutoApproved" {
			t.Errorf("%s conditions %+v", name, cond)
		}
		certs, err := cert.ParseCertsPEM(got.Status.Certificate)
		if err != nil {
			t.Fatal(err)
		}
		c := certs[0]
		if _, err := c.Verify(x509.VerifyOptions{Roots: bundle.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s: the certificate does not verify as a client certificate of the CA: %v", name, err)
		}
		if c.Subject.CommonName != "system:node:"+node || !slices.Equal(c.Subject.Organization, []string{"system:nodes"}) || len(c.DNSNames)+len(c.IPAddresses) > 0 || c.IsCA {
			t.Errorf("%s: certificate subject %s, names %v %v, CA %v", name, c.Subject, c.DNSNames, c.IPAddresses, c.IsCA)
		}
		want := time.Hour
		if name == "joining" {
			want = 10 * time.Minute // the request's shorter validity wins
		}
		if life := time.Until(c.NotAfter); life > want || life < want-time.Minute {
			t.Errorf("%s: valid for another %s, want about %s", name, life, want)
		}
	}

	// Those the approver must not approve stay pending. Give it time:
	// every request was created before the last two were issued.
	time.Sleep(500 * time.Millisecond)
	for name := range pending {
		got, err := csrs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Status.Conditions) > 0 || len(got.Status.Certificate) > 0 {
			t.Errorf("%s: want pending, got %+v", name, got.Status)
		}
	}

	// An approved request that is not a kubelet client certificate fails.
	odd := pending["with-dns-name"]
	got, err := csrs.Get(ctx, odd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "ByHand"}}
	if _, err := csrs.UpdateApproval(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool {
		got, err = csrs.Get(ctx, odd.Name, metav1.GetOptions{})
		return err == nil && slices.ContainsFunc(got.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
			return c.Type == certificatesv1.CertificateFailed && c.Reason == "SignerValidationFailure"
		})
	}) {
		t.Fatalf("a hand-approved request with a DNS name: want Failed, got %+v %v", got.Status, err)
	}
	if len(got.Status.Certificate) > 0 {
		t.Error("the failed request got a certificate")
	}
}

// grantEve lets eve create requests (but nothing that gets them approved).
func grantEve(t *testing.T, cs *typed.Clientset) {
	t.Helper()
	ctx := context.Background()
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "eve-node-bootstrapper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node-bootstrapper"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "eve"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
