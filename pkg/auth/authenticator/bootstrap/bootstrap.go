// Package bootstrap authenticates bootstrap tokens, with which a new node
// joins: "<id>.<secret>" (6 and 16 characters of [a-z0-9]) matching the
// Secret kube-system/bootstrap-token-<id> of type
// bootstrap.kubernetes.io/token that allows authentication and has not
// expired. The user is system:bootstrap:<id> in group system:bootstrappers.
package bootstrap

import (
	"context"
	"crypto/subtle"
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
)

// Facts of bootstrap token Secrets.
const (
	SecretType      = corev1.SecretType("bootstrap.kubernetes.io/token")
	SecretNamespace = "kube-system"
	SecretPrefix    = "bootstrap-token-"
	UserPrefix      = "system:bootstrap:"
	Group           = "system:bootstrappers"

	KeyTokenID      = "token-id"
	KeyTokenSecret  = "token-secret"
	KeyExpiration   = "expiration"
	KeyUsageAuthn   = "usage-bootstrap-authentication"
	KeyExtraGroups  = "auth-extra-groups"
	KeyDescription  = "description"
	usageEnabledVal = "true"
)

// tokenPattern is the shape of a bootstrap token.
var tokenPattern = regexp.MustCompile(`^([a-z0-9]{6})\.([a-z0-9]{16})$`)

// Parse splits a bootstrap token into its id and secret.
func Parse(token string) (id, secret string, ok bool) {
	m := tokenPattern.FindStringSubmatch(token)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// SecretGetter reads a Secret; a missing one is (nil, nil).
type SecretGetter interface {
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
}

// Authenticator checks bootstrap tokens against their Secrets.
type Authenticator struct {
	Secrets SecretGetter
	Now     func() time.Time
}

var _ authenticator.Token = (*Authenticator)(nil)

// AuthenticateToken implements authenticator.Token: tokens of another
// shape are not its business (ok false, no error).
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*apirequest.UserInfo, bool, error) {
	id, secret, ok := Parse(token)
	if !ok {
		return nil, false, nil
	}
	s, err := a.Secrets.Secret(ctx, SecretNamespace, SecretPrefix+id)
	if err != nil {
		return nil, false, fmt.Errorf("bootstrap token %s: %w", id, err)
	}
	if s == nil || s.Type != SecretType || s.DeletionTimestamp != nil {
		return nil, false, fmt.Errorf("bootstrap token %s: no such token", id)
	}
	get := func(k string) string { return string(s.Data[k]) }
	if subtle.ConstantTimeCompare([]byte(get(KeyTokenSecret)), []byte(secret)) != 1 || get(KeyTokenID) != id {
		return nil, false, fmt.Errorf("bootstrap token %s: wrong secret", id)
	}
	if get(KeyUsageAuthn) != usageEnabledVal {
		return nil, false, fmt.Errorf("bootstrap token %s: not usable for authentication", id)
	}
	if exp := get(KeyExpiration); exp != "" {
		t, err := time.Parse(time.RFC3339, exp)
		if err != nil {
			return nil, false, fmt.Errorf("bootstrap token %s: expiration %q: %w", id, exp, err)
		}
		now := time.Now
		if a.Now != nil {
			now = a.Now
		}
		if !now().Before(t) {
			return nil, false, fmt.Errorf("bootstrap token %s: expired at %s", id, exp)
		}
	}
	groups := []string{Group}
	for _, g := range strings.Split(get(KeyExtraGroups), ",") {
		if g = strings.TrimSpace(g); strings.HasPrefix(g, Group+":") {
			groups = append(groups, g)
		}
	}
	return &apirequest.UserInfo{Name: UserPrefix + id, Groups: groups}, true, nil
}
