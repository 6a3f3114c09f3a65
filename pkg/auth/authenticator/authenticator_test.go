package authenticator

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"kubecore.io/kubecore/pkg/apirequest"
)

type tokenFunc func(string) (*apirequest.UserInfo, bool, error)

func (f tokenFunc) AuthenticateToken(_ context.Context, t string) (*apirequest.UserInfo, bool, error) {
	return f(t)
}

func TestBearerUnion(t *testing.T) {
	alice := tokenFunc(func(t string) (*apirequest.UserInfo, bool, error) {
		if t == "alice-token" {
			return &apirequest.UserInfo{Name: "alice", Groups: []string{"dev"}}, true, nil
		}
		return nil, false, nil
	})
	broken := tokenFunc(func(t string) (*apirequest.UserInfo, bool, error) {
		if t == "expired" {
			return nil, false, errors.New("token expired")
		}
		return nil, false, nil
	})
	u := Union{&ClientCert{}, &BearerToken{Tokens: []Token{broken, alice}}}
	tests := []struct {
		header  string
		user    string
		wantErr string
	}{
		{"Bearer alice-token", "alice", ""},
		{"bearer   alice-token", "alice", ""},
		{"Bearer expired", "", "token expired"},
		{"Bearer unknown", "", "invalid bearer token"},
		{"Basic abc", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/api", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		user, ok, err := u.AuthenticateRequest(r)
		if (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: err %v, want %q", tt.header, err, tt.wantErr)
		}
		if tt.user == "" {
			if ok {
				t.Errorf("%q: authenticated %+v", tt.header, user)
			}
			continue
		}
		if !ok || user.Name != tt.user || strings.Join(user.Groups, ",") != "dev,system:authenticated" {
			t.Errorf("%q: user %+v ok %v", tt.header, user, ok)
		}
	}
}
