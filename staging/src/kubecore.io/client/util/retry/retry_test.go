package retry

import (
	"errors"
	"testing"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestOnError(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("stale"))
	other := errors.New("boom")
	tests := []struct {
		name      string
		errs      []error // returned by successive calls; nil afterwards
		steps     int
		wantCalls int
		wantErr   error
	}{
		{name: "success first", errs: nil, steps: 5, wantCalls: 1},
		{name: "conflict then success", errs: []error{conflict, conflict}, steps: 5, wantCalls: 3},
		{name: "non-retriable stops at once", errs: []error{other, conflict}, steps: 5, wantCalls: 1, wantErr: other},
		{name: "exhausted returns last conflict", errs: []error{conflict, conflict, conflict}, steps: 3, wantCalls: 3, wantErr: conflict},
		{name: "zero steps means one attempt", errs: []error{conflict}, steps: 0, wantCalls: 1, wantErr: conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			var slept []time.Duration
			b := Backoff{Duration: time.Millisecond, Factor: 2, Steps: tt.steps, Cap: 3 * time.Millisecond}
			err := onError(b, apierrors.IsConflict, func() error {
				calls++
				if calls <= len(tt.errs) {
					return tt.errs[calls-1]
				}
				return nil
			}, func(d time.Duration) { slept = append(slept, d) })
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if !errors.Is(err, tt.wantErr) && err != tt.wantErr {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if len(slept) != calls-1 {
				t.Errorf("slept %d times, want %d", len(slept), calls-1)
			}
			for i, d := range slept {
				want := []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 3 * time.Millisecond}[i]
				if d != want {
					t.Errorf("pause %d = %v, want %v", i, d, want)
				}
			}
		})
	}
}

func TestRetryOnConflictRealSleep(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("stale"))
	n := 0
	err := RetryOnConflict(DefaultRetry, func() error {
		n++
		if n < 3 {
			return conflict
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("err=%v n=%d, want nil 3", err, n)
	}
	err = RetryOnConflict(DefaultRetry, func() error { return conflict })
	if !apierrors.IsConflict(err) {
		t.Fatalf("exhausted err = %v, want conflict", err)
	}
}
