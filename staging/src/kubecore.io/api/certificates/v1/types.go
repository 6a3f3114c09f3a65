package v1

import (
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// CertificateSigningRequest asks a signer for an x509 certificate: the
// requester creates it with a PEM certificate request, an approver adds an
// Approved (or Denied) condition through /approval, and the signer puts the
// certificate in status through /status.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CertificateSigningRequest struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The request; immutable once created.
	Spec CertificateSigningRequestSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Approval conditions and the issued certificate.
	Status CertificateSigningRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// The signers Kubernetes' controller-manager knows.
const (
	// KubeAPIServerClientSignerName issues client certificates for the
	// API server; never approved automatically.
	KubeAPIServerClientSignerName = "kubernetes.io/kube-apiserver-client"
	// KubeAPIServerClientKubeletSignerName issues kubelets' client
	// certificates; may be approved automatically.
	KubeAPIServerClientKubeletSignerName = "kubernetes.io/kube-apiserver-client-kubelet"
	// KubeletServingSignerName issues kubelets' serving certificates.
	KubeletServingSignerName = "kubernetes.io/kubelet-serving"
	// LegacyUnknownSignerName is what requests made before signer names
	// had; v1 does not accept new ones.
	LegacyUnknownSignerName = "kubernetes.io/legacy-unknown"
)

// CertificateSigningRequestSpec is the certificate request and who made it.
type CertificateSigningRequestSpec struct {
	// A PEM "CERTIFICATE REQUEST" block (base64 again in JSON).
	Request []byte `json:"request" protobuf:"bytes,1,opt,name=request"`
	// Qualified name of the signer asked to issue the certificate.
	SignerName string `json:"signerName" protobuf:"bytes,7,opt,name=signerName"`
	// Requested validity of the certificate, at least 600; the signer may
	// issue a shorter one.
	ExpirationSeconds *int32 `json:"expirationSeconds,omitempty" protobuf:"varint,8,opt,name=expirationSeconds"`
	// Key usages asked for in the certificate.
	// +listType=atomic
	Usages []KeyUsage `json:"usages,omitempty" protobuf:"bytes,5,rep,name=usages"`

	// The user who created the request: set by the API server.
	Username string `json:"username,omitempty" protobuf:"bytes,2,opt,name=username"`
	// The UID of that user.
	UID string `json:"uid,omitempty" protobuf:"bytes,3,opt,name=uid"`
	// The groups of that user.
	// +listType=atomic
	Groups []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	// The extra attributes of that user.
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,6,rep,name=extra"`
}

// ExtraValue holds the values of one extra attribute of a user.
type ExtraValue []string

func (v ExtraValue) String() string { return fmt.Sprintf("%v", []string(v)) }

// CertificateSigningRequestStatus is the approval and the issued
// certificate.
type CertificateSigningRequestStatus struct {
	// Approved, Denied and Failed conditions; at most one of each type.
	// +listType=map
	// +listMapKey=type
	Conditions []CertificateSigningRequestCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
	// The issued certificate in PEM, set once by the signer.
	Certificate []byte `json:"certificate,omitempty" protobuf:"bytes,2,opt,name=certificate"`
}

// RequestConditionType is the type of a request's condition.
type RequestConditionType string

// The condition types of a request.
const (
	// CertificateApproved: the signer should issue the certificate.
	CertificateApproved RequestConditionType = "Approved"
	// CertificateDenied: the signer must not issue it.
	CertificateDenied RequestConditionType = "Denied"
	// CertificateFailed: the signer could not issue it.
	CertificateFailed RequestConditionType = "Failed"
)

// CertificateSigningRequestCondition is one condition of a request.
type CertificateSigningRequestCondition struct {
	// Approved, Denied or Failed (or another type).
	Type RequestConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// True, False or Unknown; Approved, Denied and Failed are always True.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,6,opt,name=status"`
	// A brief machine-readable reason.
	Reason string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	// A human-readable message.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// When the condition was last updated.
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty" protobuf:"bytes,4,opt,name=lastUpdateTime"`
	// When its status last changed; the server sets it when unset.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime"`
}

// CertificateSigningRequestList is a list of CertificateSigningRequests.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CertificateSigningRequestList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The requests.
	Items []CertificateSigningRequest `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// KeyUsage is a usage of a certificate's key (RFC 5280 sections 4.2.1.3
// and 4.2.1.12).
type KeyUsage string

// The key usages a request may ask for.
const (
	UsageSigning           KeyUsage = "signing"
	UsageDigitalSignature  KeyUsage = "digital signature"
	UsageContentCommitment KeyUsage = "content commitment"
	UsageKeyEncipherment   KeyUsage = "key encipherment"
	UsageKeyAgreement      KeyUsage = "key agreement"
	UsageDataEncipherment  KeyUsage = "data encipherment"
	UsageCertSign          KeyUsage = "cert sign"
	UsageCRLSign           KeyUsage = "crl sign"
	UsageEncipherOnly      KeyUsage = "encipher only"
	UsageDecipherOnly      KeyUsage = "decipher only"
	UsageAny               KeyUsage = "any"
	UsageServerAuth        KeyUsage = "server auth"
	UsageClientAuth        KeyUsage = "client auth"
	UsageCodeSigning       KeyUsage = "code signing"
	UsageEmailProtection   KeyUsage = "email protection"
	UsageSMIME             KeyUsage = "s/mime"
	UsageIPsecEndSystem    KeyUsage = "ipsec end system"
	UsageIPsecTunnel       KeyUsage = "ipsec tunnel"
	UsageIPsecUser         KeyUsage = "ipsec user"
	UsageTimestamping      KeyUsage = "timestamping"
	UsageOCSPSigning       KeyUsage = "ocsp signing"
	UsageMicrosoftSGC      KeyUsage = "microsoft sgc"
	UsageNetscapeSGC       KeyUsage = "netscape sgc"
)
