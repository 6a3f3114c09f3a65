package cri

import (
	"errors"
	"strings"
	"testing"
)

func TestGRPCTarget(t *testing.T) {
	for _, tc := range []struct{ in, want, wantErr string }{
		{"unix:///run/containerd/containerd.sock", "unix:///run/containerd/containerd.sock", ""},
		{"/run/containerd/containerd.sock", "unix:///run/containerd/containerd.sock", ""},
		{"tcp://127.0.0.1:1234", "", "want unix://"},
		{"unix://", "", "want unix://"},
	} {
		got, err := grpcTarget(tc.in)
		if got != tc.want || (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("grpcTarget(%q) = %q, %v; want %q, error %q", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestReadOutcome(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantCode   int
		wantErr    string
	}{
		{"nothing is success", "", 0, ""},
		{"success", `{"metadata":{},"status":"Success"}`, 0, ""},
		{"exit code", `{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`, 3, ""},
		{"other failure", `{"metadata":{},"status":"Failure","message":"no such container"}`, 0, "no such container"},
		{"not JSON", "boom", 0, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readOutcome(strings.NewReader(tc.body))
			var exit exitError
			switch {
			case tc.wantCode != 0:
				if !errors.As(err, &exit) || int(exit) != tc.wantCode {
					t.Errorf("readOutcome = %v, want exit %d", err, tc.wantCode)
				}
			case tc.wantErr == "" && err != nil, tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("readOutcome = %v, want error %q", err, tc.wantErr)
			}
		})
	}
}
