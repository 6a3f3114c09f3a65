package v1

import (
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

func TestProtobuf(t *testing.T) {
	if err := protobuf.NewCodec().Supports(reflect.TypeOf(&RuntimeClassList{})); err != nil {
		t.Error(err)
	}
}
