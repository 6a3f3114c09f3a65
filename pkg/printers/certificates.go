package printers

import (
	"time"

	certificatesv1 "kubecore.io/api/certificates/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func csrColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		ageColumn(),
		column("SignerName", "string", "The signer asked to issue the certificate."),
		column("Requestor", "string", "The user who created the request."),
		column("RequestedDuration", "string", "The validity the request asks for."),
		column("Condition", "string", "Pending, Approved or Denied, then Failed and Issued when they apply."),
	}
}

func printCSR(c *printContext, csr *certificatesv1.CertificateSigningRequest) (row, error) {
	signer := csr.Spec.SignerName
	if signer == "" {
		signer = "<none>"
	}
	duration := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		duration = HumanDuration(time.Duration(*s) * time.Second)
	}
	return row{cells: []any{csr.Name, c.age(csr.CreationTimestamp), signer, csr.Spec.Username, duration, csrCondition(csr)}}, nil
}

// csrCondition is the CONDITION cell: Denied over Approved over Pending,
// then ",Failed" and ",Issued" when they apply.
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	has := map[certificatesv1.RequestConditionType]bool{}
	for _, cond := range csr.Status.Conditions {
		has[cond.Type] = true
	}
	out := "Pending"
	switch {
	case has[certificatesv1.CertificateDenied]:
		out = "Denied"
	case has[certificatesv1.CertificateApproved]:
		out = "Approved"
	}
	if has[certificatesv1.CertificateFailed] {
		out += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		out += ",Issued"
	}
	return out
}
