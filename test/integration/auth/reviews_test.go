package auth

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "kubecore.io/api/authentication/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"

	"kubecore.io/kubecore/cmd/kubecore/app/token"
)

// groupClient is a REST client of gv for the credentials of rc.
func groupClient(t *testing.T, rc *rest.Config, gv string) *rest.Client {
	t.Helper()
	c, err := rest.NewClient(rc, rest.ClientOptions{GroupVersion: gv})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tokenReview asks the server about tok, as the admin.
func (c *clients) tokenReview(ctx context.Context, tok string, audiences ...string) (*authenticationv1.TokenReview, error) {
	c.t.Helper()
	out := &authenticationv1.TokenReview{}
	in := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tok, Audiences: audiences}}
	err := groupClient(c.t, c.s.Config, authenticationv1.SchemeGroupVersion.String()).Post().Resource("tokenreviews").Body(in).Do(ctx).Into(out)
	return out, err
}

// TestTokenReview: a TokenReview answers as the request authenticators
// would for every kind of bearer token kubecore has (static file,
// bootstrap, service account), honours audiences, and reports a bad token
// as unauthenticated with the error, not as a failed request.
func TestTokenReview(t *testing.T) {
	c := startWithTokens(t, "s3cret,alice,uid-alice,\"dev,ops\"")
	ctx := context.Background()

	got, err := c.tokenReview(ctx, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	u := got.Status.User
	if !got.Status.Authenticated || u.Username != "alice" || u.UID != "uid-alice" ||
		!slices.Equal(u.Groups, []string{"dev", "ops", "system:authenticated"}) || got.Status.Error != "" {
		t.Errorf("static token reviewed as %+v", got.Status)
	}

	// A service account token, with the API server's audience and another.
	ns := c.s.CreateNamespace(t, "review")
	if _, err := c.admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}}}
	if err := c.admin.CoreV1().RESTClient().Post().Namespace(ns).Resource("serviceaccounts").Name("robot").SubResource("token").Body(tr).Do(ctx).Into(tr); err != nil {
		t.Fatal(err)
	}
	var sa *authenticationv1.TokenReview
	eventually(t, "review of the service account token", func() error {
		sa, err = c.tokenReview(ctx, tr.Status.Token, "vault", "other")
		if err == nil && !sa.Status.Authenticated {
			return apierrors.NewBadRequest(sa.Status.Error)
		}
		return err
	})
	if sa.Status.User.Username != "system:serviceaccount:"+ns+":robot" || !slices.Equal(sa.Status.Audiences, []string{"vault"}) ||
		!slices.Contains(sa.Status.User.Groups, "system:serviceaccounts:"+ns) || !slices.Contains(sa.Status.User.Groups, "system:authenticated") {
		t.Errorf("service account token reviewed as %+v", sa.Status)
	}
	// Not meant for the API server: refused without audiences.
	if got, err := c.tokenReview(ctx, tr.Status.Token); err != nil || got.Status.Authenticated || !strings.Contains(got.Status.Error, "audience") {
		t.Errorf("a token for vault reviewed for the API server: %+v %v", got.Status, err)
	}

	// A bootstrap token made by `kubecore token create`.
	o := token.NewOptions()
	o.Kubeconfig = c.s.Kubeconfig
	var out bytes.Buffer
	if err := o.Create(ctx, &out); err != nil {
		t.Fatal(err)
	}
	boot := strings.TrimSpace(out.String())
	got, err = c.tokenReview(ctx, boot)
	if err != nil || !got.Status.Authenticated || got.Status.User.Username != "system:bootstrap:"+boot[:6] ||
		!slices.Equal(got.Status.Audiences, []string{"https://kubernetes.default.svc.cluster.local"}) {
		t.Errorf("bootstrap token reviewed as %+v, %v", got.Status, err)
	}
	// Good only for the API server's audiences.
	if got, err := c.tokenReview(ctx, boot, "vault"); err != nil || got.Status.Authenticated {
		t.Errorf("bootstrap token reviewed for vault as %+v, %v", got.Status, err)
	}

	// A bad token: unauthenticated, with the error.
	got, err = c.tokenReview(ctx, "not-a-token")
	if err != nil || got.Status.Authenticated || got.Status.Error == "" || got.Status.User.Username != "" {
		t.Errorf("bad token reviewed as %+v, %v", got.Status, err)
	}
	// No token: 400.
	if _, err := c.tokenReview(ctx, ""); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "token is required") {
		t.Errorf("empty token: %v", err)
	}
	// Users without the right may not ask.
	_, err = c.withToken("s3cret").AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{}, metav1.CreateOptions{})
	if apierrors.IsUnauthorized(err) {
		t.Fatalf("alice is not authenticated: %v", err)
	}
	rc := rest.CopyConfig(c.withTokenConfig("s3cret"))
	err = groupClient(t, rc, authenticationv1.SchemeGroupVersion.String()).Post().Resource("tokenreviews").Body(&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "x"}}).Do(ctx).Error()
	wantForbidden(t, err, `cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope`)
}

// withTokenConfig is the client config of a bearer token and no certificate.
func (c *clients) withTokenConfig(tok string) *rest.Config {
	rc := rest.CopyConfig(c.s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = nil, nil
	rc.TLSClientConfig.CertFile, rc.TLSClientConfig.KeyFile = "", ""
	rc.BearerToken = tok
	return rc
}

// TestSelfSubjectReview: any authenticated caller learns who the server
// takes it for.
func TestSelfSubjectReview(t *testing.T) {
	c := startWithTokens(t, "t0ken,bob,uid-bob,team")
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		rc     *rest.Config
		user   string
		groups []string
	}{
		{"static token", c.withTokenConfig("t0ken"), "bob", []string{"team", "system:authenticated"}},
		{"admin certificate", c.s.Config, "", []string{"system:masters", "system:authenticated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now().Add(-time.Second)
			out := &authenticationv1.SelfSubjectReview{}
			err := groupClient(t, tc.rc, authenticationv1.SchemeGroupVersion.String()).Post().Resource("selfsubjectreviews").Body(&authenticationv1.SelfSubjectReview{}).Do(ctx).Into(out)
			if err != nil {
				t.Fatal(err)
			}
			ui := out.Status.UserInfo
			if (tc.user != "" && ui.Username != tc.user) || ui.Username == "" || !slices.Equal(ui.Groups, tc.groups) {
				t.Errorf("answered %+v, want %s in %v", ui, tc.user, tc.groups)
			}
			if out.Kind != "SelfSubjectReview" || out.CreationTimestamp.Time.Before(before.Truncate(time.Second)) {
				t.Errorf("answer %s at %v", out.Kind, out.CreationTimestamp)
			}
		})
	}
}

// TestLocalSubjectAccessReview: a namespaced review answers within its
// namespace and refuses attributes naming another.
func TestLocalSubjectAccessReview(t *testing.T) {
	c := startWithTokens(t)
	ctx := context.Background()
	ns := c.s.CreateNamespace(t, "lsar")
	az := groupClient(t, c.s.Config, authorizationv1.SchemeGroupVersion.String())
	review := func(ns string, lsar *authorizationv1.LocalSubjectAccessReview) (*authorizationv1.LocalSubjectAccessReview, error) {
		out := &authorizationv1.LocalSubjectAccessReview{}
		err := az.Post().Namespace(ns).Resource("localsubjectaccessreviews").Body(lsar).Do(ctx).Into(out)
		return out, err
	}
	spec := func(attrNS string) authorizationv1.SubjectAccessReviewSpec {
		return authorizationv1.SubjectAccessReviewSpec{User: "carol", Groups: []string{"system:masters"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: attrNS, Verb: "list", Resource: "pods"}}
	}
	got, err := review(ns, &authorizationv1.LocalSubjectAccessReview{Spec: spec(ns)})
	if err != nil || !got.Status.Allowed || got.Namespace != ns {
		t.Fatalf("review answered %+v (namespace %q), %v", got.Status, got.Namespace, err)
	}
	got, err = review(ns, &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "carol",
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "pods"}}})
	if err != nil || got.Status.Allowed {
		t.Errorf("carol alone may list pods: %+v, %v", got.Status, err)
	}

	_, err = review(ns, &authorizationv1.LocalSubjectAccessReview{Spec: spec("other")})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace") {
		t.Errorf("a review of another namespace: %v", err)
	}
	_, err = review(ns, &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "carol",
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.nonResourceAttributes") {
		t.Errorf("a non-resource review: %v", err)
	}
	// The body's namespace must be the path's.
	wrong := &authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "other"}, Spec: spec("other")}
	if _, err := review(ns, wrong); !apierrors.IsBadRequest(err) {
		t.Errorf("a body of another namespace: %v", err)
	}
}
