package serviceaccount

import (
	"context"
	"crypto/ecdsa"
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
	// Extra attributes of a user authenticated by a pod's token.
	ExtraPodName = "authentication.kubernetes.io/pod-name"
	ExtraPodUID  = "authentication.kubernetes.io/pod-uid"
)

// UserName is the user of a service account.
func UserName(namespace, name string) string { return UserPrefix + namespace + ":" + name }

// Issuer signs the tokens of service accounts.
type Issuer struct {
	Key    *ecdsa.PrivateKey
	Issuer string
	Now    func() time.Time
}

// Token issues a token for sa, bound to pod when not nil, valid for
// ttl for the given audiences (the issuer's default when empty).
func (i *Issuer) Token(sa *corev1.ServiceAccount, pod *corev1.Pod, audiences []string, ttl time.Duration) (string, time.Time, error) {
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
		IssuedAt: t.Unix(), NotBefore: t.Unix(), Expiry: exp.Unix(),
		K8s: &PrivateClaims{Namespace: sa.Namespace, ServiceAccount: Ref{Name: sa.Name, UID: string(sa.UID)}},
	}
	if pod != nil {
		c.K8s.Pod = &Ref{Name: pod.Name, UID: string(pod.UID)}
	}
	tok, err := Sign(i.Key, c)
	return tok, exp, err
}

// Getter reads the objects a token names; missing ones are (nil, nil).
type Getter interface {
	ServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
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
	if p := c.K8s.Pod; p != nil {
		pod, err := a.Getter.Pod(ctx, ns, p.Name)
		if err != nil {
			return nil, false, fmt.Errorf("pod %s/%s: %w", ns, p.Name, err)
		}
		if pod == nil || pod.DeletionTimestamp != nil || string(pod.UID) != p.UID {
			return nil, false, fmt.Errorf("the pod %s/%s the token was issued to has been deleted", ns, p.Name)
		}
		user.Extra = map[string][]string{ExtraPodName: {p.Name}, ExtraPodUID: {p.UID}}
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
