package generic

import (
	"errors"
	"net/http"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/storage"
)

func TestInterpretStorageError(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		op     verb
		code   int32
		reason metav1.StatusReason
	}{
		{"not found", storage.NewError(storage.ErrCodeKeyNotFound, "/pods/x", 0, ""), verbGet, http.StatusNotFound, metav1.StatusReasonNotFound},
		{"exists on create", storage.NewError(storage.ErrCodeKeyExists, "/pods/x", 0, ""), verbCreate, http.StatusConflict, metav1.StatusReasonAlreadyExists},
		{"conflict", storage.NewError(storage.ErrCodeResourceVersionConflicts, "/pods/x", 0, "Precondition failed"), verbUpdate, http.StatusConflict, metav1.StatusReasonConflict},
		{"expired", storage.NewError(storage.ErrCodeExpired, "/pods", 5, ""), verbList, http.StatusGone, metav1.StatusReasonExpired},
		{"unreachable", storage.NewUnreachableError("/pods/x", errors.New("dial")), verbGet, http.StatusInternalServerError, metav1.StatusReasonServerTimeout},
		{"bad continue", storage.NewError(storage.ErrCodeInvalidContinue, "/pods", 0, "bad"), verbList, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"too large", storage.NewError(storage.ErrCodeTooLargeResourceVersion, "/pods", 9, ""), verbList, http.StatusGatewayTimeout, metav1.StatusReasonTimeout},
		{"invalid object", storage.NewError(storage.ErrCodeInvalidObj, "/pods/x", 0, ""), verbGet, http.StatusInternalServerError, metav1.StatusReasonInternalError},
		{"other", errors.New("boom"), verbGet, http.StatusInternalServerError, metav1.StatusReasonInternalError},
		{"api error passes", apierrors.NewBadRequest("x"), verbGet, http.StatusBadRequest, metav1.StatusReasonBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := statusOf(t, interpretStorageError(tt.err, tt.op, podsResource, "x"), tt.code)
			if st.Reason != tt.reason {
				t.Fatalf("reason %s, want %s", st.Reason, tt.reason)
			}
		})
	}
	if interpretStorageError(nil, verbGet, podsResource, "x") != nil {
		t.Fatal("nil error became an error")
	}
}
