package kubelet

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"k8s.io/klog/v2"

	authenticationv1 "kubecore.io/api/authentication/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/typed"
)

// writeProjected makes dir hold the files of a projected volume: config
// map and secret keys, pod fields and service account tokens, the tokens
// kept by the token manager until they are due for renewal.
func (kl *Kubelet) writeProjected(ctx context.Context, pod *corev1.Pod, dir string, src *corev1.ProjectedVolumeSource, ips podIPs) error {
	files := map[string]file{}
	for _, s := range src.Sources {
		var (
			more map[string]file
			err  error
		)
		switch {
		case s.ConfigMap != nil:
			more, err = kl.configMapFiles(ctx, pod.Namespace, s.ConfigMap.Name, s.ConfigMap.Items, isTrue(s.ConfigMap.Optional))
		case s.Secret != nil:
			more, err = kl.secretFiles(ctx, pod.Namespace, s.Secret.Name, s.Secret.Items, isTrue(s.Secret.Optional))
		case s.DownwardAPI != nil:
			more, err = downwardAPIFiles(pod, s.DownwardAPI.Items, ips, kl.machine.Allocatable)
		case s.ServiceAccountToken != nil:
			var token string
			token, err = kl.tokens.token(ctx, pod, s.ServiceAccountToken)
			more = map[string]file{s.ServiceAccountToken.Path: {data: []byte(token)}}
		default:
			err = fmt.Errorf("unsupported projection: this kubelet projects configMap, secret, downwardAPI and serviceAccountToken sources")
		}
		if err != nil {
			return err
		}
		for p, f := range more {
			if _, dup := files[p]; dup {
				return fmt.Errorf("projected volume: two sources write %q", p)
			}
			files[p] = f
		}
	}
	return writeFiles(dir, files, fileMode(src.DefaultMode))
}

// tokenRefreshFraction is how much of a token's life passes before the
// kubelet asks for a new one, as Kubernetes' kubelet does.
const tokenRefreshFraction = 0.8

// defaultTokenSeconds is the lifetime asked for a projection that says none.
const defaultTokenSeconds = 60 * 60

// tokenKey identifies the token of one projection of one pod.
type tokenKey struct {
	namespace, serviceAccount, audience string
	podUID                              types.UID
	seconds                             int64
}

// tokenManager gets service account tokens bound to pods through
// TokenRequest, with the kubelet's own credentials, and hands out each
// until tokenRefreshFraction of its life has passed. A token that cannot
// be renewed is kept while it is still valid.
type tokenManager struct {
	clock   Clock
	request func(ctx context.Context, namespace, serviceAccount string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error)

	mu     sync.Mutex
	tokens map[tokenKey]*authenticationv1.TokenRequest
}

func newTokenManager(cs *typed.Clientset, clock Clock) *tokenManager {
	m := &tokenManager{clock: clock, tokens: map[tokenKey]*authenticationv1.TokenRequest{}}
	m.request = func(ctx context.Context, ns, sa string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
		if cs == nil {
			return nil, errStandalone
		}
		out := &authenticationv1.TokenRequest{}
		err := cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("serviceaccounts").Name(sa).SubResource("token").Body(tr).Do(ctx).Into(out)
		return out, err
	}
	return m
}

// token returns a token of pod's service account for the projection.
func (m *tokenManager) token(ctx context.Context, pod *corev1.Pod, p *corev1.ServiceAccountTokenProjection) (string, error) {
	seconds := int64(defaultTokenSeconds)
	if p.ExpirationSeconds != nil {
		seconds = *p.ExpirationSeconds
	}
	key := tokenKey{namespace: pod.Namespace, serviceAccount: pod.Spec.ServiceAccountName, audience: p.Audience, podUID: pod.UID, seconds: seconds}
	now := m.clock.Now()
	m.mu.Lock()
	cur := m.tokens[key]
	m.mu.Unlock()
	if cur != nil && !dueForRenewal(cur, now) {
		return cur.Status.Token, nil
	}
	tr := &authenticationv1.TokenRequest{
		TypeMeta: metav1.TypeMeta{APIVersion: authenticationv1.SchemeGroupVersion.String(), Kind: "TokenRequest"},
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds,
			BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}},
	}
	if p.Audience != "" {
		tr.Spec.Audiences = []string{p.Audience}
	}
	got, err := m.request(ctx, pod.Namespace, pod.Spec.ServiceAccountName, tr)
	if err != nil {
		if cur != nil && now.Before(cur.Status.ExpirationTimestamp.Time) {
			klog.FromContext(ctx).Error(err, "Cannot renew a service account token, keeping the current one", "pod", klog.KObj(pod), "expires", cur.Status.ExpirationTimestamp.Time)
			return cur.Status.Token, nil
		}
		return "", fmt.Errorf("get a token of service account %s/%s: %w", pod.Namespace, pod.Spec.ServiceAccountName, err)
	}
	if got.CreationTimestamp.IsZero() {
		got.CreationTimestamp = metav1.NewTime(now)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Tokens of pods gone long ago expire here rather than accumulate.
	maps.DeleteFunc(m.tokens, func(_ tokenKey, t *authenticationv1.TokenRequest) bool {
		return !now.Before(t.Status.ExpirationTimestamp.Time)
	})
	m.tokens[key] = got
	return got.Status.Token, nil
}

// dueForRenewal reports whether tokenRefreshFraction of the token's life
// (from its issue to its expiry) has passed at now.
func dueForRenewal(tr *authenticationv1.TokenRequest, now time.Time) bool {
	issued, exp := tr.CreationTimestamp.Time, tr.Status.ExpirationTimestamp.Time
	life := exp.Sub(issued)
	return !now.Before(issued.Add(time.Duration(float64(life) * tokenRefreshFraction)))
}
