// Package tokenfile authenticates bearer tokens listed in a static CSV
// file, as --token-auth-file does in Kubernetes: one line per token,
// "token,user,uid" and optionally a quoted, comma-separated group list.
package tokenfile

import (
	"context"
	"crypto/subtle"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
)

// Authenticator holds the tokens of one file.
type Authenticator struct {
	tokens map[string]*apirequest.UserInfo
}

var _ authenticator.Token = (*Authenticator)(nil)

// Load reads the file at path.
func Load(path string) (*Authenticator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer func() { _ = f.Close() }()
	a, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("token file %s: %w", path, err)
	}
	return a, nil
}

// Parse reads tokens from CSV.
func Parse(r io.Reader) (*Authenticator, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	a := &Authenticator{tokens: map[string]*apirequest.UserInfo{}}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return a, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) < 3 {
			return nil, fmt.Errorf("line %d: want token,user,uid[,\"group1,group2\"], got %d fields", line, len(rec))
		}
		token, user := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		if token == "" || user == "" {
			return nil, fmt.Errorf("line %d: the token and the user name must not be empty", line)
		}
		if _, dup := a.tokens[token]; dup {
			return nil, fmt.Errorf("line %d: duplicate token", line)
		}
		u := &apirequest.UserInfo{Name: user, UID: strings.TrimSpace(rec[2])}
		if len(rec) > 3 {
			for _, g := range strings.Split(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		a.tokens[token] = u
	}
}

// AuthenticateToken implements authenticator.Token.
func (a *Authenticator) AuthenticateToken(_ context.Context, token string) (*apirequest.UserInfo, bool, error) {
	for t, u := range a.tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			c := *u
			return &c, true, nil
		}
	}
	return nil, false, nil
}
