package controlplane

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"fmt"
	"reflect"

	corev1 "kubecore.io/api/core/v1"
	nodev1 "kubecore.io/api/node/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/admission/plugin/noderestriction"
	serviceaccountadmission "kubecore.io/kubecore/pkg/admission/plugin/serviceaccount"
	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	"kubecore.io/kubecore/pkg/auth/authenticator/bootstrap"
	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/auth/authorizer/node"
	"kubecore.io/kubecore/pkg/auth/authorizer/rbac"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
	"kubecore.io/kubecore/pkg/auth/serviceaccount"
	serviceaccountregistry "kubecore.io/kubecore/pkg/registry/core/serviceaccount"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// rbacSource reads the RBAC objects for the RBAC authorizer.
type rbacSource struct {
	roles               cached[*rbacv1.Role]
	clusterRoles        cached[*rbacv1.ClusterRole]
	roleBindings        cached[*rbacv1.RoleBinding]
	clusterRoleBindings cached[*rbacv1.ClusterRoleBinding]
}

var _ rbac.RuleSource = (*rbacSource)(nil)

func (s *rbacSource) ClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return s.clusterRoleBindings.list(ctx, "", nil)
}

func (s *rbacSource) RoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error) {
	return s.roleBindings.list(ctx, namespace, nil)
}

func (s *rbacSource) ClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error) {
	return s.clusterRoles.get(ctx, "", name, false)
}

func (s *rbacSource) Role(ctx context.Context, namespace, name string) (*rbacv1.Role, error) {
	return s.roles.get(ctx, namespace, name, false)
}

// objectReader reads what the authenticators and the Node authorizer ask
// about: pods (by node), claims, secrets and service accounts.
type objectReader struct {
	nodes           cached[*corev1.Node]
	pods            cached[*corev1.Pod]
	claims          cached[*corev1.PersistentVolumeClaim]
	secrets         cached[*corev1.Secret]
	serviceAccounts cached[*corev1.ServiceAccount]
	priorityClasses cached[*schedulingv1.PriorityClass]
	runtimeClasses  cached[*nodev1.RuntimeClass]
	storageClasses  cached[*storagev1.StorageClass]
	quotas          cached[*corev1.ResourceQuota]
	limitRanges     cached[*corev1.LimitRange]
	namespaces      cached[*corev1.Namespace]
}

var (
	_ node.Graph             = (*objectReader)(nil)
	_ bootstrap.SecretGetter = (*objectReader)(nil)
	_ serviceaccount.Getter  = (*objectReader)(nil)

	_ serviceaccountregistry.TokenObjects = (*objectReader)(nil)
	_ noderestriction.Objects             = (*objectReader)(nil)
	_ serviceaccountadmission.Getter      = (*objectReader)(nil)
)

func (r *objectReader) PodsOnNode(ctx context.Context, nodeName string) ([]*corev1.Pod, error) {
	return r.pods.list(ctx, "", fields.OneTermEqualSelector("spec.nodeName", nodeName))
}

func (r *objectReader) Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	return r.pods.get(ctx, namespace, name, true)
}

func (r *objectReader) PersistentVolumeClaim(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	return r.claims.get(ctx, namespace, name, false)
}

// Secret reads through to etcd: a bootstrap token is used right after it
// is made.
func (r *objectReader) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	return r.secrets.get(ctx, namespace, name, true)
}

func (r *objectReader) ServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return r.serviceAccounts.get(ctx, namespace, name, true)
}

func (r *objectReader) Node(ctx context.Context, name string) (*corev1.Node, error) {
	return r.nodes.get(ctx, "", name, true)
}

// tokenREST serves serviceaccounts/token when the config has the key that
// signs service account tokens; nil without it (a nil interface: a nil
// *TokenREST in it would still be served).
func (in *Instance) tokenREST() rest.Storage {
	if in.serviceAccountKey == nil {
		return nil
	}
	return serviceaccountregistry.NewTokenREST(&serviceaccount.Issuer{Key: in.serviceAccountKey, Issuer: serviceaccount.DefaultIssuer},
		in.objects, []string{serviceaccount.DefaultAudience}, in.admission)
}

// Authorizer returns the authorizers in Kubernetes' order: members of
// system:masters, then the Node authorizer, then RBAC.
func (in *Instance) Authorizer() authorizer.Authorizer {
	return authorizer.Union{authorizer.Masters{}, &node.Authorizer{Graph: in.objects}, in.rbac}
}

// TokenAuthenticators returns the bearer token authenticators the stored
// objects back: bootstrap tokens, and service account tokens when the
// config has the signing key.
func (in *Instance) TokenAuthenticators() []authenticator.Token {
	tokens := []authenticator.Token{&bootstrap.Authenticator{Secrets: in.objects}}
	if in.serviceAccountKey != nil {
		tokens = append(tokens, in.serviceAccountTokens(apiAudiences()))
	}
	return tokens
}

// apiAudiences are the audiences the API server identifies as.
func apiAudiences() []string { return []string{serviceaccount.DefaultAudience} }

// serviceAccountTokens checks service account tokens meant for one of
// audiences; the config must have the signing key.
func (in *Instance) serviceAccountTokens(audiences []string) authenticator.Token {
	return &serviceaccount.Authenticator{
		Keys:      []*ecdsa.PublicKey{&in.serviceAccountKey.PublicKey},
		Issuer:    serviceaccount.DefaultIssuer,
		Audiences: audiences,
		Getter:    in.objects,
	}
}

// bootstrapPolicy creates the default cluster roles and bindings (and the
// namespaced ones), and
// brings back to default those still marked for auto-update
// (rbac.authorization.kubernetes.io/autoupdate: "true") that were changed.
// It returns once the watch caches the authorizer reads hold what it
// wrote, so that no component is refused in the instant after the server
// is ready.
func (in *Instance) bootstrapPolicy(ctx context.Context) error {
	var rolesRV, bindingsRV string
	for _, r := range bootstrappolicy.ClusterRoles() {
		rv, err := ensure(ctx, in.clusterRoles, &r, func(cur *rbacv1.ClusterRole) bool { return reflect.DeepEqual(cur.Rules, r.Rules) })
		if err != nil {
			return err
		}
		rolesRV = cmp.Or(rv, rolesRV)
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		rv, err := ensure(ctx, in.clusterRoleBindings, &b, func(cur *rbacv1.ClusterRoleBinding) bool {
			return reflect.DeepEqual(cur.Subjects, b.Subjects) && cur.RoleRef == b.RoleRef
		})
		if err != nil {
			return err
		}
		bindingsRV = cmp.Or(rv, bindingsRV)
	}
	var nsRolesRV, nsBindingsRV string
	for _, r := range bootstrappolicy.Roles() {
		rv, err := ensure(apirequest.WithNamespace(ctx, r.Namespace), in.roles, &r, func(cur *rbacv1.Role) bool { return reflect.DeepEqual(cur.Rules, r.Rules) })
		if err != nil {
			return err
		}
		nsRolesRV = cmp.Or(rv, nsRolesRV)
	}
	for _, b := range bootstrappolicy.RoleBindings() {
		rv, err := ensure(apirequest.WithNamespace(ctx, b.Namespace), in.roleBindings, &b, func(cur *rbacv1.RoleBinding) bool {
			return reflect.DeepEqual(cur.Subjects, b.Subjects) && cur.RoleRef == b.RoleRef
		})
		if err != nil {
			return err
		}
		nsBindingsRV = cmp.Or(rv, nsBindingsRV)
	}
	for _, w := range []struct {
		st *rbacREST
		rv string
	}{{in.clusterRoles, rolesRV}, {in.clusterRoleBindings, bindingsRV}, {in.roles, nsRolesRV}, {in.roleBindings, nsBindingsRV}} {
		if err := waitForCache(ctx, w.st, w.rv); err != nil {
			return err
		}
	}
	return nil
}

// waitForCache returns once the watch cache of st reflects revision rv
// (none when rv is ""): a list at a revision waits for a ready cache to
// reach it, and one that is not ready yet reads etcd, as cached does.
func waitForCache(ctx context.Context, st *rbacREST, rv string) error {
	if rv == "" {
		return nil
	}
	if _, err := st.Storage.GetList(ctx, st.KeyPrefix(), storage.ListOptions{ResourceVersion: rv, Recursive: true}); err != nil {
		return fmt.Errorf("wait for the %s cache: %w", st.DefaultQualifiedResource, err)
	}
	return nil
}

// ensure creates want through st, or replaces the stored object when it
// is marked for auto-update and same says it differs. It returns the
// resourceVersion it wrote, "" when it left the object as it was.
func ensure[T interface {
	runtime.Object
	metav1.Object
}](ctx context.Context, st *rbacREST, want T, same func(cur T) bool) (string, error) {
	name := want.GetName()
	created, err := st.Create(ctx, want, nil, &metav1.CreateOptions{})
	if err == nil {
		return resourceVersion(created), nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("create %s %s: %w", st.DefaultQualifiedResource, name, err)
	}
	obj, err := st.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("get %s %s: %w", st.DefaultQualifiedResource, name, err)
	}
	cur, ok := obj.(T)
	if !ok {
		return "", fmt.Errorf("%s storage returned %T", st.DefaultQualifiedResource, obj)
	}
	if cur.GetAnnotations()["rbac.authorization.kubernetes.io/autoupdate"] != "true" || same(cur) {
		return "", nil
	}
	want.SetResourceVersion(cur.GetResourceVersion())
	want.SetUID(cur.GetUID())
	updated, _, err := st.Update(ctx, name, replaceWith{want}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		return "", fmt.Errorf("reconcile %s %s: %w", st.DefaultQualifiedResource, name, err)
	}
	return resourceVersion(updated), nil
}

// resourceVersion is the resourceVersion of a stored object.
func resourceVersion(obj runtime.Object) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetResourceVersion()
	}
	return ""
}

// replaceWith is an update to a given object.
type replaceWith struct{ obj runtime.Object }

var _ rest.UpdatedObjectInfo = replaceWith{}

func (replaceWith) Preconditions() *metav1.Preconditions { return nil }

func (u replaceWith) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return u.obj.DeepCopyObject(), nil
}
