package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
)

// Names of service account users and groups, and the default audience.
const (
	UserPrefix        = "system:serviceaccount:"
	AllGroup          = "system:serviceaccounts"
	NamespaceGroupPre = "system:serviceaccounts:"
	DefaultIssuer     = "https://kubernetes.default.svc.cluster.local"
	DefaultAudience   = "https://kubernetes.default.svc.cluster.local"
	// Extra attributes of a user authenticated by a token: the token's
	// ID, and for a pod's token the pod and its node.
	ExtraCredentialID = "authentication.kubernetes.io/credential-id"
	ExtraPodName      = "authentication.kubernetes.io/pod-name"
	ExtraPodUID       = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName     = "authentication.kubernetes.io/node-name"
	ExtraNodeUID      = "authentication.kubernetes.io/node-uid"
)

// UserName is the user of a service account.
func UserName(namespace, name string) string { return UserPrefix + namespace + ":" + name }

// Issuer signs the tokens of service accounts.
type Issuer struct {
	Key    *ecdsa.PrivateKey
	Issuer string
	Now    func() time.Time
}

// Bound is what a token is bound to besides its service account: a pod
// (and the pod's node, named for information) or a secret, or nothing.
type Bound struct {
	Pod    *corev1.Pod
	Node   *corev1.Node
	Secret *corev1.Secret
}

// Token issues a token for sa, bound to bound, valid for ttl for the
// given audiences (the issuer's default when empty).
func (i *Issuer) Token(sa *corev1.ServiceAccount, bound Bound, audiences []string, ttl time.Duration) (string, time.Time, error) {
	now := time.Now
	if i.Now != nil {
		now = i.Now
	}
	t := now()
	exp := t.Add(ttl)
	if len(audiences) == 0 {
		audiences = []string{DefaultAudience}
	}
	c := &Claims{
		Issuer: i.Issuer, Subject: UserName(sa.Namespace, sa.Name), Audience: audiences,
		IssuedAt: t.Unix(), NotBefore: t.Unix(), Expiry: exp.Unix(), ID: rand.Text(),
		K8s: &PrivateClaims{Namespace: sa.Namespace, ServiceAccount: Ref{Name: sa.Name, UID: string(sa.UID)}},
	}
	switch {
	case bound.Pod != nil:
		c.K8s.Pod = &Ref{Name: bound.Pod.Name, UID: string(bound.Pod.UID)}
		if n := bound.Pod.Spec.NodeName; n != "" {
			c.K8s.Node = &Ref{Name: n}
			if bound.Node != nil && bound.Node.Name == n {
				c.K8s.Node.UID = string(bound.Node.UID)
			}
		}
	case bound.Secret != nil:
		c.K8s.Secret = &Ref{Name: bound.Secret.Name, UID: string(bound.Secret.UID)}
	}
	tok, err := Sign(i.Key, c)
	return tok, exp, err
}

// Getter reads the objects a token names; missing ones are (nil, nil).
type Getter interface {
	ServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
}

// Authenticator checks service account tokens.
type Authenticator struct {
	Keys      []*ecdsa.PublicKey
	Issuer    string
	Audiences []string
	Getter    Getter
	Now       func() time.Time
}

var _ authenticator.Token = (*Authenticator)(nil)

// leeway absorbs small clock differences between issuer and checker.
const leeway = time.Minute

// AuthenticateToken implements authenticator.Token.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*apirequest.UserInfo, bool, error) {
	c, err := verify(token, a.Keys)
	if errors.Is(err, errNotOurs) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if c.Issuer != a.Issuer {
		return nil, false, nil // another issuer's JWT
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	t := now()
	switch {
	case c.Expiry != 0 && t.After(time.Unix(c.Expiry, 0).Add(leeway)):
		return nil, false, errors.New("service account token has expired")
	case c.NotBefore != 0 && t.Add(leeway).Before(time.Unix(c.NotBefore, 0)):
		return nil, false, errors.New("service account token is not valid yet")
	}
	if !slices.ContainsFunc(c.Audience, func(aud string) bool { return slices.Contains(a.Audiences, aud) }) {
		return nil, false, errors.New("service account token: audience not accepted")
	}
	if c.K8s == nil {
		return nil, false, errors.New("service account token: no kubernetes.io claims")
	}
	ns, name := c.K8s.Namespace, c.K8s.ServiceAccount.Name
	if c.Subject != UserName(ns, name) {
		return nil, false, fmt.Errorf("service account token: subject %q does not match its claims", c.Subject)
	}
	sa, err := a.Getter.ServiceAccount(ctx, ns, name)
	if err != nil {
		return nil, false, fmt.Errorf("service account %s/%s: %w", ns, name, err)
	}
	if sa == nil || sa.DeletionTimestamp != nil || string(sa.UID) != c.K8s.ServiceAccount.UID {
		return nil, false, fmt.Errorf("service account %s/%s has been deleted", ns, name)
	}
	user := &apirequest.UserInfo{
		Name:   c.Subject,
		UID:    string(sa.UID),
		Groups: []string{AllGroup, NamespaceGroupPre + ns},
	}
	extra := map[string][]string{}
	if c.ID != "" {
		extra[ExtraCredentialID] = []string{"JTI=" + c.ID}
	}
	if p := c.K8s.Pod; p != nil {
		pod, err := a.Getter.Pod(ctx, ns, p.Name)
		if err != nil {
			return nil, false, fmt.Errorf("pod %s/%s: %w", ns, p.Name, err)
		}
		if pod == nil || pod.DeletionTimestamp != nil || string(pod.UID) != p.UID {
			return nil, false, fmt.Errorf("the pod %s/%s the token was issued to has been deleted", ns, p.Name)
		}
		extra[ExtraPodName], extra[ExtraPodUID] = []string{p.Name}, []string{p.UID}
		if n := c.K8s.Node; n != nil {
			extra[ExtraNodeName] = []string{n.Name}
			if n.UID != "" {
				extra[ExtraNodeUID] = []string{n.UID}
			}
		}
	}
	if s := c.K8s.Secret; s != nil {
		secret, err := a.Getter.Secret(ctx, ns, s.Name)
		if err != nil {
			return nil, false, fmt.Errorf("secret %s/%s: %w", ns, s.Name, err)
		}
		if secret == nil || secret.DeletionTimestamp != nil || string(secret.UID) != s.UID {
			return nil, false, fmt.Errorf("the secret %s/%s the token was bound to has been deleted", ns, s.Name)
		}
	}
	if len(extra) > 0 {
		user.Extra = extra
	}
	return user, true, nil
}

// SplitUserName returns the namespace and name of a service account user.
func SplitUserName(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, UserPrefix)
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	return namespace, name, ok && namespace != "" && name != ""
}
