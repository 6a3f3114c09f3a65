package protobuf

import (
	"encoding/json"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

type namedString string

type child struct {
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	N    int32  `json:"n" protobuf:"varint,2,opt,name=n"`
}

// sample has a field of every shape and special type the codec knows.
type sample struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`

	Str      string                            `protobuf:"bytes,2,opt,name=str"`
	Int32    int32                             `protobuf:"varint,3,opt,name=int32"`
	Int64    int64                             `protobuf:"varint,4,opt,name=int64"`
	Bool     bool                              `protobuf:"varint,5,opt,name=bool"`
	PStr     *string                           `protobuf:"bytes,6,opt,name=pStr"`
	PInt     *int32                            `protobuf:"varint,7,opt,name=pInt"`
	Bytes    []byte                            `protobuf:"bytes,8,opt,name=bytes"`
	Strs     []string                          `protobuf:"bytes,9,rep,name=strs"`
	Ints     []int64                           `protobuf:"varint,10,rep,name=ints"`
	Map      map[string]string                 `protobuf:"bytes,11,rep,name=map"`
	BMap     map[string][]byte                 `protobuf:"bytes,12,rep,name=bMap"`
	QMap     map[namedString]resource.Quantity `protobuf:"bytes,13,rep,name=qMap"`
	Child    child                             `protobuf:"bytes,14,opt,name=child"`
	PChild   *child                            `protobuf:"bytes,15,opt,name=pChild"`
	Children []child                           `protobuf:"bytes,16,rep,name=children"`
	Time     metav1.Time                       `protobuf:"bytes,17,opt,name=time"`
	PTime    *metav1.Time                      `protobuf:"bytes,18,opt,name=pTime"`
	Micro    metav1.MicroTime                  `protobuf:"bytes,19,opt,name=micro"`
	Qty      resource.Quantity                 `protobuf:"bytes,20,opt,name=qty"`
	PQty     *resource.Quantity                `protobuf:"bytes,21,opt,name=pQty"`
	IOS      intstr.IntOrString                `protobuf:"bytes,22,opt,name=ios"`
	PIOS     *intstr.IntOrString               `protobuf:"bytes,23,opt,name=pIos"`
	Raw      runtime.RawExtension              `protobuf:"bytes,24,opt,name=raw"`
	RawMsg   json.RawMessage                   `protobuf:"bytes,25,opt,name=rawMsg"`
	Verbs    metav1.Verbs                      `protobuf:"bytes,26,opt,name=verbs"`
	F64      float64                           `protobuf:"fixed64,27,opt,name=f64"`
	F32      float32                           `protobuf:"fixed32,28,opt,name=f32"`
	U32      uint32                            `protobuf:"varint,29,opt,name=u32"`
	Named    namedString                       `protobuf:"bytes,30,opt,name=named"`
	Dur      metav1.Duration                   `protobuf:"bytes,31,opt,name=dur"`
	Raws     []runtime.RawExtension            `protobuf:"bytes,32,rep,name=raws"`
	Far      string                            `protobuf:"bytes,5000,opt,name=far"`
	Hidden   string                            `json:"-"`
	Left     string                            `protobuf:"-"`
	private  string
}

func (s *sample) DeepCopyObject() runtime.Object {
	c := *s
	return &c
}

var sampleKind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Sample"}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(sampleKind, &sample{})
	return s
}
