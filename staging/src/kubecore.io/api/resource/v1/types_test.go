package v1

import (
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

// TestProtobuf: every kind has a protobuf encoding (tags the codec accepts).
func TestProtobuf(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	ser := protobuf.NewSerializer(s)
	for _, o := range []runtime.Object{&ResourceSlice{}, &ResourceClaim{}, &DeviceClass{}, &ResourceClaimTemplate{}} {
		if err := ser.Encode(o, &discard{}); err != nil {
			t.Error(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
